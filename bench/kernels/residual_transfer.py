#!/usr/bin/env python3
"""How much of a GPU's deviation from the learned model carries over to
another GPU: the weights of `retarget=shrunk` (retarget.json).

Moving a measured kernel from GPU s to GPU t, `retarget=shrunk` prices it as
model_t x (measured_s / model_s)^w. With r_g = log(measured_g / model_g) the
kernel's deviation from the model on GPU g, w is the slope of the regression
of r_t on r_s: w = 1 says a kernel that runs slower than the model predicts on
one GPU does so by as much on every GPU (the plain ratio), w = 0 that the
deviation is the GPU's own and the target's price is the best guess.

The slope is fitted on the NeuSight kernel measurements, whose shapes were
measured on all five GPUs: the shapes are split into two folds (by a hash of
kind and shape, the same fold on every GPU), a model folder is trained
without each fold (`perf-train`, the options of the folder the weights are
for), and each fold's rows are priced by the folder that never saw their
shapes (`perf-eval --output=csv`), so every deviation is out of sample. Per
kernel kind, w = sum over ordered GPU pairs of cov(r_s, r_t) / sum of
var(r_s), over the shapes both GPUs measured, clipped to [0, 1]. Kinds not
measured here (conv, the kinds NeuSight has no rows of) get no weight, and
retarget=shrunk moves them by the ratio.

    bench/kernels/residual_transfer.py [--neusight DIR] [--build DIR]
        [--out data/models/neusight/retarget.json] [--exclude-device NAME]
        [--rounds N] [--jobs 2]

--exclude-device and --rounds are passed to perf-train, as for the folder
the weights go with (bench/e2e/retarget.py's held-out folders: the target
GPU excluded, 120 rounds): the excluded GPU's rows are neither trained on
nor used in the slopes. Takes about 2 minutes on two cores.
"""

import argparse
import collections
import concurrent.futures
import csv
import gzip
import json
import math
import os
import shutil
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tool_run import run  # noqa: E402
# NeuSight's op folders and the perf kernel kind each prices.
KIND_OF = {"linear": "gemm", "bmm": "gemm", "add": "elementwise", "gelu": "elementwise",
           "relu": "elementwise", "softmax": "softmax", "ln": "layernorm"}
SHAPE_COLUMNS = ("B", "M", "N", "K", "H")


def shape(op, row):
    return (op,) + tuple(row[c] for c in SHAPE_COLUMNS if c in row)


def fold(op, row):
    return zlib.crc32("|".join(shape(op, row)).encode()) % 2


def split(neusight, work):
    """work/train<f>: the NeuSight folder without fold f's shapes."""
    for f in (0, 1):
        out = os.path.join(work, "train%d" % f)
        os.makedirs(out)
        for name in os.listdir(neusight):
            if name.endswith(".json"):
                shutil.copy(os.path.join(neusight, name), out)
        for op in KIND_OF:
            os.makedirs(os.path.join(out, op))
            for name in os.listdir(os.path.join(neusight, op)):
                with gzip.open(os.path.join(neusight, op, name), "rt", newline="") as src:
                    rows = csv.DictReader(src)
                    with gzip.open(os.path.join(out, op, name), "wt", newline="") as dst:
                        writer = csv.DictWriter(dst, rows.fieldnames)
                        writer.writeheader()
                        for row in rows:
                            if fold(op, row) != f:
                                writer.writerow(row)


def deviations(build, neusight, models, op, gpu_file, f):
    """{shape: mean log(measured / predicted)} of fold f's rows of one file,
    priced by the folder trained without fold f."""
    path = os.path.join(neusight, op, gpu_file)
    with gzip.open(path, "rt", newline="") as src:
        rows = list(csv.DictReader(src))
    priced = run([os.path.join(build, "bin", "perf-eval"), "--model=ml", "--ml-dir=" + models,
                  "--output=csv", path])
    acc = collections.defaultdict(list)
    for r in csv.DictReader(priced.splitlines()):
        row = rows[int(r["line"]) - 2]
        if fold(op, row) != f:
            continue
        measured, predicted = float(r["measured_us"]), float(r["predicted_us"])
        if measured > 0 and predicted > 0:
            acc[shape(op, row)].append(math.log(measured / predicted))
    return {k: sum(v) / len(v) for k, v in acc.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--neusight", default=os.path.join(ROOT, "..", "shared", "data", "kernels",
                                                       "neusight"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "data", "models", "neusight",
                                                  "retarget.json"))
    ap.add_argument("--exclude-device", default="")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.neusight, "linear")):
        print("error: no NeuSight kernel folders at " + args.neusight, file=sys.stderr)
        return 2
    start = time.time()
    with tempfile.TemporaryDirectory() as work:
        split(args.neusight, work)
        train = []
        for f in (0, 1):
            cmd = [os.path.join(args.build, "bin", "perf-train"), "--neusight",
                   os.path.join(work, "train%d" % f), "-o", os.path.join(work, "models%d" % f)]
            if args.exclude_device:
                cmd.append("--exclude-device=" + args.exclude_device)
            if args.rounds:
                cmd.append("--rounds=%d" % args.rounds)
            train.append(cmd)
        print("training without each fold of shapes", file=sys.stderr)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(run, train))
        gpus = sorted(n for n in os.listdir(os.path.join(args.neusight, "linear"))
                      if not (args.exclude_device and args.exclude_device in n))
        todo = [(op, g, f) for op in KIND_OF for g in gpus for f in (0, 1)]
        print("pricing %d files" % len(todo), file=sys.stderr)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            priced = list(pool.map(lambda t: deviations(
                args.build, args.neusight, os.path.join(work, "models%d" % t[2]), *t), todo))
    # r[kind][gpu] = {shape: deviation}, the folds together.
    r = collections.defaultdict(lambda: collections.defaultdict(dict))
    for (op, g, _), devs in zip(todo, priced):
        r[KIND_OF[op]][g].update(devs)
    weights, fits = {}, {}
    for kind in sorted(r):
        cov = var = var_t = 0.0
        shapes = 0
        for s in gpus:
            for t in gpus:
                if s == t:
                    continue
                both = sorted(set(r[kind][s]) & set(r[kind][t]))
                if len(both) < 2:
                    continue
                xs = [r[kind][s][k] for k in both]
                ys = [r[kind][t][k] for k in both]
                mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
                cov += sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / len(xs)
                var += sum((x - mx) ** 2 for x in xs) / len(xs)
                var_t += sum((y - my) ** 2 for y in ys) / len(ys)
                shapes += len(both)
        if var <= 0:
            continue
        slope = cov / var
        weights[kind] = round(min(1.0, max(0.0, slope)), 4)
        fits[kind] = {"slope": round(slope, 4),
                      "correlation": round(cov / math.sqrt(var * var_t), 4),
                      "shape_pairs": shapes}
    doc = {
        "schema": "perf.retarget_weights/1",
        "residual_weight": weights,
        "fit": fits,
        "source": ("bench/kernels/residual_transfer.py on %s: 2 shape folds, perf-train%s%s; "
                   "GPUs %s" % (os.path.basename(os.path.normpath(args.neusight)),
                                " --exclude-device=" + args.exclude_device
                                if args.exclude_device else "",
                                " --rounds=%d" % args.rounds if args.rounds else "",
                                ", ".join(g[:-len(".csv.gz")] for g in gpus))),
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as out:
        json.dump(doc, out, indent=2)
        out.write("\n")
    print("wrote %s in %.0f s: %s" % (args.out, time.time() - start,
                                      " ".join("%s=%.3f" % kv for kv in weights.items())),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
