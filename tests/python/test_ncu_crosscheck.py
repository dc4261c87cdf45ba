"""Checks of scripts/ncu_crosscheck.py that need neither ncu nor a GPU: ncu's CSV is parsed
(thousands separators, the units row, log lines), the timed launch is the last K operator kernels
with the tool's own kernels skipped, the tolerances decide the verdict as documented, and with
--repeats the medians are compared and ncu's own spread is reported.
Run: python3 tests/python/test_ncu_crosscheck.py"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))

import ncu_crosscheck as nc  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Kernel Name","dram__bytes_read.sum",'
          '"dram__bytes_write.sum","lts__t_bytes.sum","sm__ops_path_tensor_src_bf16_dst_fp32.sum"')
UNITS = '"","","","","byte","byte","byte",""'


def csv_text(rows):
    lines = ["==PROF== Connected to process 1234", HEADER, UNITS]
    for i, (name, read, write, tensor) in enumerate(rows):
        lines.append(f'"{i}","1234","rooflinectl","{name}","{read}","{write}","1,000","{tensor}"')
    lines.append("==PROF== Disconnected from process 1234")
    return "\n".join(lines)


def point(kernels, read, write, writeback, tensor):
    return {"op": "gemm", "shape": {"seq_len": 512}, "status": "ok",
            "analytic": {"min_dram_bytes": 4.0e7},
            "counters": {"kernels": [{}] * kernels, "dram_writeback_bytes": writeback,
                         "total": {"dram_read_bytes": read, "dram_write_bytes": write,
                                   "l2_write_bytes": 8e6, "tensor_bf16_flop": tensor}}}


class ParseTest(unittest.TestCase):
    def test_numbers_with_separators_units_row_and_log_lines(self):
        rows = nc.parse_ncu_csv(csv_text([("gemm_kernel", "35,680,000", "80,000", "17,179,869,184")]))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["name"], "gemm_kernel")
        self.assertEqual(rows[0]["dram__bytes_read.sum"], 35680000.0)
        self.assertEqual(rows[0]["sm__ops_path_tensor_src_bf16_dst_fp32.sum"], 17179869184.0)
        self.assertEqual(rows[0]["lts__t_bytes.sum"], 1000.0)

    def test_no_table_is_no_rows(self):
        self.assertEqual(nc.parse_ncu_csv("==PROF== ERROR: no kernels were profiled"), [])

    def test_na_is_none(self):
        rows = nc.parse_ncu_csv(csv_text([("k", "n/a", "0", "0")]))
        self.assertIsNone(rows[0]["dram__bytes_read.sum"])


class TimedLaunchTest(unittest.TestCase):
    def test_last_operator_kernels_skipping_the_tools_own(self):
        kernels = [{"name": n} for n in ("fill_uniform_kernel", "qk", "softmax", "pv",
                                         "read_sweep_kernel", "qk", "softmax", "pv",
                                         "clock_probe_kernel")]
        launch = nc.timed_launch(kernels, 3)
        self.assertEqual([k["name"] for k in launch], ["qk", "softmax", "pv"])
        self.assertIs(launch[0], kernels[5])

    def test_too_few_kernels_is_none(self):
        self.assertIsNone(nc.timed_launch([{"name": "qk"}], 3))


class VerdictTest(unittest.TestCase):
    def ncu(self, read, write, tensor):
        return nc.parse_ncu_csv(csv_text([("gemm_kernel", str(read), str(write), str(tensor))]))

    def test_within_tolerances(self):
        r = nc.row_for(point(1, 35.6e6, 0.3e6, 8.4e6, 1.7e10), self.ncu(35.68e6, 0.08e6, 1.7e10))
        self.assertTrue(r["ok"], r["why"])  # read 0.2% off, write 0.22 MB off (under 0.5 MB)
        self.assertAlmostEqual(r["total"], 44.3e6)

    def test_read_off_by_more_than_one_percent(self):
        r = nc.row_for(point(1, 36.5e6, 0.1e6, 8.4e6, 1.7e10), self.ncu(35.68e6, 0.08e6, 1.7e10))
        self.assertFalse(r["ok"])
        self.assertEqual(r["why"], "read")

    def test_large_write_needs_two_percent(self):
        r = nc.row_for(point(1, 1e8, 104e6, 0, 1.7e10), self.ncu(1e8, 100e6, 1.7e10))
        self.assertEqual(r["why"], "write")  # 4 MB off: above both 2% (2 MB) and 0.5 MB

    def test_tensor_flops_must_be_exact(self):
        r = nc.row_for(point(1, 1e8, 1e6, 0, 1.7e10 + 1), self.ncu(1e8, 1e6, 1.7e10))
        self.assertEqual(r["why"], "tensor")

    def test_missing_launch_fails_with_the_reason(self):
        r = nc.row_for(point(1, 1e8, 1e6, 0, 1.0), [])
        self.assertFalse(r["ok"])
        self.assertIn("fewer than 1", r["why"])

    def test_several_kernels_compare_as_one_range(self):
        # naive attention's three kernels against ncu's one range-replay result
        r = nc.row_for(point(3, 1e8, 1e6, 0, 1.0), self.ncu(1e8, 1e6, 1.0))
        self.assertTrue(r["ok"], r["why"])
        self.assertTrue(nc.uses_range_replay(point(3, 1, 1, 0, 1)))
        self.assertFalse(nc.uses_range_replay(point(1, 1, 1, 0, 1)))
        self.assertEqual(nc.nvtx_range(point(3, 1, 1, 0, 1)), "gemm L=512")
        missing = nc.row_for(point(3, 1e8, 1e6, 0, 1.0), [])
        self.assertFalse(missing["ok"])
        self.assertIn("fewer than 1 range results", missing["why"])


class RepeatsTest(unittest.TestCase):
    def ncu_launches(self, launches):
        """ncu rows of several timed launches of a one-kernel operator, flushes between."""
        rows = []
        for read, write, tensor in launches:
            rows += [("read_sweep_kernel", "1", "0", "0"), ("gemm_kernel", str(read), str(write),
                                                            str(tensor))]
        return nc.parse_ncu_csv(csv_text(rows))

    def test_last_launches_grouped_oldest_first(self):
        kernels = [{"name": n} for n in ("qk", "pv", "read_sweep_kernel", "qk", "pv", "qk",
                                         "pv")]
        launches = nc.timed_launches(kernels, 2, 2)
        self.assertEqual(len(launches), 2)
        self.assertIs(launches[0][0], kernels[3])
        self.assertIs(launches[1][1], kernels[6])
        self.assertIsNone(nc.timed_launches(kernels, 2, 4))

    def test_medians_are_compared_and_spreads_reported(self):
        runs = [point(1, r, 1e6, 0, 1.7e10) for r in (100e6, 101e6, 99e6)]
        launches = self.ncu_launches([(100.5e6, 1e6, 1.7e10), (99e6, 1e6, 1.7e10),
                                      (104e6, 1.2e6, 1.7e10)])
        r = nc.row_for(runs, launches, 3)
        self.assertEqual(r["read"], 100e6)
        self.assertEqual(r["read_spread"], 2e6)
        self.assertEqual(r["ncu_read"], 100.5e6)
        self.assertEqual(r["ncu_read_spread"], 5e6)
        self.assertAlmostEqual(r["ncu_write_spread"], 0.2e6)
        self.assertTrue(r["ok"], r["why"])

    def test_miss_explained_by_ncus_own_spread(self):
        # ours 3% below ncu's median, but ncu's lowest launch is 2.5% below it
        runs = [point(1, 97e6, 1e6, 0, 1.0)]
        r = nc.row_for(runs, self.ncu_launches([(97.5e6, 1e6, 1.0), (100e6, 1e6, 1.0),
                                                (101e6, 1e6, 1.0)]), 3)
        self.assertFalse(r["ok"])
        self.assertEqual(r["why"], "read")
        self.assertTrue(r["ok_spread"])
        narrow = nc.row_for(runs, self.ncu_launches([(99.5e6, 1e6, 1.0), (100e6, 1e6, 1.0),
                                                     (101e6, 1e6, 1.0)]), 3)
        self.assertFalse(narrow["ok_spread"])  # 97 < 99.5 - 1%

    def test_tensor_flops_differing_between_runs_fail(self):
        runs = [point(1, 1e8, 1e6, 0, 1.0), point(1, 1e8, 1e6, 0, 2.0)]
        r = nc.row_for(runs, self.ncu_launches([(1e8, 1e6, 1.0), (1e8, 1e6, 1.0)]), 2)
        self.assertIsNone(r["tensor"])
        self.assertFalse(r["ok"])
        self.assertFalse(r["ok_spread"])

    def test_too_few_launches_fail_with_the_count(self):
        r = nc.row_for([point(1, 1e8, 1e6, 0, 1.0)], self.ncu_launches([(1e8, 1e6, 1.0)]), 2)
        self.assertFalse(r["ok"])
        self.assertIn("fewer than 2 operator kernels", r["why"])

    def test_saved_run_rebuilds_the_table(self):
        with tempfile.TemporaryDirectory() as work:
            for i, read in enumerate((35.6e6, 35.7e6), start=1):
                with open(os.path.join(work, f"ours-{i}.json"), "w") as f:
                    json.dump({"points": [point(1, read, 0.1e6, 8.4e6, 1.7e10)]}, f)
            with open(os.path.join(work, "crosscheck.json"), "w") as f:
                json.dump({"repeats": 2}, f)
            with open(os.path.join(work, "ncu-gemm-512.csv"), "w") as f:
                f.write(csv_text([("gemm_kernel", "35,680,000", "80,000", "17,000,000,000"),
                                  ("gemm_kernel", "35,640,000", "90,000", "17,000,000,000")]))
            rows, notes = nc.rows_from(work)
        self.assertEqual(notes, [])
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0]["runs"], 2)
        self.assertAlmostEqual(rows[0]["read"], 35.65e6)
        self.assertAlmostEqual(rows[0]["ncu_read"], 35.66e6)
        text = nc.table(rows)
        self.assertIn("ncu read spread", text)
        self.assertIn("medians of 2 runs of ours and 2 ncu launches", text)
        self.assertIn("1/1 points within tolerance of the range ncu itself spans", text)

    def test_ranged_operator_reads_one_ncu_file_per_launch(self):
        ranged = point(3, 1e8, 1e6, 0, 2.0)
        ranged["op"] = "naive_attention"
        with tempfile.TemporaryDirectory() as work:
            with open(os.path.join(work, "ours-1.json"), "w") as f:
                json.dump({"points": [ranged]}, f)
            with open(os.path.join(work, "crosscheck.json"), "w") as f:
                json.dump({"repeats": 2}, f)
            self.assertEqual([os.path.basename(p) for p in nc.ncu_files(work, ranged, 2)],
                             ["ncu-naive_attention-512.csv", "ncu-naive_attention-512-r2.csv"])
            for name, read in (("ncu-naive_attention-512.csv", "100,000,000"),
                               ("ncu-naive_attention-512-r2.csv", "102,000,000")):
                with open(os.path.join(work, name), "w") as f:
                    f.write(csv_text([("range", read, "1,000,000", "2")]))
            rows, _ = nc.rows_from(work)
        self.assertEqual(rows[0]["ncu_read"], 101e6)
        self.assertEqual(rows[0]["ncu_read_spread"], 2e6)
        self.assertTrue(rows[0]["ok"], rows[0]["why"])

    def test_point_outside_is_compared_from_our_l2_state(self):
        # gelu near the L2 size: ncu's emptied L2 (all) writes 3 MB more in the window than
        # ours; started from the state our flush leaves (none) it writes what we do
        gelu = point(1, 33.56e6, 9.25e6, 24.4e6, 0.0)
        gelu["op"] = "gelu"
        with tempfile.TemporaryDirectory() as work:
            save_run(work, 1, [[gelu, point(1, 35.6e6, 0.1e6, 8.4e6, 1.7e10)]])
            self.assertEqual(os.path.basename(nc.ncu_file(work, gelu, "none")),
                             "ncu-none-gelu-512.csv")
            logs = {"ncu-gelu-512.csv": ("gelu_kernel", "33,560,000", "12,190,000", "0"),
                    "ncu-none-gelu-512.csv": ("gelu_kernel", "33,560,000", "9,040,000", "0"),
                    "ncu-gemm-512.csv": ("gemm_kernel", "35,680,000", "80,000",
                                         "17,000,000,000"),
                    # a point within the tolerances is not compared again
                    "ncu-none-gemm-512.csv": ("gemm_kernel", "1", "1", "17,000,000,000")}
            for name, row in logs.items():
                with open(os.path.join(work, name), "w") as f:
                    f.write(csv_text([row]))
            rows, _ = nc.rows_from(work)
        self.assertFalse(rows[0]["ok"])
        self.assertEqual(rows[0]["why"], "write")
        self.assertTrue(rows[0]["same_state"]["ok"])
        self.assertTrue(rows[1]["ok"])
        self.assertNotIn("same_state", rows[1])
        text = nc.table(rows)
        self.assertIn("from our L2 state (ncu --cache-control none)", text)
        self.assertIn("| yes (1.0000, +0.21) | NO: write |", text)
        self.assertIn("1 of the 1 points outside the tolerances are within them", text)

    def test_same_state_miss_says_what_and_by_how_much(self):
        r = nc.row_for(point(1, 36.5e6, 0.1e6, 8.4e6, 1.7e10), self.ncu_launches(
            [(35.68e6, 0.08e6, 1.7e10)]))
        self.assertEqual(nc.fmt_same_state(r), "NO: read (1.0230, +0.02)")
        self.assertEqual(nc.fmt_same_state(None), "")

    def test_without_same_state_logs_no_column(self):
        r = nc.row_for(point(1, 36.5e6, 0.1e6, 8.4e6, 1.7e10), self.ncu_launches(
            [(35.68e6, 0.08e6, 1.7e10)]))
        self.assertNotIn("cache-control none", nc.table([r]))

    def test_single_run_table_has_no_spread_columns(self):
        r = nc.row_for(point(1, 35.6e6, 0.3e6, 8.4e6, 1.7e10),
                       self.ncu_launches([(35.68e6, 0.08e6, 1.7e10)]))
        self.assertNotIn("spread", nc.table([r]))

    def test_repeats_must_be_positive(self):
        self.assertEqual(nc.positive_int("3"), 3)
        with self.assertRaises(Exception):
            nc.positive_int("0")


def save_run(work, repeats, reports):
    """A saved run in `work`: crosscheck.json and ours-1.json ... from `reports` (point lists)."""
    with open(os.path.join(work, "crosscheck.json"), "w") as f:
        json.dump({"repeats": repeats}, f)
    for i, points in enumerate(reports, start=1):
        with open(os.path.join(work, f"ours-{i}.json"), "w") as f:
            json.dump({"points": points}, f)


def run_main(*argv):
    """nc.main() with `argv`: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old = sys.argv
    sys.argv = ["ncu_crosscheck.py", *argv]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = nc.main()
            except SystemExit as e:  # argparse's own refusals
                code = e.code
    finally:
        sys.argv = old
    return code, out.getvalue(), err.getvalue()


