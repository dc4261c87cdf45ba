"""The published JSON Schemas hold for the reports rooflinectl writes: the committed H200 sweep
report against docs/report-schema.json and every committed profile report (H200, H100) against
docs/profile-report-schema.json (which takes the device, roof sources, counters and roofline
definitions from report-schema.json), and the schemas refuse what the writers never write.
Needs python3-jsonschema (Debian 12: 4.10; newer releases resolve references through the
`referencing` package). Run: python3 tests/python/test_report_schemas.py"""

import copy
import glob
import json
import os
import unittest
import warnings

import jsonschema

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DOCS = os.path.join(ROOT, "docs")


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


SWEEP_SCHEMA = load(os.path.join(DOCS, "report-schema.json"))
PROFILE_SCHEMA = load(os.path.join(DOCS, "profile-report-schema.json"))


def validator(schema):
    """A draft 2020-12 validator of `schema` that resolves references between the two schemas by
    their $id."""
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    try:
        from referencing import Registry, Resource
    except ImportError:  # jsonschema < 4.18 (Debian 12)
        store = {s["$id"]: s for s in (SWEEP_SCHEMA, PROFILE_SCHEMA)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return cls(schema, resolver=resolver)
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in (SWEEP_SCHEMA, PROFILE_SCHEMA))
    return cls(schema, registry=registry)


def errors(schema, document):
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator(schema).iter_errors(document)]


PROFILES = sorted(glob.glob(os.path.join(DOCS, "examples", "*-profile-*.json")))


