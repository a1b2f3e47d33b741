#!/usr/bin/env python3
"""Hopper (H200) kernels: the kernel models held out and in.

Prices the kernels perf-bench measured on an NVIDIA H200
(data/measured/h200/perf.db.gz, a perf database: docs/perf-db.md) with each
model of the default stack and the stack itself, and reports per kernel kind
and number type (GEMM also by M <= 64, decode-sized, and M > 64) the GMAE,
the median and the 90th percentile of |predicted / measured - 1|:

  held out  the shipped model folder (data/models/neusight, trained without
            any H200 row) prices every H200 row, on the catalog's H200
            (datasheet figures) and on the measured device spec
            (data/measured/h200/device.json, perf-bench --probe);
  in        a folder trained like bench/models/train_default.sh plus a random
            80% of the H200 rows (fixed seed, stratified by kind and number
            type; perf-train --db, --db-weight 10 as docs/cost-models.md's "A
            new GPU" recipe) prices the other 20%, on the spec stored with
            the rows (the probe's). Train and test rows share no row.

The row and element-wise kernels of perf-bench 0.1 ran 1.7-4x slower than
PyTorch's; perf-bench 0.2 rewrote them (Rows.cu) and re-measured the layer
sweep (data/measured/h200/layers-0.2.db.gz). --layers merges that database
first: its rows replace the same keys, and the 0.1 rows of the kinds Rows.cu
runs (REWRITTEN_KINDS) that it did not re-measure are left out, so no
layer-op figure rests on the slow kernels (--layers '' keeps the 0.1 rows).

perf-eval reads the database directly (one row per kernel, its rowid as the
line) and prints every priced row (--output=csv). The rows are CUPTI kernel
times, so they are compared with the streamed price (perf-eval does so for
rows whose source says "cupti"). GMAE is docs/accuracy.md's: the geometric
mean of |relative error|, each term floored at 0.01%.

    bench/kernels/hopper_eval.py [--build DIR] [--out docs/accuracy.md | -]
        [--max-gmae KEY=PCT ...] [--skip-without-data]

It also prices the kernels of the H200 trace pairs (data/measured/h200/traces:
PyTorch's own kernels) whose shapes the database has, to show how far
perf-bench's kernels are from PyTorch's (--traces '' skips it), and, held
out, the layer ops PyTorch ran for the layer sweeps and the E2E steps' shapes
(--torch, data/measured/h200/torch-layers.db.gz, written by
runtime/bench/campaign/torch_layer_ops.py; --torch '' skips it).

Takes about 15 s on two cores (two perf-train runs, 18 perf-eval runs, three
trace imports and pricings). Exits 2 when a tool fails, 1 when a --max-gmae
bound is exceeded, 77 with --skip-without-data when the data is absent.
"""

import argparse
import csv
import io
import math
import os
import random
import re
import shutil
import sqlite3
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from doc_section import write_section  # noqa: E402
from tool_run import run  # noqa: E402
import perf_db  # noqa: E402

BEGIN = "<!-- BEGIN HOPPER KERNELS (bench/kernels/hopper_eval.py) -->"
END = "<!-- END HOPPER KERNELS -->"

MODELS = ["auto", "ml", "tile", "calibrated", "heuristic", "roofline"]
# The goal: FP16/BF16 GEMM and layer ops, GMAE in % (in, held out).
GOAL = {"in": 8.0, "held-out": 12.0}
LAYER_KINDS = ("layernorm", "softmax", "elementwise")
# The kinds perf-bench 0.2 rewrote (runtime/bench/cuda/Rows.cu).
REWRITTEN_KINDS = ("elementwise", "layernorm", "softmax", "reduce", "transpose", "concat")
DECODE_M = 64
SEED = 1
TEST_FRACTION = 0.2
DB_WEIGHT = 10
ROUNDS = 120  # bench/models/train_default.sh's