class SavedRunTest(unittest.TestCase):
    def test_point_missing_from_a_run_is_noted(self):
        gelu = point(1, 1e8, 1e6, 0, 1.0)
        gelu["op"] = "gelu"
        failed = dict(point(1, 1e8, 1e6, 0, 1.0), status="failed")
        with tempfile.TemporaryDirectory() as work:
            save_run(work, 3, [[failed], [point(1, 1e8, 1e6, 0, 1.0), gelu],
                               [point(1, 1e8, 1e6, 0, 1.0)]])
            with open(os.path.join(work, "ours-latest.json"), "w") as f:
                f.write("not a report")  # not ours-N.json: ignored
            rows, notes = nc.rows_from(work)
        self.assertEqual([(r["op"], r["runs"]) for r in rows], [("gemm", 2), ("gelu", 1)])
        self.assertEqual(notes, ["gemm L = 512: ok in 2 of our 3 runs, its medians are of 2",
                                 "gelu L = 512: ok in 1 of our 3 runs, its medians are of 1"])

    def test_fewer_reports_than_repeats_is_noted(self):
        with tempfile.TemporaryDirectory() as work:
            save_run(work, 3, [[point(1, 1e8, 1e6, 0, 1.0)]])
            _, notes = nc.rows_from(work)
        self.assertEqual(notes, ["1 of our reports for 3 repeats: our medians are of 1 runs"])

    def test_bad_folders_are_one_error_line_exit_2(self):
        with tempfile.TemporaryDirectory() as work:
            empty = os.path.join(work, "empty")
            os.mkdir(empty)
            no_ours = os.path.join(work, "no-ours")
            os.mkdir(no_ours)
            save_run(no_ours, 1, [])
            bad_repeats = os.path.join(work, "bad-repeats")
            os.mkdir(bad_repeats)
            save_run(bad_repeats, 0, [[point(1, 1e8, 1e6, 0, 1.0)]])
            cases = {os.path.join(work, "missing"): "is not a folder",
                     os.path.join(no_ours, "crosscheck.json"): "is not a folder",
                     empty: "does not give the run's repeats",
                     no_ours: "holds no ours-1.json",
                     bad_repeats: "repeats 0 is not a count of at least 1"}
            for folder, why in cases.items():
                code, out, err = run_main("--parse-only", folder)
                self.assertEqual(code, 2, folder)
                self.assertEqual(out, "")
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertTrue(err.startswith("error: ") and why in err, err)

    def test_output_folder_and_repeats_with_parse_only_refused(self):
        with tempfile.TemporaryDirectory() as work:
            save_run(work, 1, [[point(1, 1e8, 1e6, 0, 1.0)]])
            code, _, err = run_main("--parse-only", work, "--output",
                                    os.path.join(work, "no", "x.md"))
            self.assertEqual(code, 2)
            self.assertIn("its folder does not exist", err)
            code, _, err = run_main("--parse-only", work, "--repeats", "3")
            self.assertEqual(code, 2)
            self.assertIn("--repeats with --parse-only", err)
            code, out, err = run_main("--parse-only", work, "--output",
                                      os.path.join(work, "table.md"))
            self.assertEqual(code, 1)  # no ncu log: the point is not within tolerance
            self.assertIn("0/1 points within tolerance", out)
            with open(os.path.join(work, "table.md")) as f:
                self.assertEqual(f.read(), out)

    def test_gpu_run_without_ncu_is_exit_3(self):
        with tempfile.TemporaryDirectory() as work:
            code, out, err = run_main("--ncu", os.path.join(work, "no-ncu"), "--work", work)
        self.assertEqual(code, 3)
        self.assertEqual(out, "")
        self.assertIn("needs Nsight Compute's ncu", err)

    def test_refused_sweep_stops_with_its_error_line(self):
        with tempfile.TemporaryDirectory() as work:
            fake = os.path.join(work, "rooflinectl")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho 'error: no CUDA GPU found: install the driver' >&2\n"
                        "exit 3\n")
            os.chmod(fake, 0o755)
            code, out, err = run_main("--binary", fake, "--ncu", sys.executable, "--work",
                                      os.path.join(work, "run"))
        self.assertEqual(code, 3)
        self.assertEqual(out, "")
        self.assertEqual(err.splitlines()[1:], ["error: our sweep was refused (exit 3): no CUDA "
                                                "GPU found: install the driver"])  # after "+ cmd"

    def test_run_measures_only_the_points_outside_again_without_ncus_flush(self):
        gelu = point(1, 33.56e6, 9.25e6, 24.4e6, 0.0)
        gelu["op"] = "gelu"
        report = {"points": [gelu, point(1, 35.6e6, 0.1e6, 8.4e6, 1.7e10)]}
        with tempfile.TemporaryDirectory() as work:
            sweep, ncu, calls = fake_tools(work, report)
            code, out, err = run_main("--binary", sweep, "--ncu", ncu, "--work",
                                      os.path.join(work, "run"))
            with open(calls) as f:
                made = f.read().splitlines()
        self.assertEqual([" ".join(m.split()[:2]) for m in made],
                         ["all gelu", "all gemm", "none gelu"], err)
        self.assertEqual(code, 1)  # gelu stays outside the tolerances under `all`
        self.assertIn("| yes (1.0000, +0.21) | NO: write |", out)

    def test_a_range_from_our_l2_state_runs_under_application_range_replay(self):
        naive = point(3, 6.32e6, 0.0, 18.97e6, 1.0e9)
        naive["op"] = "naive_attention"
        with tempfile.TemporaryDirectory() as work:
            sweep, ncu, calls = fake_tools(work, {"points": [naive]})
            code, _, err = run_main("--binary", sweep, "--ncu", ncu, "--work",
                                    os.path.join(work, "run"))
            with open(calls) as f:
                made = f.read().splitlines()
        self.assertEqual(code, 1)  # one logged kernel for three: outside the tolerances
        self.assertEqual(made, ["all naive_attention 512 range",
                                "none naive_attention 512 app-range"], err)

    def test_resume_measures_only_what_a_cut_run_left_missing(self):
        report = two_gemm_lengths()
        with tempfile.TemporaryDirectory() as work:
            sweep, ncu, calls = fake_tools(work, report)
            run_dir = os.path.join(work, "run")
            args = ("--binary", sweep, "--ncu", ncu, "--work", run_dir, "--seq", "512,1024")
            self.assertEqual(run_main(*args)[0], 0)
            # As if cut short while ncu ran L = 1024: its log not yet renamed from .part.
            os.replace(os.path.join(run_dir, "ncu-gemm-1024.csv"),
                       os.path.join(run_dir, "ncu-gemm-1024.csv.part"))
            os.remove(calls)
            code, out, err = run_main(*args, "--resume")
            with open(calls) as f:
                self.assertEqual(f.read().splitlines(), ["all gemm 1024 kernel"], err)
            self.assertEqual(code, 0)
            self.assertIn("2/2 points within tolerance", out)
            code, _, err = run_main(*args[:-2], "--seq", "512", "--resume")
            self.assertEqual(code, 2)
            self.assertIn("is of a run with --seq 512,1024, not --seq 512: give the same", err)
            code, _, err = run_main(*args)  # a new run starts over
            with open(calls) as f:
                self.assertEqual(len(f.read().splitlines()), 3)
            self.assertFalse(any(n.endswith(".part") for n in os.listdir(run_dir)))

    def test_ours_per_point_runs_one_process_per_point_and_joins_them(self):
        report = two_gemm_lengths()
        with tempfile.TemporaryDirectory() as work:
            sweep, ncu, _ = fake_tools(work, report)
            calls = os.path.join(work, "sweep-calls")
            run_dir = os.path.join(work, "run")
            with mock.patch.dict(os.environ, FAKE_SWEEP_CALLS=calls):
                code, out, err = run_main("--binary", sweep, "--ncu", ncu, "--work", run_dir,
                                          "--ops", "gemm", "--seq", "512,1024", "--repeats",
                                          "2", "--ours-per-point")
            with open(calls) as f:
                made = f.read().splitlines()
            with open(os.path.join(run_dir, "ours-2.json")) as f:
                joined = [p["shape"]["seq_len"] for p in json.load(f)["points"]]
        self.assertEqual(made, ["gemm 512,1024 no-counters"] +
                         ["gemm 512 counters", "gemm 1024 counters"] * 2, err)
        self.assertEqual(joined, [512, 1024])
        self.assertEqual(code, 1)  # the fake ncu logs one launch of the two --repeats 2 needs
        self.assertIn("0/2 points within tolerance", out)


