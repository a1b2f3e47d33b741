#!/usr/bin/env python3
"""The analytic LLM kernel models, in training and held out.

Scores the two models fitted on what the project measured on an H200
(data/measured/h200), each against every measured row it can price:

  tensorcore  perf-bench's tensor-core GEMMs (perf.db.gz: TF32, FP16, BF16,
              CUPTI kernel times). "in" is the shipped fit
              (data/models/neusight/tensorcore.json, fitted on every row);
              "held out" refits with perf-train --analytic-only on all but
              one shape family (decode-sized M <= 64, 64 < M <= 1024,
              M > 1024, batched) and prices that family. Rows that ran
              cuBLAS's fallback kernels for misaligned operands, or that
              the alignment factor takes for misaligned (the factor's
              business), are left out of both. Another
              GPU: Vidur's FP16 projections on the A100-80GB and the A40
              (../shared/data/kernels/vidur, timed alone between events),
              priced by the H200 fit on their catalog figures. Each GPU
              held out: tensorcore refitted on the other two GPUs' FP16
              and BF16 rows and scored on the third's, against the
              roofline.
  flash       PyTorch's fused attention (attention.csv, timed from the host
              around each call; only the calls the GPU's time dominates,
              perf-train's rule: forward 150 us and more, forward and
              backward 1000 us and more). "in": the shipped fit
              (flash.json); "held out": refitted without one family (head
              size 64 or 128, causal or not) and scored on it.

The plain roofline (0.7 / 0.8 of the datasheet) and, for GEMMs, the
calibrated roofline of the shipped folder price the same rows. Cells: the
mean |predicted / measured - 1| of rows of 10 us or more (MAPE, the LLM
issue's measure), GMAE (docs/accuracy.md's) over every row, and the rows.

    bench/kernels/llm_kernels.py [--build DIR] [--vidur DIR] [--out docs/accuracy.md | -]
        [--max-mape KEY=PCT ...] [--skip-without-data]

About 20 s on two cores. Exits 2 when a tool fails, 1 when a --max-mape
bound is exceeded (keys: gemm-in, gemm-held-out for the BF16
GEMMs, attention-in, attention-held-out), 77 with --skip-without-data when the data is absent.
"""

import argparse
import csv
import math
import os
import shutil
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from doc_section import write_section  # noqa: E402
from tool_run import run  # noqa: E402
import perf_db  # noqa: E402

BEGIN = "<!-- BEGIN LLM KERNELS (bench/kernels/llm_kernels.py) -->"
END = "<!-- END LLM KERNELS -->"
H200 = os.path.join(ROOT, "data", "measured", "h200")
SHIPPED = os.path.join(ROOT, "data", "models", "neusight")
FALLBACK = ("align1", "align2", "cutlass_75")
MIN_US = 10.0


def mape(pairs):
    big = [abs(p / m - 1) for p, m in pairs if m >= MIN_US]
    return 100 * sum(big) / len(big) if big else float("nan")


def gmae(pairs):
    if not pairs:
        return float("nan")
    logs = [math.log(max(abs(p / m - 1), 1e-4)) for p, m in pairs]
    return 100 * math.exp(sum(logs) / len(logs))


def cell(pairs):
    if not pairs:
        return "-"
    big = sum(1 for _, m in pairs if m >= MIN_US)
    return "%.1f%% / %.1f%% (%d, %d)" % (mape(pairs), gmae(pairs), big, len(pairs))


def gemm_family(row):
    if row["b"] > 1:
        return "batched"
    if row["m"] <= 64:
        return "M <= 64"
    return "64 < M <= 1024" if row["m"] <= 1024 else "M > 1024"


GEMM_FAMILIES = ("M <= 64", "64 < M <= 1024", "M > 1024", "batched")
GEMM_TYPES = ("bf16", "f16", "tf32")


def misaligned(dtype, f):
    """Whether KernelDesc::tensorCoreAlignmentFactor is under 1: a leading
    dimension of the row-major operands (A: k, or m transposed; B: n, or k
    transposed; C: n) whose rows are not 16-byte aligned. perf-bench names
    its operands column-major, so the factor and the kernel cuBLAS ran
    disagree on these rows: they stay out of the fit and the scores."""
    e = 4 if dtype == "tf32" else 2
    m, n, k = int(f["m"]), int(f["n"]), int(f["k"])
    lds = (m if f["ta"] == "1" else k, k if f["tb"] == "1" else n, n)
    return any(ld * e % 16 for ld in lds)


