"""Checks of scripts/decision_table.py that need no GPU: the commands --dry-run plans, the table
--from-dir renders from the small fixture reports in tests/python/data/decision-table/ (H100,
llama-3.1-8b; naive attention skipped at 32K, one decode point failed), the cells left unmeasured
without the sweep reports, the marked block --doc replaces, and the refusals (exit 2, one line).
Run: python3 tests/python/test_decision_table.py"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

kHere = os.path.dirname(os.path.abspath(__file__))
kScript = os.path.join(kHere, "..", "..", "scripts", "decision_table.py")
kFixtures = os.path.join(kHere, "data", "decision-table")


def run(*args):
    done = subprocess.run([sys.executable, kScript, *args], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def row(text, workload_or_phase):
    """The table line whose first or second cell is `workload_or_phase`, split into cells."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and workload_or_phase in (cells[0], cells[1]):
            return cells
    raise AssertionError(f"no row '{workload_or_phase}' in:\n{text}")


class DecisionTableTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="decision-table-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_dry_run_prints_the_four_commands(self):
        code, out, err = run("--dry-run", "--rooflinectl", "rfl", "--work-dir", "W")
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertEqual(len(lines), 4, out)
        self.assertEqual(lines[0], "rfl sweep --model llama-3.1-8b --ops "
                         "naive_attention,flash_attention --seq 200,4096,32768 --batch 1 "
                         "--causal on --repetitions 10 --no-counters --output W/prefill.json")
        self.assertEqual(lines[1], "rfl sweep --model llama-3.1-8b --ops decode_attention --seq "
                         "500,4352,33280 --batch 1,64 --kv-heads 32,8,4 --kv-dtype auto,fp8_e4m3 "
                         "--filter 'kv_dtype=auto|kv_heads=8' --repetitions 10 --no-counters "
                         "--output W/decode.json")
        self.assertIn("rfl model --gpu h100-sxm --model llama-3.1-8b --ops "
                      "naive_attention,flash_attention", lines[2])
        self.assertTrue(lines[3].endswith("--max-model-len 131072 --kv-lengths 500,4352,33280 "
                                          "--format json --output W/capacity.json"), lines[3])
        self.assertNotIn("W", os.listdir("."))  # nothing ran, nothing was created

    def test_dry_run_at_another_preset_and_gpu(self):
        code, out, err = run("--dry-run", "--preset", "mistral-7b-v0.3", "--gpu", "h200-sxm",
                             "--repetitions", "3", "--max-model-len", "40000")
        self.assertEqual(code, 0, err)
        self.assertIn("--model mistral-7b-v0.3", out)
        self.assertIn("--gpu h200-sxm", out)
        self.assertIn("--repetitions 3", out)
        self.assertIn("--max-model-len 40000", out)

    def test_from_dir_renders_every_cell(self):
        out_md = os.path.join(self.tmp, "table.md")
        code, out, err = run("--from-dir", kFixtures, "--output", out_md)
        # 1: the table is written, but a sweep point was skipped (naive at 32K) or failed.
        self.assertEqual(code, 1, err)
        self.assertEqual(out, "")
        with open(out_md) as f:
            text = f.read()
        self.assertIn("Measured on NVIDIA H100 80GB HBM3 (2026-12-10T12:00:00Z, rooflinectl "
                      "0.1.0 at abc1234)", text)
        chat = row(text, "short chat (200 + 300 tokens)")
        self.assertEqual(chat[1], "prefill, B = 1, L = 200")
        self.assertEqual(chat[2], "**2.50×** (naive 50 µs → flash 20 µs) [measured, c1]")
        self.assertEqual(chat[3], "naive 9.22 MB → flash 4.1 MB (**2.25×** less; naive fits "
                                  "h100-sxm) [modelled, c3]")
        self.assertEqual(chat[4:], ["—"] * 4)
        doc = row(text, "32K document (32768 + 512 tokens)")
        self.assertEqual(doc[2], "naive skipped: needs 138.2 GB of device memory, 84.6 GB free; "
                                 "flash 40 ms [measured, c1]")
        self.assertIn("naive 138 GB → flash 671 MB (**206×** less; naive does not fit", doc[3])
        # Decode at B = 1, context 4352: g=1 0.0128 ms, g=4 0.0107, g=8 0.0103; fp8 at H_kv = 8.
        d = row(text, "decode, B = 1, context 4352")
        self.assertEqual(d[2:4], ["—", "—"])
        self.assertEqual(d[4], "**1.20×** (g=1 12.8 µs → g=4 10.7 µs) [measured, c2]")
        self.assertEqual(d[5], "**1.24×** (g=1 12.8 µs → g=8 10.3 µs) [measured, c2]")
        self.assertEqual(d[6], "**1.03×** (bf16 10.7 µs → fp8 10.3 µs) [measured, c2]")
        self.assertEqual(d[7], "contiguous 3 → paged 107 sequences (**35.7×**) [modelled, c4]")
        big = row(text, "decode, B = 64, context 33280")
        self.assertEqual(big[4], "g=1 failed: CUDA error: out of memory; g=4 351 µs "
                                 "[measured, c2]")
        self.assertEqual(big[7], "contiguous 3 → paged 14 sequences (**4.67×**); B = 64 fits: "
                                 "contiguous no, paged no [modelled, c4]")
        self.assertIn("paged 912 sequences (**304×**); B = 64 fits: contiguous no, paged yes",
                      row(text, "decode, B = 64, context 500")[7])
        self.assertIn("- c1 [measured]: `rooflinectl sweep --model llama-3.1-8b", text)
        self.assertIn("- c4 [modelled]: `rooflinectl model --gpu h100-sxm", text)
        self.assertIn("--output capacity.json`", text)  # the file name, not the run's directory

    def test_without_sweep_reports_the_measured_cells_say_how(self):
        for name in ("prefill-model.json", "capacity.json"):
            shutil.copy(os.path.join(kFixtures, name), self.tmp)
        code, out, err = run("--from-dir", self.tmp)
        self.assertEqual(code, 0, err)
        self.assertIn("Measured cells: not measured yet", out)
        chat = row(out, "short chat (200 + 300 tokens)")
        self.assertEqual(chat[2], "not measured: run `scripts/decision_table.py` on a GPU")
        self.assertIn("[modelled, c3]", chat[3])
        d = row(out, "decode, B = 1, context 500")
        self.assertEqual(d[4], "not measured: run `scripts/decision_table.py` on a GPU")
        self.assertEqual(d[7], "contiguous 3 → paged 912 sequences (**304×**) [modelled, c4]")

    def test_doc_block_is_replaced(self):
        doc = os.path.join(self.tmp, "evidence.md")
        with open(doc, "w") as f:
            f.write("# Evidence\n\nbefore\n<!-- decision-table:begin -->\nold table\n"
                    "<!-- decision-table:end -->\nafter\n")
        code, out, err = run("--from-dir", kFixtures, "--doc", doc)
        self.assertEqual(code, 1, err)
        with open(doc) as f:
            text = f.read()
        self.assertTrue(text.startswith("# Evidence\n\nbefore\n<!-- decision-table:begin -->\n"
                                        "Preset `llama-3.1-8b`"), text[:200])
        self.assertNotIn("old table", text)
        self.assertTrue(text.endswith("bytes).\n<!-- decision-table:end -->\nafter\n"),
                        text[-200:])
        self.assertEqual([f for f in os.listdir(self.tmp) if f.startswith(".")], [])

    def test_refusals_are_one_line_exit_2(self):
        no_markers = os.path.join(self.tmp, "plain.md")
        with open(no_markers, "w") as f:
            f.write("# nothing marked\n")
        cases = [
            (("--dry-run", "--preset", "llama-4"), "unknown preset 'llama-4' (--preset): known"),
            (("--dry-run", "--preset", "gemma-2-9b"), "head_dim 256 is not supported"),
            (("--dry-run", "--preset", "gpt2"), "12 heads cannot form GQA groups of 8"),
            (("--dry-run", "--repetitions", "0"), "invalid --repetitions 0"),
            (("--dry-run", "--max-model-len", "4096"),
             "invalid --max-model-len 4096: below the longest workload's 33280 positions"),
            (("--from-dir", os.path.join(self.tmp, "none")), "no such directory"),
            (("--dry-run", "--output", self.tmp), "is a directory, a file path is needed"),
            (("--dry-run", "--output", os.path.join(self.tmp, "none", "x.md")),
             "no such directory"),
            (("--from-dir", kFixtures, "--doc", no_markers),
             "needs exactly one '<!-- decision-table:begin -->'"),
        ]
        for args, pattern in cases:
            code, out, err = run(*args)
            self.assertEqual(code, 2, (args, err))
            self.assertIn(pattern, err)
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertEqual(out, "")
        with open(no_markers) as f:
            self.assertEqual(f.read(), "# nothing marked\n")


if __name__ == "__main__":
    unittest.main()
