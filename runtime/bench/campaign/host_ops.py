#!/usr/bin/env python3
"""Measure the host time of PyTorch ops and of HuggingFace layers, unprofiled.

Each ATen op a transformer step calls runs --calls times in a row on tiny
CUDA tensors (the GPU finishes each kernel long before the host issues the
next), timed by the host's clock: what one call costs the host thread,
dispatch, kernel launch and Python included, without the profiler, which
slows the host several-fold. Then tiny HuggingFace models (width 64, the
layer count and code of the real ones) take decode and prefill steps: the
host time of a whole step, module calls and cache logic included.

    host_ops.py --out host-ops.json [--calls N] [--configs DIR] [--dry-run]

bench/e2e/host_spec.py turns what it writes into a host of the catalog
(data/hosts).
"""

import argparse
import json
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--configs", default=None)
    ap.add_argument("--dry-run", action="store_true",
                    help="check the configs, print the plan, measure nothing")
    args = ap.parse_args()
    models = ("gpt2_large", "opt_13", "gpt3_xl", "llama3_8b", "bert_large")
    if args.configs:
        missing = [m for m in models
                   if not os.path.exists(os.path.join(args.configs, m + ".json"))]
        if missing:
            print("error: no %s in %s" % (", ".join(m + ".json" for m in missing),
                                          args.configs), file=sys.stderr)
            return 2
    if args.dry_run:
        print("plan host ops: %d calls each; tiny models: %s" %
              (args.calls, ", ".join(models) if args.configs else "none"))
        return 0
    import torch
    import torch.nn.functional as F
    dev, dt = "cuda", torch.bfloat16
    x = torch.randn(1, 4, 1, 16, device=dev, dtype=dt)
    y = torch.randn(1, 4, 1, 16, device=dev, dtype=dt)
    h = torch.randn(1, 1, 64, device=dev, dtype=dt)
    w = torch.randn(64, 64, device=dev, dtype=dt)
    bias = torch.randn(64, device=dev, dtype=dt)
    kt = torch.randn(1, 4, 16, 8, device=dev, dtype=dt)
    mask = torch.ones(1, 1, 1, 16, device=dev, dtype=torch.bool)
    ids = torch.ones(1, 1, device=dev, dtype=torch.long)
    table = torch.randn(1000, 64, device=dev, dtype=dt)
    lin = torch.nn.Linear(64, 64, device=dev, dtype=dt)
    ident = torch.nn.Identity()
    neg = torch.tensor(-1e4, device=dev, dtype=dt)
    ops = {
        "aten::linear": lambda: F.linear(h, w, bias),
        "aten::matmul": lambda: torch.matmul(x, kt),
        "aten::add": lambda: x + y,
        "aten::mul": lambda: x * y,
        "aten::div": lambda: x / 4.0,
        "aten::where": lambda: torch.where(mask, x, neg),
        "aten::softmax": lambda: torch.softmax(x, dim=-1),
        "aten::softmax_f32": lambda: torch.softmax(x, dim=-1, dtype=torch.float32),
        "aten::layer_norm": lambda: F.layer_norm(h, (64,), bias, bias),
        "aten::gelu": lambda: F.gelu(h, approximate="tanh"),
        "aten::silu": lambda: F.silu(h),
        "aten::cat": lambda: torch.cat([x, y], dim=2),
        "aten::contiguous": lambda: x.transpose(1, 2).contiguous(),
        "aten::view": lambda: x.view(1, 4, 16),
        "aten::transpose": lambda: x.transpose(1, 2),
        "aten::embedding": lambda: F.embedding(ids, table),
        "aten::_to_copy": lambda: x.float(),
        "aten::scaled_dot_product_attention":
            lambda: F.scaled_dot_product_attention(x, y, y),
        "aten::pow": lambda: h.pow(2),
        "aten::mean": lambda: h.mean(-1, keepdim=True),
        "aten::rsqrt": lambda: torch.rsqrt(h),
        "aten::clone": lambda: x.clone(),
        "module_linear": lambda: lin(h),
        "module_identity": lambda: ident(h),
    }
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "calls": args.calls, "unit": "us per call, host wall clock", "ops": {}}
    for name, fn in ops.items():
        for _ in range(100):
            fn()
        torch.cuda.synchronize()
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(args.calls):
                fn()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            us = (t1 - t0) * 1e6 / args.calls
            best = us if best is None else min(best, us)
        res["ops"][name] = round(best, 3)
        print("%-36s %7.2f us" % (name, best), flush=True)
    if args.configs:
        import transformers
        res["tiny_models"] = {}
        for model in models:
            with open(os.path.join(args.configs, model + ".json")) as f:
                d = json.load(f)
            mtype = d.pop("model_type")
            d.pop("torch_dtype", None)
            for key in ("n_embd", "hidden_size", "d_model", "word_embed_proj_dim"):
                if key in d:
                    d[key] = 64
            for key in ("n_inner", "intermediate_size", "ffn_dim"):
                if key in d and d[key]:
                    d[key] = 256
            for key in ("n_head", "num_attention_heads"):
                if key in d:
                    d[key] = 4
            if "num_key_value_heads" in d:
                d["num_key_value_heads"] = 1
            d["vocab_size"] = 1024
            cfg = transformers.AutoConfig.for_model(mtype, **d)
            for attn in ("sdpa", "eager"):
                cfg._attn_implementation = attn
                with torch.device(dev):
                    m = (transformers.BertModel(cfg) if mtype == "bert"
                         else transformers.AutoModelForCausalLM.from_config(cfg))
                m = m.to(dtype=dt).eval()
                out = {}
                with torch.no_grad():
                    for label, seq, ctx in (("prefill-128", 128, 0), ("decode-512", 1, 512)):
                        if ctx and mtype == "bert":
                            continue
                        cache = None
                        if ctx:
                            cache = m(input_ids=torch.ones(1, ctx, dtype=torch.long,
                                                           device=dev),
                                      use_cache=True).past_key_values
                        inp = torch.ones(1, seq, dtype=torch.long, device=dev)
                        ts = []
                        for i in range(23):
                            torch.cuda.synchronize()
                            t0 = time.perf_counter()
                            if cache is not None:
                                m(input_ids=inp, past_key_values=cache, use_cache=True)
                            else:
                                m(input_ids=inp)
                            torch.cuda.synchronize()
                            ts.append((time.perf_counter() - t0) * 1e3)
                            if cache is not None:
                                cache.crop(ctx)
                        ts = sorted(ts[3:])
                        out[label] = round(ts[len(ts) // 2], 3)
                res["tiny_models"]["%s-%s" % (model, attn)] = out
                print(model, attn, out, flush=True)
                del m
    with open(args.out, "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
