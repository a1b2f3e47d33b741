#!/usr/bin/env python3
"""Time the kernels of an LLM step on the local GPU: attention as LLMs run
it and the GEMMs of their projections, BF16 and FP8.

    llm_kernels.py attention --out attention-llm.csv [--reps N] [--dry-run]
    llm_kernels.py gemm --out gemm-llm.csv [--reps N] [--dry-run]

attention: torch.nn.functional.scaled_dot_product_attention with grouped
query heads (32 query and 8 key/value heads, enable_gqa), head size 128 and
64, BF16: causal prefill of one sequence of 512 to 16384 tokens, forward and
forward + backward, and decoding (one query token per sequence) over a KV
cache of 512 to 32768 tokens at batch 1 to 64. One row per shape: the query
and key/value heads and lengths, the median of --reps timed runs between CUDA
events and the p10 and p90.

gemm: the projections of Llama-3-8B (hidden 4096, 32 heads of 128, 8 key/value
heads, MLP 14336, vocabulary 128256) at 1 to 8192 tokens, in BF16 (torch.mm)
and, where the GPU has FP8, in e4m3 with per-tensor scales as
torch._scaled_mm runs them (BF16 out). One row per shape and dtype.

--dry-run prints the shapes and measures nothing (no PyTorch import). Rows
are written as they are measured, so a run that is stopped keeps them.
"""

import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HEADS, KV_HEADS = 32, 8
# (N, K) of Llama-3-8B's GEMMs: q, k+v, o, gate+up, down, the LM head.
LLAMA_NK = ((4096, 4096), (2048, 4096), (4096, 4096), (28672, 4096), (4096, 14336),
            (128256, 4096))
TOKENS = (1, 16, 128, 1024, 4096, 8192)


def attention_shapes():
    """(pass, batch, q_len, kv_len, head_dim, causal) to time."""
    for d in (128, 64):
        for s in (512, 1024, 2048, 4096, 8192, 16384):
            for p in ("fwd", "fwd+bwd"):
                yield p, 1, s, s, d, True
        for kv in (512, 2048, 8192, 32768):
            for b in (1, 8, 64):
                if b * kv <= 64 * 8192:
                    yield "fwd", b, 1, kv, d, False


def gemm_shapes():
    """(dtype, m, n, k) to time."""
    for dtype in ("bf16", "e4m3"):
        for n, k in LLAMA_NK:
            for m in TOKENS:
                yield dtype, m, n, k


def time_attention(torch, reps):
    import torch.nn.functional as F
    dt = torch.bfloat16
    for p, b, s, kv, d, causal in attention_shapes():
        grad = p != "fwd"
        q = torch.randn(b, HEADS, s, d, device="cuda", dtype=dt, requires_grad=grad)
        k, v = (torch.randn(b, KV_HEADS, kv, d, device="cuda", dtype=dt,
                            requires_grad=grad) for _ in range(2))
        go = torch.randn(b, HEADS, s, d, device="cuda", dtype=dt)

        def run():
            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
            if grad:
                o.backward(go)

        yield ["bf16", p, b, HEADS, KV_HEADS, s, kv, d, int(causal)], run


def time_gemm(torch, reps):
    fp8 = hasattr(torch, "float8_e4m3fn") and torch.cuda.get_device_capability() >= (8, 9)
    for dtype, m, n, k in gemm_shapes():
        if dtype == "e4m3" and not fp8:
            continue
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        if dtype == "bf16":
            def run():
                torch.mm(a, b.t())
        else:
            a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
            one = torch.ones((), device="cuda", dtype=torch.float32)

            def run():
                torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one,
                                 out_dtype=torch.bfloat16)
        yield [dtype, m, n, k], run


def measure(torch, run, reps):
    import measure_steps
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    ts = sorted(measure_steps.event_time_ms(torch, run) * 1000.0 for _ in range(reps))
    pick = lambda q: ts[min(len(ts) - 1, int(q * len(ts)))]
    return [round(ts[len(ts) // 2], 3), round(pick(0.1), 3), round(pick(0.9), 3)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("attention", "gemm"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    if args.what == "attention":
        header = ["dtype", "pass", "b", "h", "kv_h", "s", "kv_s", "d", "causal"]
        shapes = list(attention_shapes())
    else:
        header = ["dtype", "m", "n", "k"]
        shapes = list(gemm_shapes())
    if args.dry_run:
        print("plan %s: %d shapes -> %s" % (args.what, len(shapes), args.out))
        return 0
    import torch
    device = torch.cuda.get_device_name(0)
    timed = time_attention if args.what == "attention" else time_gemm
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["device"] + header + ["latency_us", "p10_us", "p90_us"])
        for shape, run in timed(torch, args.reps):
            # One shape failing (out of memory, no kernel) is reported, and
            # the sweep goes on.
            try:
                times = measure(torch, run, args.reps)
            except Exception as e:  # noqa: BLE001
                print("skipped %s: %s: %s" % (shape, type(e).__name__, str(e)[:200]),
                      file=sys.stderr, flush=True)
                continue
            w.writerow([device] + shape + times)
            f.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
