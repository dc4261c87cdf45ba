"""Checks of scripts/bench_gpu.py that need neither torch nor a GPU: the plan has the benchmark's
shapes (the attention rows at --head-dim too), rows find their points in a rooflinectl report,
ratios and verdicts are computed the documented way, and the JSON writer refuses NaN.
Run: python3 tests/python/test_bench_gpu.py"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))

import bench_gpu as bg  # noqa: E402
import bench_reference  # noqa: E402  (must import without torch)


def fake_report(points):
    return {"tool": {"version": "0.1.0"}, "config": {"warmup_runs": 3}, "points": points}


def fake_point(op, seq, median_s, status="ok", reason=""):
    return {"op": op, "version": f"{op}_v1", "shape": {"seq_len": seq}, "status": status,
            "reason": reason, "timing": None if median_s is None else
            {"median_s": median_s, "samples_s": [median_s] * 3}}


class PlanTest(unittest.TestCase):
    def setUp(self):
        self.sweeps, self.rows = bg.plan(bg.kOperators)
        self.by_key = {s.key: s for s in self.sweeps}

    def test_every_row_is_covered_by_its_sweep(self):
        self.assertEqual(len(self.by_key), len(self.sweeps))
        for row in self.rows:
            sweep = self.by_key[row.sweep_key]
            self.assertIn(row.operator, sweep.ops)
            self.assertIn(row.seq_len, sweep.seqs)

    def test_issue_3_shapes(self):
        flash = [r for r in self.rows if r.operator == "flash_attention"]
        self.assertEqual(len(flash), 12)  # 3 lengths × 2 masks × 2 backends
        for row in flash:
            self.assertEqual(row.shape["batch"] * row.shape["seq_len"], 16384)
            self.assertEqual(row.shape["heads"], 16)
        gemm = [r for r in self.rows if r.sweep_key == "gemm"]
        self.assertEqual([r.shape["m"] for r in gemm], [4096, 8192, 16384, 32768])
        self.assertTrue(all(r.shape["n"] == 8192 and r.shape["k"] == 2048 for r in gemm))
        decode = {(r.shape["kv_heads"], r.seq_len) for r in self.rows
                  if r.operator == "decode_attention"}
        self.assertEqual(decode, {(h, l) for h in (32, 8) for l in (4096, 32768, 131072)})
        layernorm_flags = [s.flags for s in self.sweeps if s.ops == ("layernorm",)]
        heads = sorted(int(f[f.index("--heads") + 1]) for f in layernorm_flags)
        self.assertEqual([h * 128 for h in heads], [1024, 2048, 4096, 8192])

    def test_targets(self):
        layernorm_copy = {r.shape["d_model"]: r.target for r in self.rows
                          if r.operator == "layernorm" and r.reference.kind == "copy"}
        self.assertIsNone(layernorm_copy[1024])
        self.assertEqual(layernorm_copy[2048].min_ratio, 0.9)
        decode_cudnn = [r.target.min_ratio for r in self.rows
                        if r.operator == "decode_attention" and "cudnn" in r.reference.label]
        self.assertEqual(set(decode_cudnn), {0.95})

    def test_causal_flash_flop_is_halved_naive_is_not(self):
        def work(op, causal):
            return next(r.work for r in self.rows if r.operator == op and r.seq_len == 4096
                        and r.shape["causal"] == causal)
        self.assertEqual(work("flash_attention", True) * 2, work("flash_attention", False))
        self.assertEqual(work("naive_attention", True), work("naive_attention", False))

    def test_command_has_the_required_flags(self):
        cmd = self.by_key["decode-hkv8"].command("rooflinectl", 7, 5)
        text = " ".join(cmd)
        for piece in ("--ops decode_attention", "--kv-heads 8", "--heads 32", "--batch 8",
                      "--no-counters", "--format json", "--repetitions 7", "--warmup-runs 5",
                      "--dtype bf16"):
            self.assertIn(piece, text)
        self.assertIn("--causal", self.by_key["attention-L4096-causal"].flags)
        self.assertNotIn("--causal", self.by_key["attention-L4096-non-causal"].flags)

    def test_llama_layer_gemm_shapes(self):
        layer = [r for r in self.rows if r.sweep_key.startswith("gemm-llama-3.1-8b-")]
        self.assertEqual({(r.shape["n"], r.shape["k"]) for r in layer},
                         {(6144, 4096), (4096, 4096), (14336, 4096), (4096, 14336)})
        self.assertEqual(sorted({r.shape["m"] for r in layer}), [1, 16, 64, 512, 4096])
        self.assertEqual(len(layer), 4 * 5)
        self.assertTrue(all(r.operator == "gemm" and r.seq_len == r.shape["m"] for r in layer))
        self.assertTrue(all(r.target.min_ratio == 0.9 for r in layer))
        self.assertEqual({r.shape["phase"] for r in layer if r.shape["m"] <= 64}, {"decode"})
        text = " ".join(self.by_key["gemm-llama-3.1-8b-down"].command("rooflinectl", 5))
        for piece in ("--ops gemm", "--seq 1,16,64,512,4096", "--gemm-n 4096",
                      "--gemm-k 14336", "--batch 1"):
            self.assertIn(piece, text)

    def test_fp8_gemm_rows(self):
        fp8 = [r for r in self.rows if r.sweep_key.startswith("gemm-fp8-")]
        self.assertEqual([(r.shape["m"], r.shape["n"], r.shape["k"]) for r in fp8],
                         [(4096, 14336, 4096), (4096, 4096, 14336), (16384, 8192, 2048)])
        for row in fp8:
            m, n, k = row.shape["m"], row.shape["n"], row.shape["k"]
            self.assertEqual(row.operator, "gemm")
            self.assertEqual(row.seq_len, m)
            self.assertEqual(row.work, 2.0 * m * n * k)
            self.assertEqual(row.reference.kind, "scaled_mm")
            self.assertEqual(dict(row.reference.params), {"m": m, "n": n, "k": k})
            self.assertEqual(row.target.min_ratio, 0.9)
            flags = self.by_key[row.sweep_key].flags
            self.assertEqual(flags[flags.index("--gemm-dtype") + 1], "fp8_e4m3")
            self.assertEqual(flags[flags.index("--gemm-n") + 1], str(n))
            self.assertEqual(flags[flags.index("--gemm-k") + 1], str(k))
        # The FP8 point is found in its sweep's report by operator and M, like a bf16 one.
        run = {"report": fake_report([fake_point("gemm", 4096, 1e-3)]), "error": None}
        self.assertEqual(bg.ours_measurement(run, fp8[0])["median_s"], 1e-3)
        self.assertTrue(hasattr(bench_reference, "time_scaled_mm"))

    def test_attention_rows_at_another_head_dim(self):
        sweeps, rows = bg.plan(("flash_attention", "naive_attention", "gemm"), 256)
        by_key = {s.key: s for s in sweeps}
        attention = [r for r in rows if r.operator in ("flash_attention", "naive_attention")]
        self.assertEqual(len(attention), 18)  # 6 shapes × (SDPA flash, SDPA cuDNN, naive bound)
        for row in attention:
            batch, seq, causal = row.shape["batch"], row.seq_len, row.shape["causal"]
            self.assertEqual(row.shape["head_dim"], 256)
            self.assertIn("d=256", row.label)
            self.assertEqual(row.sweep_key,
                             f"attention-d256-L{seq}-{'causal' if causal else 'non-causal'}")
            flags = by_key[row.sweep_key].flags
            self.assertEqual(flags[flags.index("--head-dim") + 1], "256")
            flop = 4.0 * batch * 16 * seq * seq * 256
            halved = causal and row.operator == "flash_attention"
            self.assertEqual(row.work, flop / 2 if halved else flop)
            if row.reference.kind == "sdpa":
                self.assertEqual(dict(row.reference.params)["head_dim"], 256)
        # The other operators keep head_dim 128 (gemm's d_model = 16 · 128).
        gemm_flags = by_key["gemm"].flags
        self.assertEqual(gemm_flags[gemm_flags.index("--head-dim") + 1], "128")

    def test_decode_rows_at_another_head_dim(self):
        sweeps, rows = bg.plan(("decode_attention",), 96)
        decode = [r for r in rows if r.operator == "decode_attention"]
        self.assertTrue(decode)
        for row in decode:
            self.assertEqual(row.shape["head_dim"], 96)
            self.assertTrue(row.sweep_key.startswith("decode-d96-hkv"), row.sweep_key)
            self.assertEqual(row.work, 2.0 * 8 * row.shape["kv_heads"] * row.seq_len * 96 * 2)
            self.assertEqual(dict(row.reference.params)["head_dim"], 96)
        for sweep in sweeps:
            self.assertEqual(sweep.flags[sweep.flags.index("--head-dim") + 1], "96")
        self.assertEqual([s.key for s in bg.plan(("decode_attention",))[0]][0], "decode-hkv32")

    def test_default_head_dim_keeps_the_sweep_keys(self):
        sweeps, rows = bg.plan(("flash_attention",))
        keys = [s.key for s in sweeps]
        self.assertEqual(keys, [s.key for s in bg.plan(("flash_attention",), 128)[0]])
        self.assertIn("attention-L4096-non-causal", keys)
        self.assertTrue(all(r.shape["head_dim"] == 128 for r in rows))

    def test_subset(self):
        sweeps, rows = bg.plan(("gemm",))
        self.assertEqual([s.key for s in sweeps], ["gemm"])
        self.assertEqual({r.operator for r in rows}, {"gemm"})


class CombineTest(unittest.TestCase):
    def gemm_row(self):
        return next(r for r in bg.plan(("gemm",))[1] if r.seq_len == 4096)

    def test_ours_from_report(self):
        row = self.gemm_row()
        run = {"report": fake_report([fake_point("gemm", 4096, 2e-4)]), "error": None}
        ours = bg.ours_measurement(run, row)
        self.assertEqual(ours["median_s"], 2e-4)
        self.assertEqual(ours["version"], "gemm_v1")
        self.assertIsNone(ours["null_reason"])

    def test_ours_null_with_reason(self):
        row = self.gemm_row()
        skipped = {"report": fake_report([fake_point("gemm", 4096, None, "skipped", "no fit")]),
                   "error": None}
        self.assertIn("no fit", bg.ours_measurement(skipped, row)["null_reason"])
        other = {"report": fake_report([fake_point("gemm", 8192, 1e-3)]), "error": None}
        self.assertIsNone(bg.ours_measurement(other, row)["median_s"])
        failed = {"report": None, "error": "rooflinectl exited 3: no GPU"}
        self.assertEqual(bg.ours_measurement(failed, row)["null_reason"],
                         "rooflinectl exited 3: no GPU")

    def test_ratio_and_verdict(self):
        row = self.gemm_row()  # target ≥ 0.9
        row.ours = {"median_s": 2e-4, "null_reason": None}
        row.ref = {"name": "cuBLAS", "median_s": 1.9e-4, "null_reason": None}
        record = bg.finish_row(row)
        self.assertAlmostEqual(record["ratio"], 0.95)
        self.assertTrue(record["met"])
        self.assertAlmostEqual(record["ours"]["throughput"], 2 * 4096 * 8192 * 2048 / 2e-4 / 1e12)
        self.assertEqual(record["ours"]["unit"], "TFLOP/s")
        row.ref["median_s"] = 1.7e-4
        self.assertFalse(bg.finish_row(row)["met"])
        row.ref = {"name": "cuBLAS", "median_s": None, "null_reason": "not available"}
        record = bg.finish_row(row)
        self.assertIsNone(record["ratio"])
        self.assertIsNone(record["met"])

    def test_no_target_means_no_verdict(self):
        row = next(r for r in bg.plan(("gelu",))[1] if r.target is None)
        row.ours = {"median_s": 1e-4}
        row.ref = {"name": "F.gelu", "median_s": 1e-4}
        record = bg.finish_row(row)
        self.assertAlmostEqual(record["ratio"], 1.0)
        self.assertIsNone(record["met"])
        self.assertEqual(record["ours"]["unit"], "TB/s")

    def test_table_prints_nulls(self):
        row = self.gemm_row()
        row.ours = {"median_s": None, "null_reason": "x"}
        row.ref = {"name": "cuBLAS", "median_s": 1e-4}
        table = bg.format_table([bg.finish_row(row)])
        self.assertIn("null", table)
        self.assertIn("M=4096 N=8192 K=2048", table)


    def test_copy_counts_its_own_bytes(self):
        row = next(r for r in bg.plan(("layernorm",))[1]
                   if r.reference.kind == "copy" and r.shape["d_model"] == 2048)
        row.ours = {"median_s": 1e-4}
        row.ref = {"name": "copy", "median_s": 1e-4}
        record = bg.finish_row(row)
        self.assertEqual(record["reference"]["work"], 2 * 16384 * 2048 * 2)
        self.assertAlmostEqual(record["ratio"], 1 + 1 / 16384)  # γ and β: 2·d·2 more bytes

    def test_rmsnorm_copy_moves_x_and_y_only(self):
        row = next(r for r in bg.plan(("rmsnorm",))[1]
                   if r.reference.kind == "copy" and r.shape["d_model"] == 4096)
        self.assertEqual(row.target.min_ratio, 0.9)
        row.ours = {"median_s": 1e-4}
        row.ref = {"name": "copy", "median_s": 1e-4}
        record = bg.finish_row(row)
        self.assertEqual(record["reference"]["work"], 2 * 16384 * 4096 * 2)
        self.assertAlmostEqual(record["ratio"], 1 + 1 / (2 * 16384))  # γ alone: d·2 more bytes

    def test_gated_rows_move_three_halves_of_a_copy_each_way(self):
        sweeps, rows = bg.plan(("swiglu", "geglu"))
        self.assertEqual([s.key for s in sweeps], ["swiglu", "geglu-erf", "geglu-tanh"])
        self.assertNotIn("--gelu-form", sweeps[0].flags)
        self.assertEqual(sweeps[2].flags[-2:], ("--gelu-form", "tanh"))
        for row in rows:
            m, d_ff = row.shape["rows"], row.shape["d_ff"]
            self.assertEqual(d_ff, 4 * 2048)
            self.assertEqual(row.work, 3 * m * d_ff * 2)  # gate, up read; y written
            params = dict(row.reference.params)
            if row.reference.kind == "copy":
                self.assertEqual(row.target.min_ratio, 0.9)
                # A copy of E elements moves 2·E·2 bytes: the same as the operator.
                self.assertEqual(2 * params["elements"] * 2, row.work)
            else:
                self.assertIsNone(row.target)
                self.assertEqual(params["act"], "silu" if row.operator == "swiglu"
                                 else row.shape["gelu_form"])

    def test_null_reasons_grouped(self):
        rows = [r for r in bg.plan(("gemm",))[1]]
        for row in rows:
            row.ours = {"median_s": None, "null_reason": "rooflinectl exited 3: no GPU"}
            row.ref = {"name": "cuBLAS", "median_s": 1e-4}
        text = bg.format_null_reasons([bg.finish_row(r) for r in rows])
        self.assertEqual(len(text.splitlines()), 1)
        self.assertIn("no GPU", text)
        self.assertIn("M=32768", text)


class OutputTest(unittest.TestCase):
    def test_json_is_written_and_nan_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench.json")
            bg.write_json_atomically(path, {"rows": [{"ratio": None}]})
            with open(path) as f:
                self.assertEqual(json.load(f), {"rows": [{"ratio": None}]})
            with self.assertRaises(ValueError):
                bg.write_json_atomically(path, {"ratio": float("nan")})
            self.assertEqual(os.listdir(tmp), ["bench.json"])  # no temp file left behind

    def test_dry_run_and_bad_arguments(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(bg.main(["--dry-run"]), 0)
        # 15 sweeps and 58 rows of the six operators; gemm_layer 4 sweeps and 20 rows; rmsnorm 4
        # sweeps and 8 rows (4 widths × copy, F.rms_norm), swiglu 1 and 8 (4 lengths × copy,
        # eager), geglu 2 and 16 (both forms); gemm_fp8 3 and 3 (one per FFN shape).
        self.assertIn("29 sweeps, 113 rows", out.getvalue())
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(bg.main(["--dry-run", "--ops", "gemm_fp8"]), 0)
        text = out.getvalue()
        self.assertIn("3 sweeps, 3 rows", text)
        for m, n, k in ((4096, 14336, 4096), (4096, 4096, 14336), (16384, 8192, 2048)):
            self.assertIn(f"sweep --ops gemm --seq {m} --batch 1 --gemm-n {n} --gemm-k {k} "
                          "--gemm-dtype fp8_e4m3 --dtype bf16", text)
            self.assertIn(f"gemm | fp8_e4m3 M={m} N={n} K={k} | vs torch._scaled_mm", text)
        self.assertEqual(text.count("≥ 0.9× cuBLASLt FP8"), 3)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(bg.main(["--dry-run", "--ops", "flash_attention", "--head-dim", "96"]),
                             0)
        self.assertIn("--head-dim 96", out.getvalue())
        self.assertIn("6 sweeps, 12 rows", out.getvalue())
        with contextlib.redirect_stderr(io.StringIO()):
            for bad in ("0", "-8", "100"):
                with self.assertRaises(SystemExit):
                    bg.main(["--dry-run", "--head-dim", bad])
            with self.assertRaises(SystemExit):
                bg.main(["--dry-run", "--ops", "softmax"])
            with self.assertRaises(SystemExit):
                bg.main([])  # --output missing


if __name__ == "__main__":
    unittest.main()