class ResumeEdgeTest(unittest.TestCase):
    """What a run cut short, or one that goes wrong, leaves for --resume."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = self.tmp.name
        self.sweep, self.ncu, self.calls = fake_tools(self.work, two_gemm_lengths())
        self.run_dir = os.path.join(self.work, "run")
        self.args = ("--binary", self.sweep, "--ncu", self.ncu, "--work", self.run_dir, "--ops",
                     "gemm", "--seq", "512,1024")

    def tearDown(self):
        self.tmp.cleanup()

    def saved(self, name):
        return os.path.join(self.run_dir, name)

    def test_an_interrupted_report_is_run_again(self):
        self.assertEqual(run_main(*self.args)[0], 0)
        with open(self.saved("ours-1.json")) as f:
            report = json.load(f)
        report["points"][1]["status"] = "interrupted"
        with open(self.saved("ours-1.json"), "w") as f:
            json.dump(report, f)
        calls = os.path.join(self.work, "sweep-calls")
        with mock.patch.dict(os.environ, FAKE_SWEEP_CALLS=calls):
            code, out, _ = run_main(*self.args, "--resume")
        with open(os.path.join(self.work, "sweep-calls")) as f:
            self.assertEqual(f.read().splitlines(), ["gemm 512,1024 counters"])
        self.assertEqual(code, 0)
        self.assertIn("2/2 points within tolerance", out)

    def test_a_stale_part_is_never_taken_for_a_log(self):
        self.assertEqual(run_main(*self.args)[0], 0)
        os.replace(self.saved("ncu-gemm-1024.csv"), self.saved("ncu-gemm-1024.csv.part"))
        with open(self.saved("ncu-gemm-1024.csv.part"), "w") as f:
            f.write('"ID","Process ID"')  # what a killed ncu can leave
        with mock.patch.dict(os.environ, FAKE_NCU_SILENT="1"):
            code, out, _ = run_main(*self.args, "--resume")
        self.assertFalse(os.path.exists(self.saved("ncu-gemm-1024.csv")))
        self.assertFalse(os.path.exists(self.saved("ncu-gemm-1024.csv.part")))
        self.assertEqual(code, 1)
        self.assertIn("1/2 points within tolerance", out)

    def test_a_sweep_without_a_report_is_one_error_line(self):
        for exit_code in ("1", "130", "139"):
            with mock.patch.dict(os.environ, FAKE_SWEEP_EXIT=exit_code):
                code, out, err = run_main(*self.args)
            self.assertEqual(code, 3)
            self.assertEqual(out, "")
            self.assertEqual(err.splitlines()[1:], [
                f"error: our sweep exited {exit_code} without writing "
                f"'{self.saved('ours-1.json')}': run the cross-check again (--resume keeps what "
                "is done)"])

    def test_resume_without_a_saved_run_starts_a_new_one(self):
        os.makedirs(self.run_dir)
        kept = ("ours-h100-baseline.json", "notes.md")
        for name in ("ours-5.json", "ncu-gemm-512.csv") + kept:
            with open(self.saved(name), "w") as f:
                f.write("{}")
        code, _, err = run_main(*self.args, "--resume")
        self.assertEqual(code, 0, err)
        self.assertIn("nothing to resume", err)
        self.assertFalse(os.path.exists(self.saved("ours-5.json")))
        self.assertTrue(all(os.path.exists(self.saved(name)) for name in kept))

    def test_a_missing_binary_deletes_nothing(self):
        self.assertEqual(run_main(*self.args)[0], 0)
        before = sorted(os.listdir(self.run_dir))
        code, _, err = run_main(*self.args[:1], os.path.join(self.work, "no-such"),
                                *self.args[2:])
        self.assertEqual(code, 2)
        self.assertIn("not an executable file", err)
        self.assertEqual(sorted(os.listdir(self.run_dir)), before)

    def test_gpu_run_options_and_an_empty_folder_name_with_parse_only(self):
        for option in ("--resume", "--ours-per-point"):
            code, _, err = run_main("--parse-only", self.work, option)
            self.assertEqual(code, 2)
            self.assertIn(f"{option} with --parse-only", err)
        code, _, err = run_main("--parse-only", "")
        self.assertEqual(code, 2)
        self.assertIn("is not a folder of a saved cross-check run", err)


def two_gemm_lengths():
    """A report of two gemm points, L = 512 and 1024, with the same counters."""
    report = {"points": [point(1, 35.6e6, 0.1e6, 8.4e6, 1.7e10)]}
    report["points"].append(dict(report["points"][0], shape={"seq_len": 1024}))
    return report


def fake_tools(work, report):
    """FAKE_SWEEP (giving `report`) and FAKE_NCU written into `work` as rooflinectl and ncu;
    returns their paths and the file where the fake ncu notes its calls."""
    sweep, ncu, calls = (os.path.join(work, n) for n in ("rooflinectl", "ncu", "calls"))
    with open(sweep, "w") as f:
        f.write(FAKE_SWEEP.replace("REPORT", repr(json.dumps(report))))
    with open(ncu, "w") as f:
        f.write(FAKE_NCU.replace("CALLS", repr(calls)).replace("HEADER", repr(HEADER)))
    for path in (sweep, ncu):
        os.chmod(path, 0o755)
    return sweep, ncu, calls


# A stand-in for `rooflinectl sweep`: writes REPORT to the file after --output, only the points
# of a single --seq L when given one, and notes "<ops> <seq> <counters or not>" in CALLS when
# CALLS is set.
FAKE_SWEEP = f"""#!{sys.executable}
import json, os, sys
def value(key):
    return sys.argv[sys.argv.index(key) + 1]