def gemm_rows(db):
    """{rowid: row} of the tensor-core GEMMs on the libraries' main kernels
    with aligned operands."""
    con = sqlite3.connect(db)
    out = {}
    for rowid, dtype, sig, us, name in con.execute(
            "SELECT rowid, dtype, signature, latency_us, kernel_name FROM kernels "
            "WHERE kind = 'gemm' AND dtype IN ('tf32', 'f16', 'bf16')"):
        if any(f in (name or "") for f in FALLBACK):
            continue
        f = dict(p.split("=", 1) for p in sig.split())
        if misaligned(dtype, f):
            continue
        out[rowid] = {"dtype": dtype, "us": us, "b": int(f["b"]), "m": int(f["m"]),
                      "n": int(f["n"]), "k": int(f["k"])}
    con.close()
    return out


def subset_db(db, keep, path):
    """A copy of `db` with only the rows in `keep`."""
    shutil.copy(db, path)
    con = sqlite3.connect(path)
    drop = [(r,) for (r,) in con.execute("SELECT rowid FROM kernels") if r not in keep]
    con.executemany("DELETE FROM kernels WHERE rowid = ?", drop)
    con.commit()
    con.close()
    return path


def price_db(build, db, model, ml_dir, device="h200"):
    """{rowid: predicted us} of perf-eval on the database's rows."""
    out = run([os.path.join(build, "bin", "perf-eval"), "--model=" + model,
               "--ml-dir=" + ml_dir, "--device=" + device, "--output=csv", db])
    prices = {}
    for r in csv.DictReader(out.splitlines()):
        if r["model"] not in ("none", ""):
            prices[int(r["line"])] = float(r["predicted_us"])
    return prices


def fit(build, work, name, db=None, attention=None):
    folder = os.path.join(work, name)
    args = [os.path.join(build, "bin", "perf-train"), "--analytic-only", "-o", folder]
    if db:
        args += ["--db", db]
    if attention:
        args += ["--attention", attention]
    run(args)
    return folder


def score_gemms(build, work, vidur):
    db = perf_db.unpack(os.path.join(H200, "perf.db.gz"), os.path.join(work, "h200.db"))
    rows = gemm_rows(db)
    table = {}
    # In training: the shipped fit, and the baselines, on every row.
    for model in ("tensorcore", "calibrated", "roofline"):
        prices = price_db(build, db, model, SHIPPED)
        for family in GEMM_FAMILIES + ("all",):
            pairs = [(prices[r], rows[r]["us"]) for r in rows if r in prices and
                     (family == "all" or gemm_family(rows[r]) == family)]
            table[(model, "in", family)] = pairs
        for dtype in GEMM_TYPES:
            table[(model, "in", dtype)] = [(prices[r], rows[r]["us"]) for r in rows
                                           if r in prices and rows[r]["dtype"] == dtype]
    # Held out: each family priced by a fit without it.
    held = []
    for family in GEMM_FAMILIES:
        keep = {r for r in rows if gemm_family(rows[r]) != family}
        train = subset_db(db, keep, os.path.join(work, "train.db"))
        folder = fit(build, work, "gemm-without-" + str(len(held)), db=train)
        test = subset_db(db, set(rows) - keep, os.path.join(work, "test.db"))
        prices = price_db(build, test, "tensorcore", folder)
        ids = [r for r in rows if r in prices and r not in keep]
        table[("tensorcore", "held out", family)] = [(prices[r], rows[r]["us"]) for r in ids]
        held += [(prices[r], rows[r]["us"], rows[r]["dtype"]) for r in ids]
    table[("tensorcore", "held out", "all")] = [(p, m) for p, m, _ in held]
    for dtype in GEMM_TYPES:
        table[("tensorcore", "held out", dtype)] = [(p, m) for p, m, t in held if t == dtype]
    # Other GPUs: Vidur's FP16 projections on the A100-80GB and the A40.
    other = {}
    if vidur and os.path.isdir(vidur):
        for gpu in ("a100", "a40"):
            folder = os.path.join(vidur, gpu)
            for model in ("tensorcore", "calibrated", "roofline"):
                pairs = []
                for f in sorted(os.listdir(folder)):
                    out = run([os.path.join(build, "bin", "perf-eval"), "--model=" + model,
                               "--ml-dir=" + SHIPPED, "--output=csv",
                               os.path.join(folder, f)])
                    for r in csv.DictReader(out.splitlines()):
                        if r["op"].endswith("proj") and r["model"] not in ("none", ""):
                            pairs.append((float(r["predicted_us"]), float(r["measured_us"])))
                other[(gpu, model)] = pairs
    return table, other


# The GPUs with tensor-core GEMMs measured: the H200's perf-bench rows and
# Vidur's FP16 layer ops on two others, with the perf-eval device of each.
GEMM_GPUS = (("H200-SXM-141GB", "h200"), ("A100-SXM4-80GB", "A100-SXM4-80GB"), ("A40", "A40"))


