#!/usr/bin/env bash
# `--model NAME` on the built binary, no GPU needed: `model --model` predicts at the preset's
# shapes (gemm at its FFN width), a flag beats the preset, an unknown preset and a preset the
# sweep's kernels cannot run exit 2 with one error line before any GPU work, and `list` shows
# the presets; `model --max-model-len --kv-lengths` counts the sequences whose KV caches fit, and
# refuses its flags' bad combinations. Usage: test_cli_model_preset.sh BINARY
set -u
bin="$1"
source "$(dirname "$0")/harness.sh"

# refused WANT PATTERN ARGS...: refused_run, and no report file.
refused() {
  refused_run "$@" || return
  if [[ -e "$work/report.json" ]]; then
    fail "rooflinectl ${*:3} -> wrote $work/report.json"
  else
    pass
  fi
}

# model_json NAME PYTHON ARGS...: runs `model --format json ARGS`, parses stdout into `doc` and runs
# the PYTHON assertions.
model_json() {
  local name="$1" code="$2"
  shift 2
  if ! "$bin" model --format json "$@" >"$work/model.json" 2>"$work/stderr"; then
    fail "$name: model $* -> exit $?: $(head -c 300 "$work/stderr")"
    return
  fi
  python_check "$name" "$work/model.json" "pts = {(p['op'], p['seq_len']): p for p in doc['points']}
$code"
}

# ---- the attention memory table is one layer's KV cache, and says so with a preset ----------
# Llama-3.1-8B at L = 32768: 2 x 8 KV heads x 32768 x 128 x 2 bytes = 134 MB per layer.
check 0 "^ *32768 .* 134 MB  *no$" "" model --gpu h100-sxm --model llama-3.1-8b --seq 32768
check 0 "KV/layer = 2\*B\*H_kv\*L\*d\*e (one attention layer's KV cache" "" \
  model --gpu h100-sxm --model llama-3.1-8b --seq 32768
check 0 "the whole llama-3.1-8b's KV cache is its layer count x KV/layer" "" \
  model --gpu h100-sxm --model llama-3.1-8b --seq 32768
# The shape line names the GELU form only where an operator evaluates GELU: GPT-2's gelu_new is
# the tanh form; Llama's SwiGLU reads no GELU form.
check 0 "shape: .* non-causal gelu=tanh" "" model --gpu h100-sxm --model gpt2 --seq 512
if "$bin" model --gpu h100-sxm --model llama-3.1-8b --seq 512 | grep "shape:" | grep -q "gelu="; then
  fail "model --model llama-3.1-8b: the shape line names a GELU form no operator reads"
else
  pass
fi
# The Hugging Face spelling finds the preset; what is printed is the canonical id.
check 0 "the whole llama-3.1-8b's KV cache" "" model --gpu h100-sxm --model Llama-3.1-8B --seq 32768
if "$bin" model --gpu h100-sxm --seq 32768 | grep -q "the whole"; then
  fail "model without --model: names a whole model's KV cache"
else
  pass
fi

# The layer line names what set each width: explicit flags, else the sweep kernels' rule.
check 0 "layer: d_model=4096 ffn_dim=4096 .*(the sweep kernels': d_model = --hidden, ffn_dim = --ffn-dim)" \
  "" model --gpu h100-sxm --ops gemm --hidden 4096 --ffn-dim 4096 --seq 4096
check 0 "layer: d_model=2048 ffn_dim=8192 .*(the sweep kernels': d_model = H\*d, ffn_dim = 4\*d_model)" \
  "" model --gpu h100-sxm --ops gemm --seq 4096
check 0 "layer: d_model=1024 ffn_dim=14336 .*(--model llama-3.1-8b; d_model from --hidden)" "" \
  model --gpu h100-sxm --model llama-3.1-8b --hidden 1024 --seq 4096
check 0 "layer: d_model=4096 ffn_dim=14336 .*(--model llama-3.1-8b)$" "" \
  model --gpu h100-sxm --model llama-3.1-8b --seq 4096