def read_rows(db):
    """{rowid: row} of the database's kernels."""
    con = sqlite3.connect(db)
    out = {}
    for rowid, dtype, kind, sig, us in con.execute(
            "SELECT rowid, dtype, kind, signature, latency_us FROM kernels"):
        fields = dict(p.split("=", 1) for p in sig.split())
        out[rowid] = {"dtype": dtype, "kind": kind, "signature": sig, "us": us,
                      "m": int(fields["m"]) if kind == "gemm" else None}
    con.close()
    return out


def merge_later(db, later_gz, work):
    """Merges the rows of a later perf-bench database into `db`: the same
    keys replaced, REWRITTEN_KINDS' earlier rows it lacks deleted. Returns
    (rows replaced or added, earlier rows dropped)."""
    later = perf_db.unpack(later_gz, os.path.join(work, "later.db"))
    return perf_db.merge_rows(db, later, REWRITTEN_KINDS)


def split(db, rows, work):
    """Train and test databases: per (kind, dtype), a seeded shuffle's first
    TEST_FRACTION of the rows is the test set, the rest trains. Both keep the
    devices table (the probe's spec)."""
    groups = {}
    for rowid in sorted(rows):
        groups.setdefault((rows[rowid]["kind"], rows[rowid]["dtype"]), []).append(rowid)
    rng = random.Random(SEED)
    test = set()
    for key in sorted(groups):
        ids = groups[key][:]
        rng.shuffle(ids)
        test.update(ids[:round(TEST_FRACTION * len(ids))])
    paths = {}
    for name, drop in (("train", test), ("test", set(rows) - test)):
        path = os.path.join(work, name + ".db")
        shutil.copy(db, path)
        con = sqlite3.connect(path)
        con.executemany("DELETE FROM kernels WHERE rowid = ?", [(i,) for i in sorted(drop)])
        con.commit()
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        kept = {r[0] for r in con.execute("SELECT rowid FROM kernels")}
        con.close()
        # Train and test share no row, and together they are the database.
        if kept != set(rows) - drop:
            raise RuntimeError("%s: the split kept other rows than meant" % path)
        paths[name] = path
    return paths, test


def train_in(build, neusight, vidur, train_db, out):
    """bench/models/train_default.sh's two runs with the H200 training rows
    added (--select left out: its choice routes GPUs outside the training
    set, and the H200 is in it)."""
    tool = os.path.join(build, "bin", "perf-train")
    run([tool, "--neusight", neusight, "--db", train_db, "--db-weight", str(DB_WEIGHT),
         "--rounds=%d" % ROUNDS, "-o", out])
    run([tool, "--neusight", neusight, "--vidur", vidur, "--db", train_db,
         "--db-weight", str(DB_WEIGHT), "--roofline-only", "-o", out])


def price(build, db, model, ml_dir, device):
    """{rowid: (predicted_us, model that priced it)} of the rows `model`
    prices (a row it declines is absent)."""
    out = run([os.path.join(build, "bin", "perf-eval"), "--model=" + model, "--ml-dir=" + ml_dir,
               "--device=" + device, "--output=csv", "--worst=0", db])
    return {int(r["line"]): (float(r["predicted_us"]), r["model"])
            for r in csv.DictReader(io.StringIO(out))}


KERNEL_OP = re.compile(r"perf\.(gemm|layernorm|softmax|reduce|elementwise|[a-z_]+) \{(.*)\}")
ATTR = re.compile(r'([\w.]+) = ("[^"]*"|[^,]+)')
MEASURED = re.compile(r'(, )?perf\.(cost_model|latency_us|measured_latency_us) = '
                      r'("[^"]*"|[-+0-9.eE]+ : f64)')


def kernel_ops(text):
    """(kind, attributes, perf.latency_us) of every kernel op of perf IR
    text, in program order."""
    out = []
    for line in text.splitlines():
        m = KERNEL_OP.search(line)
        if not m or m.group(1) in ("graph", "op", "sync", "repeat", "yield"):
            continue
        attrs = {k: v.strip() for k, v in ATTR.findall(m.group(2))}
        latency = attrs.get("perf.latency_us")
        out.append((m.group(1), attrs, float(latency.split(":")[0]) if latency else None))
    return out