class ReportSchemas(unittest.TestCase):
    def test_committed_sweep_report_holds(self):
        report = load(os.path.join(DOCS, "examples", "h200-sweep.json"))
        self.assertEqual(errors(SWEEP_SCHEMA, report), [])

    def test_paged_kv_layout_holds_and_bad_page_sizes_do_not(self):
        report = load(os.path.join(DOCS, "examples", "h200-sweep.json"))
        decode = [p for p in report["points"] if p["op"] == "decode_attention"]
        self.assertTrue(decode)
        for where in (decode[0]["shape"], report["config"]):
            where.update(kv_layout="paged", page_size=64)
        self.assertEqual(errors(SWEEP_SCHEMA, report), [])
        decode[0]["shape"]["page_size"] = 24
        self.assertNotEqual(errors(SWEEP_SCHEMA, report), [])
        decode[0]["shape"].update(kv_layout="contiguous", page_size=16)  # never written
        self.assertNotEqual(errors(SWEEP_SCHEMA, report), [])
        del decode[0]["shape"]["kv_layout"]  # a page size without the layout
        self.assertNotEqual(errors(SWEEP_SCHEMA, report), [])

    def test_fp8_kv_dtype_and_quantization_error_hold_and_bad_values_do_not(self):
        report = load(os.path.join(DOCS, "examples", "h200-sweep.json"))
        decode = [p for p in report["points"] if p["op"] == "decode_attention"]
        self.assertTrue(decode and decode[0]["validation"])
        decode[0]["shape"]["kv_dtype"] = "fp8_e4m3"
        decode[0]["validation"]["quantization_error"] = {
            "reference": "cpu-float64 on the bf16 K, V before quantization",
            "checked_elements": 2048, "max_abs_difference": 0.01, "rms_difference": 0.002,
            "max_abs_reference": 0.4}
        report["config"]["kv_dtype"] = ["auto", "fp8_e4m3"]
        self.assertEqual(errors(SWEEP_SCHEMA, report), [])
        report["config"]["kv_dtype"] = "fp8_e4m3"
        self.assertEqual(errors(SWEEP_SCHEMA, report), [])
        decode[0]["shape"]["kv_dtype"] = "auto"  # never written in a shape
        self.assertNotEqual(errors(SWEEP_SCHEMA, report), [])
        decode[0]["shape"]["kv_dtype"] = "fp8_e4m3"
        report["config"]["kv_dtype"] = "int4"
        self.assertNotEqual(errors(SWEEP_SCHEMA, report), [])
        report["config"]["kv_dtype"] = "auto"
        del decode[0]["validation"]["quantization_error"]["rms_difference"]
        self.assertNotEqual(errors(SWEEP_SCHEMA, report), [])

    def test_query_length_holds_and_bad_values_do_not(self):
        report = load(os.path.join(DOCS, "examples", "h200-sweep.json"))
        flash = [p for p in report["points"] if p["op"] == "flash_attention"]
        self.assertTrue(flash)
        flash[-1]["shape"]["q_len"] = 512
        report["config"]["q_len"] = [512, 0]
        self.assertEqual(errors(SWEEP_SCHEMA, report), [])
        report["config"]["q_len"] = 512
        self.assertEqual(errors(SWEEP_SCHEMA, report), [])
        flash[-1]["shape"]["q_len"] = 0  # L_q = L is never written in a shape
        self.assertNotEqual(errors(SWEEP_SCHEMA, report), [])
        flash[-1]["shape"]["q_len"] = 512
        report["config"]["q_len"] = [512]  # a one-value list is written as the value
        self.assertNotEqual(errors(SWEEP_SCHEMA, report), [])

    def test_committed_profile_reports_hold(self):
        self.assertGreaterEqual(len(PROFILES), 3)
        for path in PROFILES:
            with self.subTest(path=os.path.basename(path)):
                self.assertEqual(errors(PROFILE_SCHEMA, load(path)), [])

    def test_profile_schema_refuses_what_the_writer_never_writes(self):
        report = load(os.path.join(DOCS, "examples", "h200-profile-target.json"))
        unprofiled = next(i for i, l in enumerate(report["launches"]) if not l["profiled"])
        placed = next(i for i, k in enumerate(report["kernels"]) if k["roofline"] is not None)

        def refused(edit, where):
            document = copy.deepcopy(report)
            edit(document)
            found = errors(PROFILE_SCHEMA, document)
            self.assertTrue(found, f"accepted: {where}")

        refused(lambda d: d.update(kind="sweep"), "another kind")
        refused(lambda d: d.update(extra=1), "an unknown top-level key")
        refused(lambda d: d["launches"][unprofiled].pop("not_profiled_reason"),
                "an unprofiled launch without its reason")
        refused(lambda d: d["launches"][0].update(grid=[1, 1]), "a grid of two numbers")
        refused(lambda d: d["kernels"][0].update(share_of_gpu_time=1.5), "a share above 1")
        refused(lambda d: d["kernels"][placed].update(roofline=None),
                "no placement without its reason")
        refused(lambda d: d["launches"][0]["counters"]["total"].update(dram_read_bytes="x"),
                "counters from the sweep schema: a byte count as a string")
        refused(lambda d: d["config"].update(mode="triple"), "a mode that does not exist")

    def test_full_mode_profile_keys_hold_and_a_null_source_needs_its_reason(self):
        report = load(os.path.join(DOCS, "examples", "h200-profile-target.json"))
        report["schema_minor_version"] = 1
        report["flop_run"] = {"exit_code": 0, "signal": None, "wall_time_s": 3.5,
                              "complete": True, "failure": ""}
        report["config"]["mode"] = "full"
        for launch in report["launches"]:
            launch["flop_source"] = None
            launch["flop_null_reason"] = "run 2 made only 0 selected launch(es) in this process"
        report["launches"][0]["flop_source"] = "counted, run 2, kernel replay, 11 passes"
        report["launches"][0].pop("flop_null_reason")
        self.assertEqual(errors(PROFILE_SCHEMA, report), [])
        report["launches"][1].pop("flop_null_reason")
        self.assertNotEqual(errors(PROFILE_SCHEMA, report), [], "a null source without its reason")

    def test_old_profile_reports_without_include_nccl_hold(self):
        report = load(PROFILES[0])
        report["config"].pop("include_nccl")
        self.assertEqual(errors(PROFILE_SCHEMA, report), [])


if __name__ == "__main__":
    unittest.main()