# ---- model --model: the preset's attention axes and widths -----------------------------------
model_json "llama-3.1-8b" '
assert doc["shape"]["heads"] == 32 and doc["shape"]["kv_heads"] == 8, doc["shape"]
assert doc["shape"]["head_dim"] == 128, doc["shape"]
layer = doc["layer"]
assert layer["preset"] == "llama-3.1-8b" and layer["d_model"] == 4096, layer
assert layer["ffn_dim"] == 14336 and layer["ffn_kind"] == "swiglu", layer
assert layer["norm"] == "rmsnorm", layer
assert any("gate projection" in n for n in layer["notes"]), layer["notes"]
# The FFN up projection at B*L = 4096 tokens: 2 * 4096 * 4096 * 14336 FLOP.
assert pts[("gemm", 4096)]["flop"] == 2 * 4096 * 4096 * 14336, pts[("gemm", 4096)]
# The FFN step and norm of the preset in place of gelu and layernorm: SiLU(gate)*up reads 2*N
# and writes N elements; RMSNorm 4 FLOP per element.
ops = [p["op"] for p in doc["points"]]
assert ops == ["naive_attention", "flash_attention", "gemm", "swiglu", "rmsnorm",
               "decode_attention"], ops
assert pts[("swiglu", 4096)]["min_dram_bytes"] == 3 * 4096 * 14336 * 2
assert pts[("rmsnorm", 4096)]["flop"] == 4 * 4096 * 4096
assert not any("gelu row" in n or "layernorm row" in n for n in layer["notes"]), layer["notes"]
' --gpu h200-sxm --model llama-3.1-8b --seq 4096

# --ops still picks the operators; a gelu or layernorm row of a SwiGLU/RMSNorm preset says which
# operator is the model's.
model_json "--ops beats the preset's operators" '
assert [p["op"] for p in doc["points"]] == ["gelu", "layernorm"], doc["points"]
assert pts[("gelu", 4096)]["min_dram_bytes"] == 2 * 4096 * 14336 * 2
assert pts[("layernorm", 4096)]["flop"] == 8 * 4096 * 4096
assert any("as the swiglu operator (--ops swiglu)" in n for n in doc["layer"]["notes"])
' --gpu h200-sxm --model llama-3.1-8b --seq 4096 --ops gelu,layernorm

# Gemma 2: head_dim 256 is predicted, and flash attention runs it (no refusal note names it);
# d_model 3584 is not H*d.
model_json "gemma-2-9b" '
assert doc["shape"]["head_dim"] == 256 and doc["shape"]["gelu_form"] == "tanh", doc["shape"]
notes = doc["layer"]["notes"]
assert not any("sweep cannot run" in n for n in notes), notes
assert any("differs from d_model = 3584" in n for n in notes), notes
assert pts[("flash_attention", 512)]["flop"] == 4 * 16 * 512 * 512 * 256
assert pts[("geglu", 512)]["min_dram_bytes"] == 3 * 512 * 14336 * 2, pts[("geglu", 512)]
assert pts[("rmsnorm", 512)]["flop"] == 4 * 512 * 3584
' --gpu h200-sxm --model gemma-2-9b --seq 512

# Lengths past the context window of the model (GPT-2: 1024 positions) are named in the notes.
model_json "beyond the context window" '
notes = doc["layer"]["notes"]
assert any("serves at most 1024 positions (max_context): L = 2048 is a kernel shape" in n
           for n in notes), notes
' --gpu h200-sxm --model gpt2 --seq 2048

# A flag given explicitly beats the preset; --heads alone means MHA.
model_json "flags beat the preset" '
assert doc["shape"]["heads"] == 32 and doc["shape"]["kv_heads"] == 32, doc["shape"]
assert doc["shape"]["head_dim"] == 64, doc["shape"]
assert doc["layer"]["ffn_dim"] == 14336, doc["layer"]
' --gpu h200-sxm --model llama-3.1-8b --kv-heads 32 --head-dim 64 --seq 512

