#!/usr/bin/env python3
"""A bf16 transformer block forward in PyTorch, for `rooflinectl profile` to measure.

Pre-norm GPT-style block (LayerNorm, QKV projection, scaled dot-product attention through
F.scaled_dot_product_attention, output projection, LayerNorm, GELU MLP with 4x expansion),
run --iterations times inside NVTX ranges ("block/attention", "block/mlp") after one warm-up
forward outside them. Prints the shapes and the analytic FLOPs of each matmul, so a profile can
be checked against 2*M*N*K.

    rooflinectl profile -o block.json -- python3 examples/profile/transformer_block.py
"""
import argparse

import torch
import torch.nn.functional as F


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--d-model", type=int, default=2048)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--iterations", type=int, default=8)
    return p.parse_args()


def main():
    a = parse_args()
    torch.manual_seed(0)
    dev, dt = "cuda", torch.bfloat16
    d, h, tokens = a.d_model, a.heads, a.batch * a.seq
    w_qkv = torch.randn(3 * d, d, device=dev, dtype=dt) * d**-0.5
    w_out = torch.randn(d, d, device=dev, dtype=dt) * d**-0.5
    w_up = torch.randn(4 * d, d, device=dev, dtype=dt) * d**-0.5
    w_down = torch.randn(d, 4 * d, device=dev, dtype=dt) * (4 * d) ** -0.5
    ln1 = torch.nn.LayerNorm(d, device=dev, dtype=dt)
    ln2 = torch.nn.LayerNorm(d, device=dev, dtype=dt)
    x = torch.randn(a.batch, a.seq, d, device=dev, dtype=dt)

    def forward(x, nvtx):
        if nvtx:
            torch.cuda.nvtx.range_push("block")
            torch.cuda.nvtx.range_push("attention")
        qkv = F.linear(ln1(x), w_qkv)
        q, k, v = qkv.view(a.batch, a.seq, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + F.linear(att.transpose(1, 2).reshape(a.batch, a.seq, d), w_out)
        if nvtx:
            torch.cuda.nvtx.range_pop()
            torch.cuda.nvtx.range_push("mlp")
        x = x + F.linear(F.gelu(F.linear(ln2(x), w_up)), w_down)
        if nvtx:
            torch.cuda.nvtx.range_pop()
            torch.cuda.nvtx.range_pop()
        return x

    with torch.no_grad():
        forward(x, nvtx=False)
        torch.cuda.synchronize()
        for _ in range(a.iterations):
            y = forward(x, nvtx=True)
        torch.cuda.synchronize()
    for name, n, k in [("qkv", 3 * d, d), ("out", d, d), ("up", 4 * d, d), ("down", d, 4 * d)]:
        print(f"matmul {name}: M={tokens} N={n} K={k} 2MNK={2 * tokens * n * k:.4e} FLOP")
    print(f"output checksum {y.float().abs().mean().item():.6f}")


if __name__ == "__main__":
    main()