def signature(kind, attrs):
    """The perf database signature of a traced kernel op (None for kinds
    compared here not at all)."""
    num = lambda key, default: int(attrs.get(key, str(default)).split(":")[0])  # noqa: E731
    # perf-bench times forward kernels; a GEMM's shape says all there is.
    if kind != "gemm" and attrs.get("pass", "#perf.pass<fwd>") != "#perf.pass<fwd>":
        return None
    if kind == "gemm":
        return "b=%d m=%d n=%d k=%d ta=%d tb=%d" % (
            num("batch", 1), num("m", 1), num("n", 1), num("k", 1),
            "trans_a" in attrs, "trans_b" in attrs)
    if kind in ("layernorm", "softmax", "reduce"):
        return "rows=%d cols=%d" % (num("rows", 1), num("cols", 1))
    if kind == "elementwise":
        return "n=%d in=%d op=%s" % (num("elements", 0), num("inputs", 1),
                                     attrs.get("fn", '""').strip('"'))
    return None


def trace_check(build, traces, ml_dir, rows, work):
    """The kernels of the H200 trace pairs (PyTorch's own kernels, CUPTI
    times) whose shape perf-bench measured too: per (kind, dtype) the
    triples (PyTorch us, perf-bench us, default stack held out us)."""
    bench = {(r["dtype"], r["kind"], r["signature"]): r["us"] for r in rows.values()}
    out = {}
    for et in sorted(f for f in os.listdir(traces) if f.endswith(".et.json.gz")):
        kineto = os.path.join(traces, et.replace(".et.json.gz", ".kineto.json.gz"))
        if not os.path.exists(kineto):
            continue
        measured = os.path.join(work, et + ".mlir")
        run([os.path.join(build, "bin", "perf-translate"), "--import-pytorch-et",
             os.path.join(traces, et), "--kineto", kineto, "-o", measured])
        with open(measured) as f:
            text = f.read()
        # The same kernels without their measured times, priced on the
        # catalog H200 (the trace's own GPU: nothing is moved).
        bare = os.path.join(work, et + ".bare.mlir")
        with open(bare, "w") as f:
            f.write(MEASURED.sub("", text).replace("{, ", "{"))
        priced = run([os.path.join(build, "bin", "perf-opt"), "--perf-device=h200",
                      "--perf-kernel-cost=models=auto ml-dir=" + ml_dir, bare])
        before, after = kernel_ops(text), kernel_ops(priced)
        if len(before) != len(after):
            raise RuntimeError("%s: %d kernels measured, %d priced" % (et, len(before),
                                                                       len(after)))
        for (kind, attrs, torch_us), (_, _, model_us) in zip(before, after):
            sig = signature(kind, attrs)
            dtype = attrs.get("dtype", "f32")
            if not sig or torch_us is None or model_us is None or torch_us <= 0:
                continue
            us = bench.get((dtype, kind, sig))
            if us:
                out.setdefault("%s %s" % (kind, dtype), []).append((torch_us, us, model_us))
    return out


def trace_table(found):
    lines = ["### Held out against PyTorch's kernels (the H200 traces)", "",
             "The kernels of data/measured/h200/traces (PyTorch's own, CUPTI times) whose "
             "shape and number type the database has: how perf-bench's kernel compares with "
             "PyTorch's, and the default stack (shipped models, catalog H200) against each.",
             "",
             "| group | kernels | perf-bench / PyTorch (median) | default stack vs PyTorch: "
             "GMAE, median ratio | default stack vs perf-bench, same shapes: GMAE |",
             "|---|---:|---:|---|---:|"]
    for key in sorted(found, key=order):
        triples = found[key]
        ratio = sorted(b / t for t, b, _ in triples)
        vs_torch = stats([(m, t) for t, _, m in triples])
        vs_bench = stats([(m, b) for _, b, m in triples])
        lines.append("| %s | %d | %.2f | %.1f%%, %.2f | %.1f%% |" % (
            key, len(triples), percentile(ratio, 0.5), vs_torch["gmae"], vs_torch["ratio"],
            vs_bench["gmae"]))
    return lines