# Explicit widths beat the preset's too: the rows are computed at them.
model_json "widths beat the preset" '
assert doc["layer"]["d_model"] == 2048 and doc["layer"]["ffn_dim"] == 8192, doc["layer"]
assert pts[("rmsnorm", 512)]["flop"] == 4 * 512 * 2048, pts[("rmsnorm", 512)]
assert pts[("gemm", 512)]["flop"] == 2 * 512 * 8192 * 2048, pts[("gemm", 512)]
' --gpu h200-sxm --model llama-3.1-8b --ops rmsnorm,gemm --hidden 2048 --ffn-dim 8192 --seq 512

# Without --model nothing changes: the sweep kernels' widths.
model_json "no preset" '
assert doc["layer"]["preset"] is None and doc["layer"]["ffn_dim"] == 4 * 2048, doc["layer"]
assert doc["layer"]["notes"] == [], doc["layer"]
' --gpu h200-sxm --seq 512

if "$bin" model --gpu h200-sxm --model llama-3.1-8b --seq 4096 >"$work/table.txt" 2>&1 &&
   grep -qF "layer: d_model=4096 ffn_dim=14336 ffn=swiglu norm=rmsnorm (--model llama-3.1-8b)" "$work/table.txt" &&
   grep -qF "notes:" "$work/table.txt"; then
  pass
else
  fail "model --model llama-3.1-8b table: $(head -c 600 "$work/table.txt")"
fi

# ---- model --max-model-len --kv-lengths: sequences that fit, contiguous vs paged -------------
# H100 SXM (80 GiB): 0.9 x 85899345920 - 16060514304 B of weights = 61248897024 B = 29205 pages
# of 16 x 131072 B; a contiguous sequence reserves 131072 positions (16 GiB): 3 fit.
model_json "kv capacity from the GPU" '
kv = doc["kv_capacity"]
assert kv["budget_source"] == "gpu_memory_minus_weights", kv
assert kv["layers"] == 32 and kv["kv_heads"] == 8 and kv["page_size"] == 16, kv
assert kv["weight_bytes"] == 16060514304 and kv["gpu_memory_utilization"] == 0.9, kv
assert kv["bytes_per_position"] == 131072 and kv["total_pages"] == 29205, kv
rows = {r["seq_len"]: r for r in kv["rows"]}
assert rows[500]["pages_per_sequence"] == 32 and rows[500]["paged_sequences"] == 912, rows
assert rows[500]["contiguous_sequences"] == 3 and rows[33280]["paged_sequences"] == 14, rows
' --gpu h100-sxm --model llama-3.1-8b --ops decode_attention --max-model-len 131072 \
  --kv-lengths 500,4352,33280

# --kv-budget-gib, fp8_e4m3, pages of 128, --layers over the preset's, --kv-heads over it too.
model_json "kv capacity of a given budget" '
kv = doc["kv_capacity"]
assert kv["budget_source"] == "kv_budget_gib" and kv["weight_bytes"] is None, kv
assert kv["budget_bytes"] == 40 * 2**30 and kv["kv_element_bytes"] == 1, kv
assert kv["layers"] == 16 and kv["kv_heads"] == 4 and kv["page_size"] == 128, kv
# 2*16*4*128*1 = 16384 B per position, 2 MiB pages: 20480; 513 positions take 5 pages.
assert kv["total_pages"] == 20480 and kv["rows"][0]["paged_sequences"] == 4096, kv
assert kv["rows"][0]["contiguous_sequences"] == 20, kv
' --gpu h100-sxm --model llama-3.1-8b --ops decode_attention --kv-dtype fp8_e4m3 \
  --kv-layout paged --page-size 128 --layers 16 --kv-heads 4 --kv-budget-gib 40 \
  --max-model-len 131072 --kv-lengths 513