def gemm_gpu_db(build, work, vidur):
    """One database of every aligned FP16 and BF16 tensor-core GEMM measured
    on a GPU (H200 rows from perf.db.gz, Vidur's rows through perf-train
    --write-db), and {rowid: row}."""
    h200 = perf_db.unpack(os.path.join(H200, "perf.db.gz"), os.path.join(work, "gpus.db"))
    written = os.path.join(work, "vidur.db")
    run([os.path.join(build, "bin", "perf-train"), "--analytic-only", "--db", h200,
         "--vidur", vidur, "--write-db", written, "-o", os.path.join(work, "unused")])
    con = sqlite3.connect(h200)
    con.execute("ATTACH DATABASE ? AS v", (written,))
    con.execute("INSERT OR IGNORE INTO kernels SELECT * FROM v.kernels WHERE kind = 'gemm'")
    con.commit()
    rows = {}
    for rowid, device, dtype, sig, us, name in con.execute(
            "SELECT rowid, device, dtype, signature, latency_us, kernel_name FROM kernels "
            "WHERE kind = 'gemm' AND dtype IN ('f16', 'bf16')"):
        f = dict(p.split("=", 1) for p in sig.split())
        if any(x in (name or "") for x in FALLBACK) or misaligned(dtype, f):
            continue
        rows[rowid] = {"device": device, "dtype": dtype, "us": us}
    con.close()
    return h200, rows


def score_gemm_gpus(build, work, vidur):
    """FP16 and BF16 tensor-core GEMMs with each GPU held out: tensorcore
    fitted on the other GPUs' rows against the roofline (no fit), on the
    held-out GPU's rows. {(gpu, model): pairs}."""
    if not vidur or not os.path.isdir(vidur):
        return {}
    db, rows = gemm_gpu_db(build, work, vidur)
    out = {}
    for device, eval_device in GEMM_GPUS:
        test_ids = {r for r in rows if rows[r]["device"] == device}
        train = subset_db(db, set(rows) - test_ids, os.path.join(work, "train-gpus.db"))
        folder = fit(build, work, "gemm-without-" + eval_device, db=train)
        test = subset_db(db, test_ids, os.path.join(work, "test-gpus.db"))
        for model, ml_dir in (("tensorcore", folder), ("roofline", SHIPPED)):
            prices = price_db(build, test, model, ml_dir, device=eval_device)
            out[(device, model)] = [(prices[r], rows[r]["us"]) for r in test_ids if r in prices]
    return out


def attention_calls():
    path = os.path.join(H200, "attention.csv")
    calls = list(csv.DictReader(open(path)))
    bound = [c for c in calls
             if float(c["latency_us"]) >= (1000 if c["pass"] != "fwd" else 150)]
    return path, calls, bound


def attention_family(call):
    return "d=%s %s" % (call["d"], "causal" if call["causal"] == "1" else "full")


def price_calls(perf, calls, models, ml_dir):
    model = perf.CostModel(models=models, ml_dir=ml_dir)
    out = []
    for c in calls:
        kw = dict(batch=int(c["b"]), heads=int(c["h"]), seq=int(c["s"]),
                  head_dim=int(c["d"]), dtype=c["dtype"], causal=c["causal"] == "1")
        t = model.latency("attention", "h200", **kw)["latency_us"]
        if c["pass"] != "fwd":
            t += model.latency("attention", "h200", **kw, **{"pass": "bwd"})["latency_us"]
        out.append((t, float(c["latency_us"])))
    return out


def score_attention(build, work):
    sys.path.insert(0, os.path.join(build, "python"))
    import perf  # noqa: E402
    path, _, bound = attention_calls()
    header = open(path).readline()
    families = sorted({attention_family(c) for c in bound})
    table = {}
    for models, name in (("flash", "flash"), ("roofline", "roofline")):
        prices = price_calls(perf, bound, models, SHIPPED)
        for family in families + ["all"]:
            table[(name, "in", family)] = [
                p for p, c in zip(prices, bound)
                if family == "all" or attention_family(c) == family]
        for kind in ("fwd", "fwd+bwd"):
            table[(name, "in", kind)] = [p for p, c in zip(prices, bound) if c["pass"] == kind]
    held = []
    for i, family in enumerate(families):
        train = os.path.join(work, "attention-train.csv")
        with open(train, "w") as f:
            f.write(header)
            w = csv.DictWriter(f, fieldnames=header.strip().split(","))
            for c in bound:
                if attention_family(c) != family:
                    w.writerow(c)
        folder = fit(build, work, "attention-without-%d" % i, attention=train)
        test = [c for c in bound if attention_family(c) == family]
        pairs = price_calls(perf, test, "flash", folder)
        table[("flash", "held out", family)] = pairs
        held += pairs
    table[("flash", "held out", "all")] = held
    return table, families


