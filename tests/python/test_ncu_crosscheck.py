"""Checks of scripts/ncu_crosscheck.py that need neither ncu nor a GPU: ncu's CSV is parsed
(thousands separators, the units row, log lines), the timed launch is the last K operator kernels
with the tool's own kernels skipped, and the tolerances decide the verdict as documented.
Run: python3 tests/python/test_ncu_crosscheck.py"""

import os
import sys
import unittest

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
        self.assertIn("no range result", missing["why"])


if __name__ == "__main__":
    unittest.main()