# --gemm-dtype fp8_e4m3: one-byte X and W (M*K + N*K + M*N*2 + 8 bytes), the same 2*M*N*K FLOP,
# and the datasheet's dense fp8 rate as the roof, so the ridge moves from 206 to 412 FLOP/B.
model_json "fp8 gemm bytes, roof and ridge" '
assert doc["shape"]["gemm_dtype"] == "fp8_e4m3", doc["shape"]
p = pts[("gemm", 4096)]
m, n, k = 4096, 14336, 4096
assert p["flop"] == 2 * m * n * k, p
assert p["min_dram_bytes"] == m * k + n * k + m * n * 2 + 8, p
assert p["implemented_dram_bytes"] == p["min_dram_bytes"], p
assert p["roof"]["peak_flop_per_s"] == 1979e12, p["roof"]
assert abs(p["ridge_flop_per_byte"] - 1979e12 / 4.8e12) < 1e-9, p
' --gpu h200-sxm --ops gemm --seq 4096 --gemm-n 14336 --gemm-k 4096 --gemm-dtype fp8_e4m3
model_json "bf16 gemm keeps the bf16 roof" '
assert "gemm_dtype" not in doc["shape"], doc["shape"]
p = pts[("gemm", 4096)]
assert p["min_dram_bytes"] == (4096 * 4096 + 4096 * 14336 + 4096 * 14336) * 2, p
assert p["roof"]["peak_flop_per_s"] == 989.5e12, p["roof"]
assert abs(p["ridge_flop_per_byte"] - 989.5e12 / 4.8e12) < 1e-9, p
' --gpu h200-sxm --ops gemm --seq 4096 --gemm-n 14336 --gemm-k 4096 --gemm-dtype auto

# The table's roof line names the fp8 tensor roof an FP8 GEMM is placed under (it read "tensor
# bf16" with the fp8 rate).
if "$bin" model --gpu h200-sxm --ops gemm --seq 512 --gemm-dtype fp8_e4m3 >"$work/model.txt" \
     2>"$work/stderr" &&
   grep -qE "^  tensor fp8 +1979.0 TFLOP/s, ridge 412.3 FLOP/B" "$work/model.txt" &&
   ! grep -q "tensor bf16" "$work/model.txt"; then
  pass
else
  fail "model --gemm-dtype fp8_e4m3 roof line: $(grep -m2 tensor "$work/model.txt")"
fi

# The table names the budget, the pages and the rows.
if "$bin" model --gpu h100-sxm --model llama-3.1-8b --ops decode_attention --max-model-len 32768 \
     --kv-lengths 500 >"$work/model.txt" 2>"$work/stderr" &&
   grep -qF "61.25 GB = 0.9 x 85.90 GB (h100-sxm) - 16.06 GB of bf16 weights" "$work/model.txt" &&
   grep -qE "^ +500 +32 +14 +912 +65.1x" "$work/model.txt"; then
  pass
else
  fail "model --max-model-len table: $(grep -A8 'KV-cache capacity' "$work/model.txt" | head -c 900)"
fi

refused 2 "--max-model-len needs --kv-lengths" \
  model --gpu h100-sxm --model llama-3.1-8b --max-model-len 4096
refused 2 "give --max-model-len too" model --gpu h100-sxm --model llama-3.1-8b --kv-lengths 500
# A budget past one card's memory is said (a multi-GPU or what-if figure), not refused.
if "$bin" model --gpu h100-sxm --model llama-3.1-8b --ops decode_attention --max-model-len 4096 \
  --kv-lengths 500 --kv-budget-gib 1000 2>&1 | grep -qF "(--kv-budget-gib), more than the 85.90 GB of one h100-sxm"; then
  pass
else
  fail "model --kv-budget-gib 1000 on h100-sxm does not say it exceeds one card"
fi
refused 2 "invalid --max-model-len 1000000: above llama-3.1-8b's context window of 131072 positions" \
  model --gpu h100-sxm --model llama-3.1-8b --ops decode_attention --max-model-len 1000000 \
  --kv-lengths 500