TIME_BINS = [(0, 5), (5, 20), (20, 100), (100, 1000), (1000, float("inf"))]


def size_table(rows, priced):
    """Markdown: the FP16+BF16 GEMMs held out (catalog H200) by measured
    time, per model of `priced`: median predicted / measured and GMAE."""
    names = list(priced)
    lines = ["### Held out: FP16+BF16 GEMM by measured time", "",
             "| measured | rows | " + " | ".join(
                 "%s: median ratio, GMAE" % m for m in names) + " |",
             "|---|---:|" + "---|" * len(names)]
    for lo, hi in TIME_BINS:
        ids = [i for i, r in rows.items() if r["kind"] == "gemm" and r["dtype"] in ("f16", "bf16")
               and lo <= r["us"] < hi]
        if not ids:
            continue
        cells = []
        for m in names:
            pairs = [(priced[m][i][0], rows[i]["us"]) for i in ids if i in priced[m]]
            s = stats(pairs) if pairs else None
            cells.append("%.2f, %.1f%%" % (s["ratio"], s["gmae"]) if s else "-")
        label = "%g-%g us" % (lo, hi) if hi != float("inf") else "over %g us" % lo
        lines.append("| %s | %d | %s |" % (label, len(ids), " | ".join(cells)))
    return lines


def group_keys(row):
    """The report groups a row belongs to."""
    kind, dtype = row["kind"], row["dtype"]
    keys = []
    if kind == "gemm":
        keys.append("gemm %s M<=%d" % (dtype, DECODE_M) if row["m"] <= DECODE_M
                    else "gemm %s M>%d" % (dtype, DECODE_M))
    else:
        keys.append("%s %s" % (kind, dtype))
    if dtype in ("f16", "bf16"):
        if kind == "gemm":
            keys.append("goal: FP16+BF16 GEMM")
        elif kind in LAYER_KINDS:
            keys.append("goal: FP16+BF16 layer ops")
    keys.append("all")
    return keys


def order(key):
    kinds = ["gemm", "layernorm", "softmax", "reduce", "elementwise", "conv2d", "embedding_bag",
             "memcpy", "transpose", "concat"]
    dtypes = ["f32", "tf32", "f16", "bf16"]
    if key.startswith("goal"):
        return (1, key)
    if key == "all":
        return (2, key)
    parts = key.split()
    return (0, kinds.index(parts[0]) if parts[0] in kinds else 99,
            dtypes.index(parts[1]) if parts[1] in dtypes else 99, parts[2:] != ["M<=64"])


def percentile(sorted_values, q):
    """Linear interpolation between closest ranks."""
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def stats(pairs):
    """GMAE, median and p90 of |error| and the median ratio, in %, of
    (predicted, measured) pairs."""
    errors = sorted(abs(p / m - 1) for p, m in pairs)
    ratios = sorted(p / m for p, m in pairs)
    gmae = math.exp(sum(math.log(max(e, 1e-4)) for e in errors) / len(errors))
    return {"n": len(pairs), "gmae": 100 * gmae, "p50": 100 * percentile(errors, 0.5),
            "p90": 100 * percentile(errors, 0.9), "ratio": percentile(ratios, 0.5)}


def evaluate(rows, priced, subset):
    """Per group: stats of the rows of `subset` the model priced, and the
    group's row count."""
    pairs, totals = {}, {}
    for rowid in subset:
        for key in group_keys(rows[rowid]):
            totals[key] = totals.get(key, 0) + 1
            if rowid in priced:
                pairs.setdefault(key, []).append((priced[rowid][0], rows[rowid]["us"]))
    return {key: (stats(pairs[key]) if key in pairs else None, totals[key]) for key in totals}


