"""Checks of scripts/bench_fp8_decode.py that need no GPU: the sweep it plans, how it reads a
point of each KV dtype from a report, and the ratio and verdict of each row.
Run: python3 tests/python/test_bench_fp8_decode.py"""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))

import bench_fp8_decode as bf  # noqa: E402


def fake_point(seq, median_s, kv_dtype=None, passed=True, dram=None, sm_clock_hz=None):
    shape = {"seq_len": seq}
    if kv_dtype is not None:
        shape["kv_dtype"] = kv_dtype
    timing = {"median_s": median_s}
    if sm_clock_hz is not None:
        timing["sm_clock_hz"] = sm_clock_hz
    return {"op": "decode_attention", "version": "decode_attention_v5_mma_gqa_fused_merge",
            "shape": shape, "status": "ok", "validation": {"passed": passed},
            "timing": timing, "counters": {"total": {"dram_bytes": dram}}}


class BenchFp8DecodeTest(unittest.TestCase):
    def test_one_sweep_runs_both_kv_dtypes(self):
        cmd = bf.sweep_command("rfl", 8, 5, counters=False)
        joined = " ".join(cmd)
        self.assertIn("--ops decode_attention --seq 4096,8192,16384,32768,65536,131072", joined)
        self.assertIn("--kv-heads 8", joined)
        self.assertIn("--kv-dtype auto,fp8_e4m3", joined)
        self.assertIn("--no-counters", cmd)
        self.assertNotIn("--no-counters", bf.sweep_command("rfl", 8, 5, counters=True))

    def test_point_is_found_by_kv_dtype(self):
        report = {"points": [fake_point(4096, 2e-4), fake_point(4096, 1e-4, "fp8_e4m3")]}
        self.assertEqual(bf.point_measurement(report, 4096, "auto")["median_s"], 2e-4)
        self.assertEqual(bf.point_measurement(report, 4096, "fp8_e4m3")["median_s"], 1e-4)
        with self.assertRaises(RuntimeError):
            bf.point_measurement(report, 8192, "auto")
        failed = {"points": [fake_point(4096, 1e-4, "fp8_e4m3", passed=False)]}
        with self.assertRaises(RuntimeError):
            bf.point_measurement(failed, 4096, "fp8_e4m3")

    def test_per_shape_plans_one_sweep_per_kv_heads_and_length(self):
        whole = bf.sweep_plan("rfl", 2, 5, False, 128, per_shape=False)
        self.assertEqual([name for name, _, _ in whole],
                         ["round0-hkv32", "round0-hkv8", "round1-hkv32", "round1-hkv8"])
        self.assertEqual(whole[1][2], (8, bf.kSeqs))
        per_shape = bf.sweep_plan("rfl", 1, 5, False, 128, per_shape=True)
        self.assertEqual(len(per_shape), len(bf.kKvHeads) * len(bf.kSeqs))
        name, cmd, (kv_heads, seqs) = per_shape[len(bf.kSeqs) + 3]
        self.assertEqual((name, kv_heads, seqs), ("round0-hkv8-L32768", 8, (32768,)))
        joined = " ".join(cmd)
        self.assertIn("--seq 32768 ", joined)
        self.assertIn("--kv-heads 8 ", joined)
        self.assertIn("--kv-dtype auto,fp8_e4m3", joined)

    def test_clocks_are_read_and_their_median_shown(self):
        report = {"points": [fake_point(4096, 2e-4, sm_clock_hz=1.98e9),
                             fake_point(4096, 1e-4, "fp8_e4m3")]}
        self.assertEqual(bf.point_measurement(report, 4096, "auto")["sm_clock_hz"], 1.98e9)
        self.assertIsNone(bf.point_measurement(report, 4096, "fp8_e4m3")["sm_clock_hz"])
        results = {}
        for kv_heads in bf.kKvHeads:
            for seq in bf.kSeqs:
                results[(kv_heads, seq, "auto")] = [
                    {"median_s": 1.0, "dram_bytes": None, "quantization_error": None,
                     "sm_clock_hz": c} for c in (1.9e9, 2.0e9, 1.7e9)]
                results[(kv_heads, seq, "fp8_e4m3")] = [
                    {"median_s": 0.5, "dram_bytes": None, "quantization_error": None,
                     "sm_clock_hz": None}]
        row = bf.ratio_rows(results)[0]
        self.assertAlmostEqual(row["bf16_sm_clock_hz"], 1.9e9)  # median of three rounds
        self.assertIsNone(row["fp8_sm_clock_hz"])  # a round without a clock: none shown

    def test_ratio_is_bf16_time_over_fp8_time_judged_from_32768(self):
        results = {}
        for kv_heads in bf.kKvHeads:
            for seq in bf.kSeqs:
                results[(kv_heads, seq, "auto")] = [
                    {"median_s": 1.0, "dram_bytes": 200.0, "quantization_error": None},
                    {"median_s": 3.0, "dram_bytes": 200.0, "quantization_error": None}]
                fp8_s = 1.0 if seq == 32768 else 1.1  # 2.0 and 1.818...: both met
                if seq == 65536:
                    fp8_s = 1.2  # 1.667: missed
                results[(kv_heads, seq, "fp8_e4m3")] = [
                    {"median_s": fp8_s, "dram_bytes": 101.0,
                     "quantization_error": {"max_abs_difference": 0.01}}]
        rows = bf.ratio_rows(results)
        self.assertEqual(len(rows), len(bf.kKvHeads) * len(bf.kSeqs))
        by_seq = {r["seq_len"]: r for r in rows if r["kv_heads"] == 32}
        self.assertAlmostEqual(by_seq[32768]["ratio"], 2.0)  # median of 1 and 3 s against 1 s
        self.assertTrue(by_seq[32768]["met"])
        self.assertAlmostEqual(by_seq[131072]["ratio"], 2.0 / 1.1)
        self.assertTrue(by_seq[131072]["met"])
        self.assertFalse(by_seq[65536]["met"])
        self.assertIsNone(by_seq[4096]["met"])  # below 32768: shown, not judged
        self.assertAlmostEqual(by_seq[4096]["dram_bytes_ratio"], 0.505)
        self.assertAlmostEqual(by_seq[4096]["fp8_kv_bytes_per_s"],
                               2.0 * 8 * 32 * 4096 * 128 * 1 / 1.1)

    def test_head_dim_reaches_the_sweep_and_the_bytes(self):
        self.assertIn("--head-dim 128", " ".join(bf.sweep_command("rfl", 8, 5, counters=False)))
        cmd = bf.sweep_command("rfl", 8, 5, counters=False, head_dim=256)
        self.assertIn("--head-dim 256", " ".join(cmd))
        self.assertEqual(bf.kv_bytes(8, 4096, "fp8_e4m3", 96), 2.0 * 8 * 8 * 4096 * 96 * 1)
        results = {}
        for kv_heads in bf.kKvHeads:
            for seq in bf.kSeqs:
                for kv_dtype in bf.kKvDtypes:
                    results[(kv_heads, seq, kv_dtype)] = [
                        {"median_s": 1.0, "dram_bytes": None, "quantization_error": None}]
        row = bf.ratio_rows(results, head_dim=96)[0]
        self.assertEqual(row["head_dim"], 96)
        self.assertAlmostEqual(row["bf16_kv_bytes_per_s"], 2.0 * 8 * 32 * 4096 * 96 * 2)
        self.assertAlmostEqual(row["fp8_kv_bytes_per_s"], 2.0 * 8 * 32 * 4096 * 96 * 1)

    def test_head_dim_option_plans_and_refuses(self):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                              "bench_fp8_decode.py")
        done = subprocess.run([sys.executable, script, "--dry-run", "--rooflinectl", "rfl",
                               "--rounds", "1", "--head-dim", "96"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(len(lines), len(bf.kKvHeads))
        self.assertTrue(all("--head-dim 96" in line for line in lines), lines)
        per_shape = subprocess.run([sys.executable, script, "--dry-run", "--rooflinectl", "rfl",
                                    "--rounds", "1", "--per-shape"], capture_output=True, text=True)
        self.assertEqual(per_shape.returncode, 0, per_shape.stderr)
        self.assertEqual(len(per_shape.stdout.splitlines()), len(bf.kKvHeads) * len(bf.kSeqs))
        refused = subprocess.run([sys.executable, script, "--dry-run", "--head-dim", "80"],
                                 capture_output=True, text=True)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("--head-dim", refused.stderr)


if __name__ == "__main__":
    unittest.main()
