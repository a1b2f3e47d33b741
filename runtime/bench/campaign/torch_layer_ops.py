#!/usr/bin/env python3
"""Time PyTorch's own kernels for the layer ops of a sweep spec.

perf-bench runs its own kernels for layer norm, softmax, row sums and
element-wise ops (runtime/bench/cuda/Rows.cu). Those are not the kernels a
PyTorch step runs, and on the H200 they were slower at some shapes. This
script times the framework's kernels for the same shapes and writes them as
rows of a perf database (docs/perf-db.md), keyed exactly as perf-bench keys
its own rows, so that either set can be the reference a model is scored
against.

    torch_layer_ops.py (--spec layer-sweep.json | --from e2e-kernels.json)
        --db torch-layers.db [--device-name H200-SXM-141GB] [--warmup 5]
        [--reps 20] [--seconds 120]

Kinds timed (the others of the spec are skipped): layernorm
(`F.layer_norm` with weight and bias over the last dimension), softmax
(`torch.softmax` over the last dimension), reduce (`torch.sum` over the last
dimension), and elementwise (add and mul of two tensors or of a tensor and a
number, gelu, sigmoid, tanh, relu, silu and exp of one; three-input entries
are skipped, PyTorch runs no single kernel for them). A kernel list
(`--from`, such as example-kernels.json) adds the CNN layers perf-bench runs
with kernels of its own or with cuDNN:
- conv2d: `F.conv2d` without bias, NCHW, cuDNN with `cudnn.benchmark` (the
  fastest algorithm, as a database row of perf-bench times) and without TF32
  for f32 (perf-bench's f32 rows use FMA math); `dgrad` and `wgrad` are the
  input and the weight gradient alone, through autograd;
- pooling: max pooling (`F.max_pool2d` with its indices, what perf-bench's
  pooling kernels run), `bwd` the input gradient;
- batchnorm: `F.batch_norm` in training mode with weight, bias and running
  statistics, on a (1, c, n / c) tensor (the signature keeps the element
  and channel counts, not the image's shape); `bwd` the three gradients.
A backward call is timed alone: its forward runs once, outside the profiled
calls, and autograd keeps what it saved for every call.
Each shape runs `--warmup` untimed calls, then
`--reps` calls under torch.profiler with CUDA activity only. The profiler's
Kineto trace gives each kernel's device time, the same CUPTI time
perf-bench's rows hold. A call's time is the sum of its kernels' times;
`latency_us` is the median over the calls and `spread_us` their p90 - p10.
Rows are written as they are measured, so a run cut short keeps what it
timed, and a rerun skips keys the database holds.
"""

import argparse
import gzip
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The database's tables have one definition, the C++ header both perf and
# perf-bench create them from.
SCHEMA_HEADER = os.path.join(HERE, "..", "..", "..", "include", "perf", "CostModel",
                             "PerfDbSchema.h")


def schema_sql(header=SCHEMA_HEADER):
    """The SQL of kPerfDbSchemaSql (its R"sql(...)sql" literal)."""
    with open(header) as f:
        text = f.read()
    start = text.index('R"sql(') + len('R"sql(')
    return text[start:text.index(')sql"', start)]

UNARY = ("gelu", "sigmoid", "tanh", "relu", "silu", "exp")
BINARY = ("add", "mul")


def values(spec, key):
    """A spec field as a list: a number, a list, or {"from", "to", "mul"}."""
    v = spec.get(key)
    if v is None:
        return []
    if isinstance(v, dict):
        out, x = [], v["from"]
        while x <= v["to"]:
            out.append(x)
            x *= v["mul"]
        return out
    return v if isinstance(v, list) else [v]


def shapes(spec):
    """(kind, dtype, signature, params) of every shape this script times, in
    the spec's order."""
    for entry in spec["kernels"]:
        kind = entry["kind"]
        for dtype in values(entry, "dtype"):
            if kind in ("layernorm", "softmax", "reduce"):
                for rows in values(entry, "rows"):
                    for cols in values(entry, "cols"):
                        yield kind, dtype, "rows=%d cols=%d" % (rows, cols), (rows, cols)
            elif kind == "elementwise":
                for inputs in values(entry, "inputs") or [1]:
                    for op in values(entry, "op"):
                        # One kernel in PyTorch: a unary op, or add and mul of
                        # two tensors or of a tensor and a number.
                        if not (op in UNARY and inputs == 1 or op in BINARY and inputs <= 2):
                            continue
                        for n in values(entry, "elements"):
                            yield (kind, dtype, "n=%d in=%d op=%s" % (n, inputs, op),
                                   (n, inputs, op))