def cell(result):
    s, total = result
    if s is None:
        return "-"
    text = "%.1f / %.1f / %.0f" % (s["gmae"], s["p50"], s["p90"])
    if s["n"] < total:
        text += " (%d)" % s["n"]
    return text


def table(title, results, note):
    """Markdown: per group, each model's GMAE / median / p90."""
    keys = sorted(next(iter(results.values())), key=order)
    lines = ["### " + title, "", note, "",
             "| group | rows | " + " | ".join(MODELS) + " |",
             "|---|---:|" + "---|" * len(MODELS)]
    for key in keys:
        total = results[MODELS[0]][key][1]
        lines.append("| %s | %d | %s |" % (key, total, " | ".join(
            cell(results[m][key]) for m in MODELS)))
    return lines


def bias_table(title, scenarios, priced_by):
    """Markdown: the default stack's median predicted/measured per group in
    each scenario, and the models that priced the rows."""
    names = list(scenarios)
    keys = sorted(scenarios[names[0]], key=order)
    lines = ["### " + title, "",
             "| group | " + " | ".join(names) + " | priced by (held out, catalog H200) |",
             "|---|" + "---:|" * len(names) + "---|"]
    for key in keys:
        cells = []
        for name in names:
            s = scenarios[name].get(key, (None, 0))[0]
            cells.append("%.2f" % s["ratio"] if s else "-")
        mix = priced_by.get(key, {})
        lines.append("| %s | %s | %s |" % (key, " | ".join(cells), ", ".join(
            "%s %d" % (m, n) for m, n in sorted(mix.items(), key=lambda x: -x[1]))))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--db", default=os.path.join(ROOT, "data", "measured", "h200", "perf.db.gz"))
    ap.add_argument("--layers",
                    default=os.path.join(ROOT, "data", "measured", "h200", "layers-0.2.db.gz"),
                    help="a later perf-bench database whose rows supersede --db's ('' for none)")
    ap.add_argument("--torch",
                    default=os.path.join(ROOT, "data", "measured", "h200", "torch-layers.db.gz"),
                    help="PyTorch's layer-op kernels on the H200 (torch_layer_ops.py)")
    ap.add_argument("--device-json",
                    default=os.path.join(ROOT, "data", "measured", "h200", "device.json"))
    ap.add_argument("--ml-dir", default=os.path.join(ROOT, "data", "models", "neusight"),
                    help="the shipped model folder (held out)")
    ap.add_argument("--traces",
                    default=os.path.join(ROOT, "data", "measured", "h200", "traces"),
                    help="PyTorch ET + Kineto pairs measured on the H200 ('' to skip)")
    ap.add_argument("--neusight",
                    default=os.path.join(ROOT, "..", "shared", "data", "kernels", "neusight"))
    ap.add_argument("--vidur",
                    default=os.path.join(ROOT, "..", "shared", "data", "kernels", "vidur"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy.md"),
                    help="Markdown file whose Hopper kernels block is replaced ('-': print)")
    ap.add_argument("--max-gmae", action="append", default=[], metavar="KEY=PCT",
                    help="exit 1 when the default stack's GMAE of a goal group exceeds PCT; "
                    "KEY is held-out-gemm, held-out-layer, in-gemm or in-layer (the FP16+BF16 "
                    "groups; held out on the catalog H200)")
    ap.add_argument("--skip-without-data", action="store_true",
                    help="exit 77 (skipped) when the measurements or the training data are absent")
    args = ap.parse_args()

    bounds = {}
    for spec in args.max_gmae:
        key, _, pct = spec.partition("=")
        if key not in ("held-out-gemm", "held-out-layer", "in-gemm", "in-layer") or not pct:
            print("error: --max-gmae takes held-out-gemm|held-out-layer|in-gemm|in-layer=PCT, "
                  "got '%s'" % spec, file=sys.stderr)
            return 2
        bounds[key] = float(pct)
    missing = [p for p in (args.db, args.device_json, args.ml_dir, args.neusight, args.vidur,
                           args.layers or args.db) if not os.path.exists(p)]
    if missing:
        print("%s: no data at %s" % ("skipped" if args.skip_without_data else "error",
                                     ", ".join(missing)), file=sys.stderr)
        return 77 if args.skip_without_data else 2

    start = time.time()
    with tempfile.TemporaryDirectory() as work:
        db = perf_db.unpack(args.db, os.path.join(work, "h200.db"))
        merged = merge_later(db, args.layers, work) if args.layers else None
        rows = read_rows(db)
        try:
            paths, test = split(db, rows, work)
            models_in = os.path.join(work, "models-in")
            train_in(args.build, args.neusight, args.vidur, paths["train"], models_in)
            held = {"h200": {}, "device.json": {}}
            for m in MODELS:
                held["h200"][m] = price(args.build, db, m, args.ml_dir, "h200")
                held["device.json"][m] = price(args.build, db, m, args.ml_dir, args.device_json)
            # The test rows on the spec stored with them (the probe's, as the
            # training rows were).
            inn = {m: price(args.build, paths["test"], m, models_in, "auto") for m in MODELS}
            traced = (trace_check(args.build, args.traces, args.ml_dir, rows, work)
                      if args.traces and os.path.isdir(args.traces) else {})
            torch_rows, torch_held = {}, {}
            if args.torch and os.path.exists(args.torch):
                torch_db = perf_db.unpack(args.torch, os.path.join(work, "torch.db"))
                torch_rows = read_rows(torch_db)
                for where, device in (("h200", "h200"), ("device.json", args.device_json)):
                    torch_held[where] = {m: price(args.build, torch_db, m, args.ml_dir, device)
                                         for m in MODELS}
        except RuntimeError as e:
            print("error: %s" % e, file=sys.stderr)
            return 2
    elapsed = time.time() - start

    everything = set(rows)
    res_catalog = {m: evaluate(rows, held["h200"][m], everything) for m in MODELS}
    res_probe = {m: evaluate(rows, held["device.json"][m], everything) for m in MODELS}
    res_held_test = {m: evaluate(rows, held["h200"][m], test) for m in MODELS}
    res_in = {m: evaluate(rows, inn[m], test) for m in MODELS}

    def goal(results, key):
        s = results["auto"].get(key, (None, 0))[0]
        return s["gmae"] if s else float("nan")

    res_torch = {where: {m: evaluate(torch_rows, priced[m], set(torch_rows)) for m in MODELS}
                 for where, priced in torch_held.items()}
    summary = {
        "held-out-gemm": goal(res_catalog, "goal: FP16+BF16 GEMM"),
        "held-out-layer": goal(res_catalog, "goal: FP16+BF16 layer ops"),
        "in-gemm": goal(res_in, "goal: FP16+BF16 GEMM"),
        "in-layer": goal(res_in, "goal: FP16+BF16 layer ops"),
    }
    priced_by = {}
    for rowid, (_, model) in held["h200"]["auto"].items():
        for key in group_keys(rows[rowid]):
            mix = priced_by.setdefault(key, {})
            mix[model] = mix.get(model, 0) + 1

    def met(value, limit):
        return "met" if value <= limit else "not met"

    lines = [BEGIN,
             "Generated by `bench/kernels/hopper_eval.py` in %.0f s (%d cores): %d H200 rows, "
             "%d of them the test rows of \"in\" (seed %d, %.0f%% of each kind and number type)."
             % (elapsed, os.cpu_count() or 1, len(rows), len(test), SEED, 100 * TEST_FRACTION),
             "",
             ("The rows are %s's with %s's merged in: %d rows of perf-bench 0.2 replace or add "
              "to them, and %d perf-bench 0.1 rows of the kernels 0.2 rewrote (%s) that 0.2 did "
              "not re-measure are left out." % (
                  os.path.relpath(args.db, ROOT), os.path.relpath(args.layers, ROOT),
                  merged[0], merged[1], ", ".join(REWRITTEN_KINDS))
              if merged else "The rows are %s's." % os.path.relpath(args.db, ROOT)),
             "",
             "| default stack (`auto`), GMAE | held out, catalog H200 (all rows) | "
             "held out, probe spec (all rows) | held out, catalog H200 (test rows) | "
             "in (test rows) | goal (in / held out) |",
             "|---|---:|---:|---:|---:|---|"]
    for label, key in (("FP16+BF16 GEMM", "goal: FP16+BF16 GEMM"),
                       ("FP16+BF16 layer ops (layernorm, softmax, element-wise)",
                        "goal: FP16+BF16 layer ops")):
        held_all = goal(res_catalog, key)
        lines.append("| %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | 8%% / 12%%: in %s, held out %s |" % (
            label, held_all, goal(res_probe, key), goal(res_held_test, key), goal(res_in, key),
            met(goal(res_in, key), GOAL["in"]), met(held_all, GOAL["held-out"])))
    if res_torch:
        key = "goal: FP16+BF16 layer ops"
        held_all = goal(res_torch["h200"], key)
        lines.append("| FP16+BF16 layer ops, PyTorch's kernels (torch-layers.db.gz, %d rows) | "
                     "%.1f%% | %.1f%% | - | - | 12%% held out: %s |" % (
                         res_torch["h200"]["auto"][key][1], held_all,
                         goal(res_torch["device.json"], key), met(held_all, GOAL["held-out"])))
    lines.append("")
    lines.append("Cells below: GMAE / median / p90 of |predicted / measured - 1| in %; "
                 "(n) where the model priced only n of the group's rows (ml and tile decline "
                 "number types they have no fit for, the heuristic declines GEMM and conv).")
    lines.append("")
    lines += table("Held out: shipped models, catalog H200 (datasheet figures)", res_catalog,
                   "Every H200 row, `--device=h200`.")
    lines.append("")
    lines += table("Held out: shipped models, measured device spec (device.json)", res_probe,
                   "Every H200 row, `--device=data/measured/h200/device.json` (achieved "
                   "FLOP/s and bandwidth of `perf-bench --probe`).")
    lines.append("")
    lines += table("In: trained with 80% of the H200 rows, scored on the other 20%", res_in,
                   "perf-train --neusight --db train.db --db-weight %d --rounds=%d, then "
                   "--roofline-only with --vidur as well; priced on the probe's spec stored in "
                   "the database." % (DB_WEIGHT, ROUNDS))
    lines.append("")
    lines += bias_table("Default stack: median predicted / measured (1.00 is unbiased)",
                        {"held out, catalog": res_catalog["auto"],
                         "held out, probe spec": res_probe["auto"],
                         "in": res_in["auto"]}, priced_by)
    lines.append("")
    lines += size_table(rows, {"auto": held["h200"]["auto"],
                               "roofline": held["h200"]["roofline"]})
    if traced:
        lines.append("")
        lines += trace_table(traced)
    if res_torch:
        lines.append("")
        lines += table("Held out against PyTorch's layer-op kernels (torch-layers.db.gz)",
                       res_torch["h200"],
                       "The layer norms, softmaxes, row sums and element-wise ops of the layer "
                       "sweeps and of the E2E steps, run by PyTorch 2.11 on the H200 and timed "
                       "by its profiler (CUPTI kernel times, runtime/bench/campaign/"
                       "torch_layer_ops.py); shipped models, `--device=h200`.")
    lines.append(END)
    text = "\n".join(lines) + "\n"
    write_section(args.out, BEGIN, END, text, elapsed)

    failed = False
    for key, limit in sorted(bounds.items()):
        if not summary[key] <= limit:
            print("error: %s GMAE %.1f%% exceeds the bound %.1f%%" % (key, summary[key], limit),
                  file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
