"""PyTorch side of the issue-3 benchmark: times the vendor references at rooflinectl's shapes.

Timed the way rooflinectl times its own kernels (src/measure/timing.cpp, l2_flush.cu), so that the
two medians compare like for like:
  * `warmup_runs` untimed calls first (rooflinectl's default is 3);
  * before every sample the L2 is flushed by writing a buffer of 2 x L2 bytes (zero_, a memset)
    and then reading it back (a sum), which leaves L2 cold and without dirty lines, exactly as
    rooflinectl's memset + read sweep does;
  * one pair of CUDA events around each call on the current stream, one synchronize at the end;
  * the median of the samples.
Python enqueues a call far more slowly than C++ does, so the GPU could sit idle between the start
event and the kernel, which would count host time as kernel time. A `torch.cuda._sleep` spin
kernel is queued ahead of the samples so that the host has enqueued them all before the GPU
reaches the first one.

torch is imported inside the functions, so this module imports (and `--dry-run` runs) without it.
Shapes and layouts follow src/core/shape.hpp: Q, O [B, H, L, d]; K, V [B, H_kv, L, d]; GEMM
X [M, K] · W [K, N] row-major; GELU [M, N]; LayerNorm [M, d_model] with weight and bias; RMSNorm
[M, d_model] with weight; SwiGLU, GeGLU input [M, 2·d_ff] (gate first), output [M, d_ff].
"""

from __future__ import annotations

import statistics
import warnings
from dataclasses import dataclass, field
from typing import Callable, Optional

# ~20 ms at 1.98 GHz: longer than the host needs to enqueue a few dozen samples of one reference.
kSpinCycles = 40_000_000
kLayerNormEpsilon = 1e-5  # kernels/layernorm.cu and PyTorch's default
kRmsNormEpsilon = 1e-5  # kernels/rmsnorm.hpp (Llama 3.1's rms_norm_eps)
kSeed = 3


@dataclass
class RefTiming:
    """One reference measurement: median of `samples_s` (seconds), or None with the reason."""

    name: str
    median_s: Optional[float] = None
    samples_s: list = field(default_factory=list)
    null_reason: Optional[str] = None
    note: str = ""  # how the reference was called (backend, GQA method, ...)


class Timer:
    """CUDA-event timing with the L2 flushed before each sample (see the module docstring)."""

    def __init__(self, repetitions: int, warmup_runs: int):
        import torch

        if repetitions < 1 or warmup_runs < 0:
            raise ValueError(f"repetitions {repetitions} must be >= 1, warm-up {warmup_runs} >= 0")
        self.torch = torch
        self.repetitions = repetitions
        self.warmup_runs = warmup_runs
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.l2_bytes = int(props.L2_cache_size)
        if self.l2_bytes <= 0:
            raise RuntimeError("the device reports no L2 size; cannot size the L2 flush buffer")
        self.flush_buffer = torch.empty(2 * self.l2_bytes // 4, dtype=torch.int32, device="cuda")
        self.spin = getattr(torch.cuda, "_sleep", None)
        torch.manual_seed(kSeed)

    def flush_policy(self) -> str:
        return (f"zero_ (memset) then sum (read) of a {self.flush_buffer.numel() * 4 / 2**20:.0f} MiB "
                "buffer (2 x L2) before every sample: L2 cold, without dirty lines")

    def flush(self) -> None:
        self.flush_buffer.zero_()
        self.flush_buffer.sum()

    def time(self, fn: Callable[[], object]) -> list:
        """Runs fn warmup_runs times, then returns one sample (seconds) per repetition."""
        torch = self.torch
        for _ in range(self.warmup_runs):
            fn()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(self.repetitions)]
        stops = [torch.cuda.Event(enable_timing=True) for _ in range(self.repetitions)]
        torch.cuda.synchronize()
        if self.spin is not None:
            self.spin(kSpinCycles)
        for start, stop in zip(starts, stops):
            self.flush()
            start.record()
            fn()
            stop.record()
        torch.cuda.synchronize()
        return [start.elapsed_time(stop) * 1e-3 for start, stop in zip(starts, stops)]


