#!/usr/bin/env python3
"""Two Triton kernels for `rooflinectl profile` to measure: an fp32 vector add and a bf16 matmul.

The add streams its operands once (reads 2·N·4 bytes, writes N·4), so it should be memory-bound
near the DRAM roof; the matmul (tl.dot, fp32 accumulation) does 2·M·N·K tensor FLOPs, so it
should be compute-bound. Each result is checked against PyTorch before the timed launches, which
run --iterations times inside NVTX ranges ("triton/add", "triton/matmul"). Prints the analytic
bytes and FLOPs, so a profile can be checked against them.

    rooflinectl profile -o triton.json -- python3 examples/profile/triton_kernels.py
"""
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, m, n, k, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    inner = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k0 + inner)[None, :] * stride_ak)
        b = tl.load(b_ptr + (k0 + inner)[:, None] * stride_bk + cols[None, :] * stride_bn)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(tl.bfloat16))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--elements", type=int, default=64 * 1024 * 1024, help="vector add length")
    p.add_argument("--size", type=int, default=4096, help="M = N = K of the matmul (multiple of 128)")
    p.add_argument("--iterations", type=int, default=3)
    return p.parse_args()


def main():
    a = parse_args()
    if a.size % 128:
        raise SystemExit(f"error: --size {a.size}: must be a multiple of 128 (the matmul's tile)")
    torch.manual_seed(0)
    x = torch.randn(a.elements, device="cuda", dtype=torch.float32)
    y = torch.randn_like(x)
    out = torch.empty_like(x)
    s = a.size
    ma = torch.randn(s, s, device="cuda", dtype=torch.bfloat16)
    mb = torch.randn(s, s, device="cuda", dtype=torch.bfloat16)
    mc = torch.empty(s, s, device="cuda", dtype=torch.bfloat16)

    def add():
        add_kernel[(triton.cdiv(a.elements, 4096),)](x, y, out, a.elements, BLOCK=4096)

    def matmul():
        matmul_kernel[(s // 128, s // 128)](ma, mb, mc, s, s, s, ma.stride(0), ma.stride(1),
                                            mb.stride(0), mb.stride(1), mc.stride(0),
                                            mc.stride(1), BLOCK_M=128, BLOCK_N=128, BLOCK_K=64,
                                            num_warps=8, num_stages=3)

    add()
    matmul()
    torch.testing.assert_close(out, x + y)
    torch.testing.assert_close(mc.float(), ma.float() @ mb.float(), rtol=2e-2, atol=0.5)
    torch.cuda.synchronize()
    for _ in range(a.iterations):
        torch.cuda.nvtx.range_push("triton")
        torch.cuda.nvtx.range_push("add")
        add()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_push("matmul")
        matmul()
        torch.cuda.nvtx.range_pop()
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    print(f"add: N={a.elements} reads {2 * 4 * a.elements / 2**20:.1f} MiB, "
          f"writes {4 * a.elements / 2**20:.1f} MiB")
    print(f"matmul: M=N=K={s} 2MNK={2 * s**3:.4e} FLOP; validated against torch")


if __name__ == "__main__":
    main()
