"""Checks of scripts/bench_paged_decode.py that need no GPU: the sweeps it plans, how it reads a
point and its layout from a report, and the ratio and verdict of each row.
Run: python3 tests/python/test_bench_paged_decode.py"""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))

import bench_paged_decode as bp  # noqa: E402


def fake_point(seq, median_s, layout=None, page=None, dram=None):
    shape = {"seq_len": seq}
    if layout is not None:
        shape.update(kv_layout=layout, page_size=page)
    return {"op": "decode_attention", "version": "decode_attention_v4_flat_fused_merge",
            "shape": shape, "status": "ok", "validation": {"passed": True},
            "timing": {"median_s": median_s}, "counters": {"total": {"dram_bytes": dram}}}


class BenchPagedDecodeTest(unittest.TestCase):
    def test_sweeps_name_the_layout(self):
        labels = [label for label, _ in bp.layouts()]
        self.assertEqual(labels, ["contiguous", "paged/16", "paged/128"])
        cmd = bp.sweep_command("rfl", 8, bp.layouts()[1][1], 5, counters=False)
        joined = " ".join(cmd)
        self.assertIn("--ops decode_attention --seq 4096,32768", joined)
        self.assertIn("--kv-heads 8", joined)
        self.assertIn("--kv-layout paged --page-size 16", joined)
        self.assertIn("--no-counters", cmd)
        self.assertNotIn("--no-counters",
                         bp.sweep_command("rfl", 8, bp.layouts()[0][1], 5, counters=True))

    def test_point_reads_layout_and_time(self):
        report = {"points": [fake_point(4096, 1e-4), fake_point(32768, 8e-4, "paged", 128)]}
        self.assertEqual(bp.point_measurement(report, 4096)["layout"], "contiguous")
        m = bp.point_measurement(report, 32768)
        self.assertEqual(m["layout"], "paged/128")
        self.assertEqual(m["median_s"], 8e-4)
        with self.assertRaises(RuntimeError):
            bp.point_measurement(report, 1000)
        failed = fake_point(4096, 1e-4)
        failed["validation"]["passed"] = False
        with self.assertRaises(RuntimeError):
            bp.point_measurement({"points": [failed]}, 4096)

    def test_ratio_is_contiguous_time_over_paged_time(self):
        results = {}
        for kv_heads in bp.kKvHeads:
            for seq in bp.kSeqs:
                results[(kv_heads, seq, "contiguous")] = [{"median_s": 1.0, "dram_bytes": None},
                                                          {"median_s": 3.0, "dram_bytes": None}]
                results[(kv_heads, seq, "paged/16")] = [{"median_s": 2.0, "dram_bytes": None}]
                results[(kv_heads, seq, "paged/128")] = [{"median_s": 2.1, "dram_bytes": None}]
        rows = bp.ratio_rows(results)
        self.assertEqual(len(rows), len(bp.kKvHeads) * len(bp.kSeqs) * len(bp.kPageSizes))
        first = rows[0]
        self.assertEqual((first["kv_heads"], first["seq_len"], first["page_size"]), (32, 4096, 16))
        self.assertAlmostEqual(first["ratio"], 1.0)  # median of 1 and 3 s against 2 s
        self.assertTrue(first["met"])
        self.assertAlmostEqual(rows[1]["ratio"], 2.0 / 2.1)  # 0.952: met
        self.assertTrue(rows[1]["met"])
        self.assertAlmostEqual(first["paged_kv_bytes_per_s"],
                               2.0 * 8 * 32 * 4096 * 128 * 2 / 2.0)
        self.assertNotIn("paged_dram_bytes_per_s", first)

    def test_head_dim_reaches_the_sweep_and_the_bytes(self):
        flags = bp.layouts()[1][1]
        self.assertIn("--head-dim 128", " ".join(bp.sweep_command("rfl", 8, flags, 5, False)))
        cmd = bp.sweep_command("rfl", 8, flags, 5, False, head_dim=96)
        self.assertIn("--head-dim 96", " ".join(cmd))
        self.assertEqual(bp.kv_bytes(8, 4096, 256), 2.0 * 8 * 8 * 4096 * 256 * 2)
        results = {}
        for kv_heads in bp.kKvHeads:
            for seq in bp.kSeqs:
                for label, _ in bp.layouts():
                    results[(kv_heads, seq, label)] = [{"median_s": 2.0, "dram_bytes": None}]
        row = bp.ratio_rows(results, head_dim=256)[0]
        self.assertEqual(row["head_dim"], 256)
        self.assertAlmostEqual(row["paged_kv_bytes_per_s"], 2.0 * 8 * 32 * 4096 * 256 * 2 / 2.0)

    def test_head_dim_option_plans_and_refuses(self):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                              "bench_paged_decode.py")
        done = subprocess.run([sys.executable, script, "--dry-run", "--rooflinectl", "rfl",
                               "--rounds", "1", "--head-dim", "256"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), len(bp.kKvHeads) * len(bp.layouts()))
        self.assertTrue(all("--head-dim 256" in line for line in lines), lines)
        refused = subprocess.run([sys.executable, script, "--dry-run", "--head-dim", "80"],
                                 capture_output=True, text=True)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("--head-dim", refused.stderr)


if __name__ == "__main__":
    unittest.main()