refused 2 "invalid --kv-lengths 5000: a sequence holds 1 .. --max-model-len 4096 positions" \
  model --gpu h100-sxm --model llama-3.1-8b --max-model-len 4096 --kv-lengths 500,5000
refused 2 "invalid --kv-lengths '500,500': length 500 is listed more than once" \
  model --gpu h100-sxm --model llama-3.1-8b --max-model-len 4096 --kv-lengths 500,500
refused 2 "--kv-budget-gib and --gpu-memory-utilization both set the KV-cache budget" \
  model --gpu h100-sxm --model llama-3.1-8b --max-model-len 4096 --kv-lengths 500 \
  --kv-budget-gib 10 --gpu-memory-utilization 0.5
refused 2 "needs a layer count: give --model or --layers" \
  model --gpu h100-sxm --max-model-len 4096 --kv-lengths 500 --kv-budget-gib 10
refused 2 "needs a budget: give --kv-budget-gib" \
  model --gpu h100-sxm --layers 32 --max-model-len 4096 --kv-lengths 500
refused 2 "no memory left for the KV cache: 0.1 x 25.77 GB" \
  model --gpu l4 --model llama-3.1-8b --ops decode_attention --gpu-memory-utilization 0.1 \
  --max-model-len 4096 --kv-lengths 500
refused 2 "--gpu-memory-utilization: '1.5' is out of range (allowed: above 0 up to 1)" \
  model --gpu h100-sxm --model llama-3.1-8b --max-model-len 4096 --kv-lengths 500 \
  --gpu-memory-utilization 1.5
refused 2 "--kv-budget-gib: '0' is out of range" \
  model --gpu h100-sxm --model llama-3.1-8b --max-model-len 4096 --kv-lengths 500 \
  --kv-budget-gib 0
refused 2 "invalid --max-model-len 0: allowed 1..2^30" \
  model --gpu h100-sxm --model llama-3.1-8b --max-model-len 0 --kv-lengths 500

# ---- refusals: one error line, exit 2, before any GPU work -----------------------------------
refused 2 "unknown model preset 'llama-4' (--model): known gpt2, gpt2-xl, llama-3.1-8b" \
  model --gpu h200-sxm --model llama-4
refused 2 "gemma-2-9b" model --gpu h200-sxm --model llama-4
refused 2 "unknown model preset 'llama-4'" sweep --model llama-4 --output "$work/report.json"
# A value a flag gave keeps the kernel's own message (not blamed on the preset).
refused 2 "flash_attention: unsupported head-dim 80 (supported: 64, 96, 128, 256)" \
  sweep --model llama-3.1-8b --head-dim 80 --ops flash_attention
refused 2 "invalid batch 0 (--batch)" sweep --model llama-3.1-8b --batch 0

# ---- a runnable preset reaches the GPU check (exit 3 without one, one line) -----------------
if ! command -v nvidia-smi >/dev/null 2>&1; then
  refused 3 "no CUDA GPU" sweep --model llama-3.1-8b --seq 512 --ops gelu
  refused 3 "no CUDA GPU" sweep --model gemma-2-9b --head-dim 128 --seq 512 --ops flash_attention
  # flash, naive and decode attention run the presets' own head_dim 256 and 96: the whole
  # default sweep of each preset plans.
  refused 3 "no CUDA GPU" sweep --model gemma-2-9b --seq 512
  refused 3 "no CUDA GPU" sweep --model phi-3-mini-4k --seq 512
fi

# ---- list shows the presets -------------------------------------------------------------------
if "$bin" list >"$work/list.txt" 2>&1 &&
   grep -qE "^  gemma-2-9b +Gemma 2 9B: d_model 3584, H 16, H_kv 8, d 256, ffn 14336 geglu \(tanh GELU\), rmsnorm, 42 layers" "$work/list.txt"; then
  pass
else
  fail "list does not show gemma-2-9b: $(grep -A9 'model presets' "$work/list.txt" | head -c 800)"
fi

finish cli_model_preset