# The integer fields of the CNN layers' signatures (lib/Support/KernelSignature.cpp).
CONV_FIELDS = ("n", "c", "h", "w", "k", "r", "s", "sh", "sw", "ph", "pw", "dh", "dw", "g")
POOL_FIELDS = ("n", "c", "h", "w", "r", "s", "sh", "sw", "ph", "pw")
CNN_PASSES = {"conv2d": ("fwd", "dgrad", "wgrad"), "pooling": ("fwd", "bwd"),
              "batchnorm": ("fwd", "bwd")}


def cnn_params(kind, fields):
    """The parameters of a conv2d, pooling or batchnorm signature ({field:
    int} and the pass), or None where PyTorch runs no such kernel (a window
    padded by more than half of it, channels not a multiple of the groups)."""
    names = {"conv2d": CONV_FIELDS, "pooling": POOL_FIELDS, "batchnorm": ("n", "c")}[kind]
    try:
        p = {f: int(fields[f]) for f in names}
    except (KeyError, ValueError):
        return None
    step = fields.get("pass", "fwd")
    if step not in CNN_PASSES[kind] or min(p.values()) < 0:
        return None
    if kind == "pooling" and (2 * p["ph"] > p["r"] or 2 * p["pw"] > p["s"]):
        return None
    if kind == "conv2d" and (p["g"] < 1 or p["c"] % p["g"] or p["k"] % p["g"]):
        return None
    if kind == "batchnorm" and (p["c"] < 1 or p["n"] % p["c"]):
        return None
    return p, step


def listed_shapes(kernel_list):
    """The shapes of a kernel list (perf.kernel_list/1, perf-opt
    --estimate=kernel-list=FILE) this script times, as shapes() gives them."""
    for k in kernel_list["kernels"]:
        kind, dtype = k["kind"], k["dtype"]
        if dtype not in ("f32", "f16", "bf16"):
            continue
        fields = dict(f.split("=", 1) for f in k["signature"].split())
        if kind in CNN_PASSES:
            params = cnn_params(kind, fields)
            if params:
                yield kind, dtype, k["signature"], params
        elif kind in ("layernorm", "softmax", "reduce"):
            yield kind, dtype, k["signature"], (int(fields["rows"]), int(fields["cols"]))
        elif kind == "elementwise":
            n, inputs, op = int(fields["n"]), int(fields["in"]), fields["op"]
            if op in UNARY and inputs == 1 or op in BINARY and inputs <= 2:
                yield kind, dtype, k["signature"], (n, inputs, op)