def report(gemm, other, gpus, attention, families, elapsed):
    lines = [BEGIN, "Generated by `bench/kernels/llm_kernels.py` in %.0f s (2 cores). Cells: "
             "MAPE over rows of %g us or more / GMAE over every row (rows of %g us or more, "
             "rows)." % (elapsed, MIN_US, MIN_US), ""]
    lines += ["### Tensor-core GEMMs on the H200 (perf-bench, CUPTI)", "",
              "| shape family | tensorcore in | tensorcore held out | calibrated | roofline |",
              "|---|---|---|---|---|"]
    for family in GEMM_FAMILIES + ("all",) + GEMM_TYPES:
        lines.append("| %s | %s | %s | %s | %s |" % (
            family if family not in GEMM_TYPES else "all " + family.upper(), cell(gemm[("tensorcore", "in", family)]),
            cell(gemm[("tensorcore", "held out", family)]),
            cell(gemm[("calibrated", "in", family)]), cell(gemm[("roofline", "in", family)])))
    if other:
        lines += ["", "### The H200's GEMM fit on other GPUs: Vidur's FP16 projections", "",
                  "| GPU | tensorcore | calibrated (fitted on these GPUs) | roofline |",
                  "|---|---|---|---|"]
        for gpu, label in (("a100", "A100-SXM4-80GB"), ("a40", "A40")):
            lines.append("| %s | %s | %s | %s |" % (
                label, cell(other[(gpu, "tensorcore")]), cell(other[(gpu, "calibrated")]),
                cell(other[(gpu, "roofline")])))
    if gpus:
        lines += ["", "### Tensor-core GEMMs, each GPU held out (FP16 and BF16)", "",
                  "| held-out GPU | tensorcore fitted on the other two | roofline |",
                  "|---|---|---|"]
        for device, _ in GEMM_GPUS:
            lines.append("| %s | %s | %s |" % (device, cell(gpus[(device, "tensorcore")]),
                                              cell(gpus[(device, "roofline")])))
    lines += ["", "### Fused attention on the H200 (PyTorch SDPA, GPU-bound calls)", "",
              "| family | flash in | flash held out | roofline |", "|---|---|---|---|"]
    for family in families + ["all"]:
        lines.append("| %s | %s | %s | %s |" % (
            family, cell(attention[("flash", "in", family)]),
            cell(attention[("flash", "held out", family)]),
            cell(attention[("roofline", "in", family)])))
    for kind in ("fwd", "fwd+bwd"):
        lines.append("| %s calls | %s | - | %s |" % (
            kind, cell(attention[("flash", "in", kind)]),
            cell(attention[("roofline", "in", kind)])))
    lines += [END, ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--vidur", default=os.path.join(ROOT, "..", "shared", "data", "kernels",
                                                    "vidur"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "accuracy.md"))
    ap.add_argument("--max-mape", action="append", default=[])
    ap.add_argument("--skip-without-data", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(H200, "perf.db.gz")):
        if args.skip_without_data:
            return 77
        print("llm_kernels.py: no H200 measurements in %s" % H200, file=sys.stderr)
        return 2
    bounds = {}
    for b in args.max_mape:
        key, _, pct = b.partition("=")
        if key not in ("gemm-in", "gemm-held-out", "attention-in", "attention-held-out"):
            print("llm_kernels.py: unknown --max-mape key '%s'" % key, file=sys.stderr)
            return 2
        bounds[key] = float(pct)
    start = time.time()
    work = tempfile.mkdtemp(prefix="perf-llm-kernels-")
    try:
        gemm, other = score_gemms(args.build, work, args.vidur)
        gpus = score_gemm_gpus(args.build, work, args.vidur)
        attention, families = score_attention(args.build, work)
    except RuntimeError as e:
        print("llm_kernels.py: a tool failed: %s" % e, file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_section(args.out, BEGIN, END, report(gemm, other, gpus, attention, families,
                                               time.time() - start), time.time() - start)
    measured = {"gemm-in": mape(gemm[("tensorcore", "in", "bf16")]),
                "gemm-held-out": mape(gemm[("tensorcore", "held out", "bf16")]),
                "attention-in": mape(attention[("flash", "in", "all")]),
                "attention-held-out": mape(attention[("flash", "held out", "all")])}
    failed = False
    for key, bound in bounds.items():
        if not measured[key] <= bound:
            print("llm_kernels.py: %s MAPE %.1f%% is over %.1f%%" % (key, measured[key], bound),
                  file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