if os.environ.get("FAKE_SWEEP_EXIT"):
    sys.exit(int(os.environ["FAKE_SWEEP_EXIT"]))
report = json.loads(REPORT)
if value("--seq").isdigit():
    report["points"] = [p for p in report["points"]
                        if p["shape"]["seq_len"] == int(value("--seq"))]
calls = os.environ.get("FAKE_SWEEP_CALLS")
if calls:
    with open(calls, "a") as f:
        counted = "no-counters" if "--no-counters" in sys.argv else "counters"
        f.write(" ".join((value("--ops"), value("--seq"), counted)) + "\\n")
with open(value("--output"), "w") as f:
    json.dump(report, f)
"""

# A stand-in for ncu: notes "<cache control> <op>" in CALLS and logs one kernel; gelu writes
# 3 MB more in its window under `all` than under `none`, as on the H100.
FAKE_NCU = f"""#!{sys.executable}
import os, sys
def value(key):
    return sys.argv[sys.argv.index(key) + 1]
mode, op, seq = value("--cache-control"), value("--ops"), value("--seq")
replay = value("--replay-mode") if "--replay-mode" in sys.argv else "kernel"
with open(CALLS, "a") as f:
    f.write(" ".join((mode, op, seq, replay)) + "\\n")
if os.environ.get("FAKE_NCU_SILENT"):
    sys.exit(1)
write = {{("all", "gelu"): "12,190,000", ("none", "gelu"): "9,040,000"}}.get((mode, op), "80,000")
read, tensor = ("33,560,000", "0") if op == "gelu" else ("35,680,000", "17,000,000,000")
with open(value("--log-file"), "w") as f:
    fields = ("0", "1", "r", "k", read, write, "1", tensor)
    f.write(HEADER + "\\n" + ",".join(f'"{{v}}"' for v in fields))
"""

if __name__ == "__main__":
    unittest.main()