def call_times(trace_path, reps):
    """Per call, the summed device time of its kernels (us), and the first
    kernel's name, from a Kineto trace of `reps` calls."""
    opener = gzip.open if trace_path.endswith(".gz") else open
    with opener(trace_path, "rt") as f:
        events = json.load(f)["traceEvents"]
    kernels = sorted((e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"),
                     key=lambda e: e["ts"])
    if not kernels or len(kernels) % reps:
        raise RuntimeError("%d kernels for %d calls" % (len(kernels), reps))
    per = len(kernels) // reps
    times = [sum(k["dur"] for k in kernels[i * per:(i + 1) * per]) for i in range(reps)]
    return times, kernels[0].get("name", "")


def cnn_call(torch, F, kind, params, dtype):
    """A call that runs PyTorch's kernels of one CNN layer signature
    (cnn_params); a backward pass runs its forward once, here."""
    p, step = params
    cuda = {"device": "cuda", "dtype": dtype}
    if kind == "batchnorm":
        x = torch.randn(1, p["c"], p["n"] // p["c"], **cuda)
        w = torch.randn(p["c"], **cuda)
        b = torch.randn(p["c"], **cuda)
        mean, var = torch.zeros(p["c"], **cuda), torch.ones(p["c"], **cuda)
        forward = lambda: F.batch_norm(x, mean, var, w, b, training=True)  # noqa: E731
        wrt = (x, w, b)
    elif kind == "pooling":
        x = torch.randn(p["n"], p["c"], p["h"], p["w"], **cuda)
        forward = lambda: F.max_pool2d(x, (p["r"], p["s"]), (p["sh"], p["sw"]),  # noqa: E731
                                       (p["ph"], p["pw"]), return_indices=True)[0]
        wrt = (x,)
    else:
        x = torch.randn(p["n"], p["c"], p["h"], p["w"], **cuda)
        w = torch.randn(p["k"], p["c"] // p["g"], p["r"], p["s"], **cuda)
        forward = lambda: F.conv2d(x, w, None, (p["sh"], p["sw"]),  # noqa: E731
                                   (p["ph"], p["pw"]), (p["dh"], p["dw"]), p["g"])
        wrt = {"fwd": (), "dgrad": (x,), "wgrad": (w,)}[step]
    if step == "fwd":
        return forward
    for t in wrt:
        t.requires_grad_(True)
    y = forward()
    grad = torch.randn_like(y)
    return lambda: torch.autograd.grad(y, wrt, grad, retain_graph=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", help="sweep spec (perf-bench --spec's format)")
    ap.add_argument("--from", dest="kernel_list", help="kernel list (perf-bench --from's)")
    ap.add_argument("--db", required=True)
    ap.add_argument("--device-name", default="H200-SXM-141GB")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=120, help="stop starting shapes after this")
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    from torch.profiler import ProfilerActivity, profile

    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    if bool(args.spec) == bool(args.kernel_list):
        ap.error("give one of --spec and --from")
    with open(args.spec or args.kernel_list) as f:
        listed = json.load(f)
    every = shapes(listed) if args.spec else listed_shapes(listed)
    db = sqlite3.connect(args.db)
    db.executescript(schema_sql())
    db.execute("INSERT OR IGNORE INTO devices(name, spec_json) VALUES (?, NULL)",
               (args.device_name,))
    db.commit()
    have = {(r[0], r[1], r[2]) for r in db.execute(
        "SELECT dtype, kind, signature FROM kernels WHERE device = ?", (args.device_name,))}
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    # Kernel times, as perf-bench's CUPTI rows are: the source ends with
    # " cupti" so that perf-eval compares them with the streamed price.
    source = "torch %s cuda %s kineto cupti" % (torch.__version__, torch.version.cuda)
    todo = [s for s in every if (s[1], s[0], s[2]) not in have]
    print("torch_layer_ops: %d shapes to time (%d already in %s)"
          % (len(todo), len(have), args.db), file=sys.stderr)
    start = time.time()
    done = failed = 0
    with tempfile.TemporaryDirectory() as work:
        trace = os.path.join(work, "trace.json")
        for kind, dtype, signature, params in todo:
            if time.time() - start > args.seconds:
                print("torch_layer_ops: out of time, %d shapes left" % (len(todo) - done - failed),
                      file=sys.stderr)
                break
            t = dtypes[dtype]
            try:
                if kind in CNN_PASSES:
                    call = cnn_call(torch, F, kind, params, t)
                elif kind in ("layernorm", "softmax", "reduce"):
                    rows, cols = params
                    x = torch.randn(rows, cols, device="cuda", dtype=t)
                    if kind == "layernorm":
                        w = torch.randn(cols, device="cuda", dtype=t)
                        b = torch.randn(cols, device="cuda", dtype=t)
                        call = lambda: F.layer_norm(x, (cols,), w, b)  # noqa: E731
                    elif kind == "softmax":
                        call = lambda: torch.softmax(x, dim=-1)  # noqa: E731
                    else:
                        call = lambda: torch.sum(x, dim=-1)  # noqa: E731
                else:
                    n, inputs, op = params
                    a = torch.randn(n, device="cuda", dtype=t)
                    if inputs == 2:
                        b = torch.randn(n, device="cuda", dtype=t)
                        call = (lambda: a + b) if op == "add" else (lambda: a * b)
                    elif op in BINARY:
                        call = (lambda: a + 1.5) if op == "add" else (lambda: a * 1.5)
                    else:
                        fn = {"gelu": F.gelu, "sigmoid": torch.sigmoid, "tanh": torch.tanh,
                              "relu": torch.relu, "silu": F.silu, "exp": torch.exp}[op]
                        call = lambda: fn(a)  # noqa: E731
                for _ in range(args.warmup):
                    call()
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(args.reps):
                        call()
                    torch.cuda.synchronize()
                prof.export_chrome_trace(trace)
                times, name = call_times(trace, args.reps)
                # p10, ..., p90, interpolated between closest ranks.
                deciles = (statistics.quantiles(times, n=10, method="inclusive")
                           if len(times) > 1 else times * 9)
                db.execute("INSERT OR REPLACE INTO kernels(device, dtype, kind, signature, "
                           "latency_us, spread_us, reps, algo, kernel_name, source) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
                           (args.device_name, dtype, kind, signature, deciles[4],
                            deciles[8] - deciles[0], args.reps, name, source))
                db.commit()
                done += 1
            except Exception as e:  # one shape's failure (memory) stops no other
                failed += 1
                print("torch_layer_ops: %s %s %s: %s" % (kind, dtype, signature, e),
                      file=sys.stderr)
            finally:
                x = a = b = w = call = None
                torch.cuda.empty_cache()
    print("torch_layer_ops: timed %d shapes, %d failed, in %.0f s"
          % (done, failed, time.time() - start), file=sys.stderr)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
