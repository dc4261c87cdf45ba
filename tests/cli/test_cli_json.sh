#!/usr/bin/env bash
# `list --json` and `doctor --json` on the built binary: each prints one JSON document with the
# same content as its text output, and keeps the text output's exit code. Runs with or without a
# GPU: without one, doctor's JSON must still describe the failure and exit 3.
# Usage: test_cli_json.sh BINARY
set -u
bin="$1"
source "$(dirname "$0")/harness.sh"

# json_check NAME FILE PYTHON: python_check with sys.argv[1] = $work.
json_check() {
  python_check "$1" "$2" "$3" "$work"
}

# ---- list --json: the same operators, axes and counters as `list` ---------------------------
"$bin" list >"$work/list.txt" 2>"$work/stderr" || fail "list -> exit $?: $(head -c 300 "$work/stderr")"
"$bin" list --json >"$work/list.json" 2>"$work/stderr"
code=$?
if [[ $code -ne 0 ]]; then
  fail "list --json -> exit $code: $(head -c 300 "$work/stderr")"
else
  json_check "list --json keys" "$work/list.json" '
assert list(doc) == ["operators", "axes", "counters", "model_presets", "gpu_specs"], list(doc)
gpus = {g["id"]: g for g in doc["gpu_specs"]}
assert gpus["h200-sxm"]["compute_capability"] == "9.0" and gpus["h200-sxm"]["sm_count"] == 132, gpus
assert gpus["h200-sxm"]["hbm_bytes_per_s"] == 4.8e12 and "l40s" in gpus, gpus
# Every figure names its source, as the text table and the model report do; bytes are integers.
for g in doc["gpu_specs"]:
    assert isinstance(g["memory_bytes"], int), g
    assert g["l2_bytes"] is None or isinstance(g["l2_bytes"], int), g
    named = ["sm_count", "memory_bytes", "hbm_bytes_per_s"]
    named += ["dense_tensor_flop_per_s." + d for d, v in g["dense_tensor_flop_per_s"].items() if v]
    named += [k for k in ("l2_bytes", "boost_clock_hz", "fp32_flop_per_s") if g[k] is not None]
    assert sorted(g["sources"]) == sorted(named), (g["id"], g["sources"], named)
    assert all(g["sources"].values()), g["sources"]
assert "datasheet" in gpus["h200-sxm"]["sources"]["hbm_bytes_per_s"], gpus["h200-sxm"]["sources"]
presets = {p["id"]: p for p in doc["model_presets"]}
assert presets["llama-3.1-8b"]["ffn_dim"] == 14336 and presets["llama-3.1-8b"]["kv_heads"] == 8, presets
assert presets["gemma-2-9b"]["head_dim"] == 256 and presets["gemma-2-9b"]["gelu_form"] == "tanh", presets
assert presets["llama-3.1-8b"]["gelu_form"] is None, presets["llama-3.1-8b"]
for p in doc["model_presets"]:
    assert p["sources"] and all(p["sources"].values()), p
for op in doc["operators"]:
    assert list(op) == ["name", "pipe", "pipe_rule", "summary", "default_version", "versions"], op
    assert op["pipe"] in ("tensor", "fp32"), op
    assert op["pipe_rule"] is None or "tensor" in op["pipe_rule"], op
    keys = [v["key"] for v in op["versions"]]
    assert op["default_version"] in keys, op
    for v in op["versions"]:
        assert list(v) == ["key", "name", "needs", "fallback"], v
        assert v["name"].startswith(op["name"] + "_" + v["key"] + "_"), v
        assert v["needs"], v
        assert v["fallback"] is None or v["fallback"] in keys, v
ops = {o["name"]: o for o in doc["operators"]}
assert [o["name"] for o in doc["operators"] if o["pipe_rule"]] == ["decode_attention"], ops
assert ops["decode_attention"]["pipe"] == "fp32" and "GQA" in ops["decode_attention"]["pipe_rule"], ops
assert [v["key"] for v in ops["gemm"]["versions"]] == ["v1", "v2", "v3", "v4", "v6", "v7", "v8", "fp8"], ops["gemm"]
assert ops["gemm"]["default_version"] == "v6", ops["gemm"]
assert [v["key"] for v in ops["flash_attention"]["versions"]] == ["v2", "v3"], ops
assert ops["flash_attention"]["default_version"] == "v3", ops["flash_attention"]
for axis in doc["axes"]:
    assert {"flag", "config_key", "default"} <= set(axis), axis