def _measure(timer: Timer, name: str, note: str, fn: Callable[[], object]) -> RefTiming:
    """Checks that fn runs (collecting the warnings PyTorch gives when it refuses a backend), then
    times it. A reference that cannot run yields median None and the reason."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            timer.torch.cuda.synchronize()
        except RuntimeError as error:
            reasons = [str(w.message).strip() for w in caught]
            reason = "; ".join(reasons + [str(error).strip().splitlines()[0]])
            return RefTiming(name=name, null_reason=f"not available: {reason}", note=note)
    samples = timer.time(fn)
    return RefTiming(name=name, median_s=statistics.median(samples), samples_s=samples, note=note)


def _backend(torch, backend: str):
    from torch.nn.attention import SDPBackend

    return {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]


def time_sdpa(timer: Timer, backend: str, batch: int, heads: int, kv_heads: int, q_len: int,
              kv_len: int, head_dim: int, causal: bool) -> RefTiming:
    """F.scaled_dot_product_attention restricted to one backend ("flash" | "cudnn"), bf16.

    GQA (kv_heads < heads): enable_gqa=True first, so the kernel reads only the real K/V; if the
    backend refuses that, K/V are repeated to `heads` heads before timing (the kernel then reads
    heads/kv_heads times the real K/V bytes, which the caller still counts once) and the note says
    so. is_causal is top-left aligned in PyTorch and bottom-right in rooflinectl: the same mask
    when q_len == kv_len, and decode (q_len 1) is never causal here.
    """
    torch = timer.torch
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel

    if causal and q_len != kv_len:
        raise ValueError("causal SDPA reference only for q_len == kv_len (mask alignments differ)")
    name = f"sdpa-{backend}"
    q = torch.randn(batch, heads, q_len, head_dim, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(batch, kv_heads, kv_len, head_dim, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)
    with sdpa_kernel([_backend(torch, backend)]):
        if kv_heads == heads:
            return _measure(timer, name, f"F.scaled_dot_product_attention, {backend} backend",
                            lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
        result = _measure(
            timer, name, f"F.scaled_dot_product_attention, {backend} backend, enable_gqa=True",
            lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True))
        if result.median_s is not None:
            return result
        group = heads // kv_heads
        k_rep = k.repeat_interleave(group, dim=1)
        v_rep = v.repeat_interleave(group, dim=1)
        repeated = _measure(
            timer, name,
            f"F.scaled_dot_product_attention, {backend} backend, K/V repeated to {heads} heads "
            f"before timing (enable_gqa refused: {result.null_reason}); reads {group}x the real "
            "K/V bytes",
            lambda: F.scaled_dot_product_attention(q, k_rep, v_rep, is_causal=causal))
        del k_rep, v_rep
        return repeated


def time_matmul(timer: Timer, m: int, n: int, k: int) -> RefTiming:
    """torch.matmul(X[M, K], W[K, N], out=C) in bf16, which PyTorch runs through cuBLAS (cuBLASLt);
    bf16 reduced-precision reductions are switched off so that cuBLAS accumulates in fp32 like
    our kernel."""
    torch = timer.torch
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    return _measure(timer, "cublas",
                    "torch.matmul (cuBLAS/cuBLASLt), bf16 in/out, fp32 accumulation "
                    "(allow_bf16_reduced_precision_reduction = False)",
                    lambda: torch.matmul(x, w, out=c))


def time_scaled_mm(timer: Timer, m: int, n: int, k: int) -> RefTiming:
    """torch._scaled_mm(A[M, K], B[N, K].t(), scale_a, scale_b, out_dtype=bf16): E4M3 inputs with
    one fp32 scale per tensor, fp32 accumulation, bf16 out, which PyTorch runs through cuBLASLt's
    FP8 GEMM (B column-major, as cuBLASLt FP8 requires: the same K-major W as ours)."""
    torch = timer.torch
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        return RefTiming(name="scaled_mm", note="torch._scaled_mm", median_s=None,
                         null_reason=f"torch {torch.__version__} has no float8_e4m3fn/_scaled_mm")
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
    scale_a = torch.ones((), device="cuda", dtype=torch.float32)
    scale_b = torch.ones((), device="cuda", dtype=torch.float32)
    return _measure(timer, "scaled_mm",
                    "torch._scaled_mm (cuBLASLt FP8), E4M3 A[M, K] and B[N, K].t(), per-tensor fp32 "
                    "scales, fp32 accumulation, bf16 out",
                    lambda: torch._scaled_mm(a, b.t(), scale_a=scale_a, scale_b=scale_b,
                                             out_dtype=torch.bfloat16))


def time_gelu(timer: Timer, rows: int, cols: int, form: str) -> RefTiming:
    """F.gelu on [rows, cols] bf16; form "erf" → approximate='none', "tanh" → approximate='tanh'."""
    torch = timer.torch
    import torch.nn.functional as F

    approximate = {"erf": "none", "tanh": "tanh"}[form]
    x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
    return _measure(timer, "torch-gelu", f"F.gelu(approximate='{approximate}')",
                    lambda: F.gelu(x, approximate=approximate))


def time_layer_norm(timer: Timer, rows: int, d_model: int) -> RefTiming:
    """F.layer_norm over the last dim of [rows, d_model] bf16 with bf16 weight and bias, eps 1e-5."""
    torch = timer.torch
    import torch.nn.functional as F

    x = torch.randn(rows, d_model, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(d_model, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(d_model, device="cuda", dtype=torch.bfloat16)
    return _measure(timer, "torch-layer_norm", "F.layer_norm with weight and bias, eps 1e-5",
                    lambda: F.layer_norm(x, (d_model,), w, b, kLayerNormEpsilon))


def time_rms_norm(timer: Timer, rows: int, d_model: int) -> RefTiming:
    """F.rms_norm over the last dim of [rows, d_model] bf16 with a bf16 weight, eps 1e-5 (PyTorch
    2.4 and later; null with the reason on an older torch)."""
    torch = timer.torch
    import torch.nn.functional as F

    if not hasattr(F, "rms_norm"):
        return RefTiming(name="torch-rms_norm",
                         null_reason=f"torch {torch.__version__} has no F.rms_norm (2.4+)")
    x = torch.randn(rows, d_model, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(d_model, device="cuda", dtype=torch.bfloat16)
    return _measure(timer, "torch-rms_norm", "F.rms_norm with weight, eps 1e-5",
                    lambda: F.rms_norm(x, (d_model,), w, kRmsNormEpsilon))


def time_gated(timer: Timer, rows: int, d_ff: int, act: str) -> RefTiming:
    """act(x[:, :d_ff]) * x[:, d_ff:] on x [rows, 2·d_ff] bf16, eager PyTorch (the activation and
    the product are two kernels; PyTorch has no fused gated op): act "silu" → F.silu, "erf" →
    F.gelu(approximate='none'), "tanh" → F.gelu(approximate='tanh')."""
    torch = timer.torch
    import torch.nn.functional as F

    x = torch.randn(rows, 2 * d_ff, device="cuda", dtype=torch.bfloat16)
    gate, up = x[:, :d_ff], x[:, d_ff:]
    if act == "silu":
        return _measure(timer, "torch-silu-mul", "F.silu(x[:, :d]) * x[:, d:] (eager)",
                        lambda: F.silu(gate) * up)
    approximate = {"erf": "none", "tanh": "tanh"}[act]
    return _measure(timer, "torch-gelu-mul",
                    f"F.gelu(x[:, :d], approximate='{approximate}') * x[:, d:] (eager)",
                    lambda: F.gelu(gate, approximate=approximate) * up)


def time_copy(timer: Timer, elements: int) -> RefTiming:
    """Device-to-device copy y.copy_(x) of `elements` bf16 values (bytes moved: read + written)."""
    torch = timer.torch
    x = torch.empty(elements, device="cuda", dtype=torch.bfloat16).fill_(1.0)
    y = torch.empty_like(x)
    return _measure(timer, "copy", "y.copy_(x), bf16, device to device", lambda: y.copy_(x))


def environment() -> dict:
    """Versions and the device the references ran on."""
    import torch

    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "device": props.name,
        "l2_bytes": int(props.L2_cache_size),
    }


def release_memory() -> None:
    """Returns cached blocks to the driver between references with large tensors."""
    import torch

    torch.cuda.empty_cache()