axes = {a["flag"]: a for a in doc["axes"]}
assert axes["--batch"]["default"] == 1 and axes["--repetitions"]["default"] == 10, axes
assert axes["--causal"]["default"] is False, axes["--causal"]
assert axes["--dtype"]["allowed"] == ["bf16", "fp16"], axes["--dtype"]
assert axes["--gemm-dtype"]["config_key"] == "gemm_dtype", axes["--gemm-dtype"]
assert axes["--gemm-dtype"]["default"] == "auto", axes["--gemm-dtype"]
assert axes["--gemm-dtype"]["allowed"] == ["auto", "fp8_e4m3"], axes["--gemm-dtype"]
for flag, key in (("--gemm-n", "gemm_n"), ("--gemm-k", "gemm_k"), ("--hidden", "hidden"),
                  ("--ffn-dim", "ffn_dim")):
    assert axes[flag]["config_key"] == key and axes[flag]["default"] == 0, axes[flag]
assert doc["counters"]["metrics"], doc["counters"]'
  # Parity with the text: every operator, axis flag and metric, in the same order.
  json_check "list --json matches list" "$work/list.json" '
text = open(sys.argv[1] + "/list.txt").read().split("\n")
listed = text[1:text.index("axes (defaults):")]
assert text[0].startswith("operators"), text[0]
ops = [l for l in listed if not l.startswith("    ")]
versions = [l.split() for l in listed if l.startswith("    ")]
axes = text[text.index("axes (defaults):") + 1:[i for i, l in enumerate(text) if l.startswith("counters")][0]]
presets_at = [i for i, l in enumerate(text) if l.startswith("model presets")][0]
metrics = [l.strip() for l in text[[i for i, l in enumerate(text) if l.startswith("counters")][0] + 1:presets_at] if l]
gpus_at = [i for i, l in enumerate(text) if l.startswith("GPU specs")][0]
presets = [l.split()[0] for l in text[presets_at + 1:gpus_at] if l]
assert presets == [p["id"] for p in doc["model_presets"]], presets
gpus = [l.split()[0] for l in text[gpus_at + 1:] if l]
assert gpus == [g["id"] for g in doc["gpu_specs"]], gpus
assert [l.split()[0] for l in ops] == [o["name"] for o in doc["operators"]], ops
assert [l.split()[1] for l in ops] == [o["pipe"] for o in doc["operators"]], ops
want = [(v["key"], v["name"], v["key"] == o["default_version"])
        for o in doc["operators"] for v in o["versions"]]
got = [(f[0], f[2] if f[1] == "(default)" else f[1], f[1] == "(default)") for f in versions]
assert got == want, (got, want)
assert [l.split()[0] for l in axes] == [a["flag"] for a in doc["axes"]], axes
assert metrics == doc["counters"]["metrics"], metrics
for line, axis in zip(axes, doc["axes"]):
    value = axis["default"]
    shown = ("on" if value else "off") if isinstance(value, bool) else str(value)
    assert line.split()[1] == shown, (line, axis)'
fi

# ---- doctor --json: the same verdict and exit code as `doctor` --------------------------------
"$bin" doctor >"$work/doctor.txt" 2>"$work/stderr"
text_code=$?
"$bin" doctor --json >"$work/doctor.json" 2>"$work/stderr"
json_code=$?
if [[ $json_code -ne $text_code ]]; then
  fail "doctor --json -> exit $json_code, doctor -> exit $text_code: $(head -c 300 "$work/stderr")"
elif [[ $json_code -ne 0 && $json_code -ne 3 ]]; then
  fail "doctor --json -> exit $json_code (want 0 or 3): $(head -c 300 "$work/stderr")"
else
  pass
  json_check "doctor --json keys" "$work/doctor.json" "
assert list(doc) == ['versions', 'host', 'visible_devices', 'devices', 'verdict'], list(doc)
assert {'rooflinectl', 'cuda_driver', 'cuda_runtime', 'cupti'} <= set(doc['versions'])
assert {'profiling_admin_only', 'euid_root', 'cap_sys_admin'} <= set(doc['host'])
verdict = doc['verdict']
assert verdict['exit_code'] == $json_code, verdict
assert verdict['ready'] == ($json_code == 0), verdict
for device in doc['devices']:
    assert {'index', 'name', 'counters_readable', 'counters_reason'} <= set(device), device
text = open(sys.argv[1] + '/doctor.txt').read()
assert 'verdict:       ' + verdict['text'] + '\n' in text, (verdict, text[-200:])
assert len(doc['devices']) == text.count('\ndevice '), doc['devices']
if doc['visible_devices'] == 0:
    assert doc['devices'] == [] and 'nvidia-smi' in verdict['hint'], doc
    assert verdict['text'] == 'cannot sweep: no CUDA GPU', verdict"
fi
# Bad input stays bad input with --json: exit 2, nothing on stdout.
"$bin" doctor --json --device=-1 >"$work/stdout" 2>"$work/stderr"
code=$?
if [[ $code -eq 2 && ! -s "$work/stdout" ]] && grep -q -- "--device -1" "$work/stderr"; then
  pass
else
  fail "doctor --json --device=-1 -> exit $code: $(head -c 300 "$work/stderr")"
fi

finish cli_json
