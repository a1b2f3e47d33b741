#!/usr/bin/env python3
"""End-to-end step-time accuracy on measured transformer steps.

For every label of a folder laid out like ../shared/data/e2e/neusight
(configs/<model>.json, label/<GPU>/<model>-<inf|train>-<seq>-<batch>.json),
builds the step from the model config with `perf-translate
--import-model-config`, estimates it with `perf-opt --estimate` on that GPU
with each model stack, and writes a Markdown report: per label the measured
and predicted step time and the error, then the mean and worst error per
stack.

    bench/e2e/run_e2e.py [--data DIR] [--build DIR] [--kernels DIR]
                         [--ml-dir DIR] [--out docs/e2e-accuracy.md]
                         [--per-gpu N] [--max-error PCT] [--max-worst PCT]

The ml stack uses a model folder from perf-train: --ml-dir (default: the
folder perf-opt --estimate ships with, data/models/neusight), or one trained
here on the NeuSight kernel measurements (--train --kernels DIR, about 10 s). Exits 2
when a label cannot be built or estimated, 1 when an error bound is exceeded.
"""

import argparse
import json
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from tool_run import run  # noqa: E402

# NeuSight's published errors on these labels (its paper, Table 5 and
# scripts/asplos/summary), where one exists: (gpu, model, phase, seq, batch).
PUBLISHED = {
    ("NVIDIA_A100-PCIE-40GB", "bert_large", "inf", 512, 16): 4.5,
    ("NVIDIA_A100-PCIE-40GB", "bert_large", "inf", 512, 8): 5.4,
}

# The graphs NeuSight measured: BERT inference ran the encoder with a
# sequence classifier, BERT training BertForPreTraining.
HEADS = {("bert_large", "inf"): "classifier", ("bert_large", "train"): "pretraining"}

# The steps ran with input ids of all ones (NeuSight's measure_e2e feeds
# torch.ones, and times the stock HuggingFace Switch MLP: its padded-expert
# patch is applied later, for tracing only). Every token is then the same
# and a Switch router sends all of them to one expert.
ROUTING = "single"

DEFAULT_STACK = "ml,tile,calibrated,heuristic,roofline"
SHIPPED_MODELS = os.path.join(ROOT, "data", "models", "neusight")

LABEL = re.compile(r"^(?P<model>.+)-(?P<phase>inf|train)-(?P<seq>\d+)-(?P<batch>\d+)\.json$")


def gpu_name(folder):
    """The catalog name of a label folder (Tesla_T4 -> tesla t4)."""
    return folder.replace("_", " ").lower()


def estimate(build, config, label, gpu, stack, ml_dir, work):
    step = os.path.join(work, "step.mlir")
    cmd = [os.path.join(build, "bin", "perf-translate"), "--import-model-config", config,
           "--batch=%d" % label["batch"], "--seq=%d" % label["seq"],
           "--expert-routing=" + ROUTING, "-o", step]
    if label["phase"] == "train":
        cmd += ["--phase=training", "--optimizer=none"]
    head = HEADS.get((label["model"], label["phase"]))
    if head:
        cmd.append("--head=" + head)
    run(cmd)
    return estimate_graph(build, step, gpu, stack, ml_dir)["e2e_us"] / 1000.0


def write_report(text, out):
    """The Markdown report to `out`, or to standard output for '-'."""
    if out == "-":
        sys.stdout.write(text)
        return
    with open(out, "w") as f:
        f.write(text)
    print("wrote " + out, file=sys.stderr)


def estimate_graph(build, step, gpu, stack, ml_dir, db=None, overheads=None, flags=(),
                   options=()):
    """perf-opt --estimate's JSON report of the graph in `step` on `gpu` (a
    catalog name, or a device JSON such as perf-bench --probe writes), priced
    by `stack` (None: the stack perf-opt uses with no models option), with the
    host overhead table `overheads` (None: the built-in one). `flags` go to
    perf-opt before --estimate (an ONNX step's --onnx-batch), `options` into
    --estimate (launch-list=FILE)."""
    options = ["format=json"] + list(options)
    if overheads:
        options.append("overheads=" + overheads)
    if stack:
        options.append("models=" + stack)
    models = set(stack.split(",")) if stack else {"auto"}
    if ml_dir and {"ml", "calibrated", "auto"} & models:
        options.append("ml-dir=" + ml_dir)
    if db and "db" in models:
        options.append("db=" + db)
    device = ("--perf-device-file=" if gpu.endswith(".json") else "--perf-device=") + gpu
    cmd = [os.path.join(build, "bin", "perf-opt"), step, device] + list(flags) + [
        "--estimate=" + " ".join(options)]
    return json.loads(run(cmd))["graphs"][0]


def estimate_fx(build, csv, gpu, stack, ml_dir, work, measured):
    """The step of a label's per-node fx CSV: with its measured node times,
    or priced by `stack`. Returns (e2e ms, {kernel kind: ms})."""
    step = os.path.join(work, "fx.mlir")
    run([os.path.join(build, "bin", "perf-translate"), "--import-fx-csv", csv,
         "--fx-measured=" + ("true" if measured else "false"), "-o", step])
    graph = estimate_graph(build, step, gpu, stack, ml_dir)
    kinds = {k: v["us"] / 1000.0 for k, v in graph.get("by_kernel_kind", {}).items()}
    return graph["e2e_us"] / 1000.0, kinds


def labels(data):
    out = []
    label_dir = os.path.join(data, "label")
    for gpu in sorted(os.listdir(label_dir)):
        for name in sorted(os.listdir(os.path.join(label_dir, gpu))):
            m = LABEL.match(name)
            if not m:
                continue  # fusion experiments and the per-node CSVs
            with open(os.path.join(label_dir, gpu, name)) as f:
                measured = json.load(f)
            csv = os.path.join(label_dir, gpu, name[:-len(".json")] + ".csv.gz")
            out.append({"gpu": gpu, "model": m["model"], "phase": m["phase"],
                        "seq": int(m["seq"]), "batch": int(m["batch"]),
                        "measured_ms": measured["e2e_latency"],
                        "csv": csv if os.path.exists(csv) else None})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "shared", "data", "e2e", "neusight"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--ml-dir", default=SHIPPED_MODELS if os.path.isdir(SHIPPED_MODELS) else None,
                    help="perf-train model folder (default: the shipped data/models/neusight, "
                    "which perf-opt --estimate uses by default; --train: train one here)")
    ap.add_argument("--train", action="store_true",
                    help="train the ml stack on --kernels instead of using --ml-dir")
    ap.add_argument("--kernels",
                    default=os.path.join(ROOT, "..", "shared", "data", "kernels", "neusight"),
                    help="kernel measurements to train the ml stack on")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "e2e-accuracy.md"))
    ap.add_argument("--per-gpu", type=int, default=0, help="first N labels of each GPU (0: all)")
    ap.add_argument("--max-error", type=float, default=0,
                    help="exit 1 if the default stack's mean |error| exceeds this (%%)")
    ap.add_argument("--max-worst", type=float, default=0,
                    help="exit 1 if the default stack's worst |error| exceeds this (%%)")
    ap.add_argument("--stack", action="append", help="model stacks to run (default: all)")
    ap.add_argument("--no-fx", dest="fx", action="store_false",
                    help="skip the per-node fx CSV imports")
    ap.add_argument("--skip-without-data", action="store_true",
                    help="exit 77 (skipped) when the data folders are absent")
    args = ap.parse_args()
    training = args.train or not args.ml_dir
    if args.skip_without_data and not (os.path.isdir(args.data) and
                                       (not training or os.path.isdir(args.kernels))):
        print("skipped: no data at %s or %s" % (args.data, args.kernels), file=sys.stderr)
        return 77

    stacks = args.stack or ["roofline", "tile,heuristic,roofline", "calibrated,heuristic,roofline",
                            DEFAULT_STACK]
    todo = labels(args.data)
    if args.per_gpu:
        seen = {}
        todo = [l for l in todo if seen.setdefault(l["gpu"], []).append(l) is None
                and len(seen[l["gpu"]]) <= args.per_gpu]
    rows, unsupported = [], []
    with tempfile.TemporaryDirectory() as work:
        if any({"ml", "calibrated"} & set(s.split(",")) for s in stacks) and \
                (args.train or not args.ml_dir):
            args.ml_dir = os.path.join(work, "ml")
            print("training the ml stack on " + args.kernels, file=sys.stderr)
            run([os.path.join(args.build, "bin", "perf-train"), "--neusight", args.kernels,
                 "-o", args.ml_dir])
        for i, label in enumerate(todo):
            config = os.path.join(args.data, "configs", label["model"] + ".json")
            name = "%s %s-%s-%d-%d" % (label["gpu"], label["model"], label["phase"],
                                       label["seq"], label["batch"])
            print("[%d/%d] %s" % (i + 1, len(todo), name), file=sys.stderr)
            predicted = {}
            try:
                for stack in stacks:
                    predicted[stack] = estimate(args.build, config, label, gpu_name(label["gpu"]),
                                                stack, args.ml_dir, work)
            except RuntimeError as e:
                if "unsupported model_type" in str(e):
                    reason = re.search(r"unsupported model_type '[^']*'", str(e))
                    unsupported.append((name, reason.group(0)))
                    continue
                print("error: " + str(e), file=sys.stderr)
                return 2
            if label["csv"] and args.fx:
                try:
                    gpu = gpu_name(label["gpu"])
                    label["fx_measured"], label["kinds_measured"] = estimate_fx(
                        args.build, label["csv"], gpu, "roofline", None, work, True)
                    label["fx_predicted"], label["kinds_predicted"] = estimate_fx(
                        args.build, label["csv"], gpu, stacks[-1], args.ml_dir, work, False)
                except RuntimeError as e:
                    print("error: " + str(e), file=sys.stderr)
                    return 2
            rows.append((label, predicted))

    def err(label, p):
        return 100.0 * (p - label["measured_ms"]) / label["measured_ms"]

    lines = ["# End-to-end accuracy: transformer steps from their model configs", "",
             "Generated by `bench/e2e/run_e2e.py` (do not edit by hand). Each step is built by",
             "`perf-translate --import-model-config` from the HuggingFace config and estimated by",
             "`perf-opt --estimate --perf-device=<GPU>`; measured step times are the NeuSight labels",
             "(FP32, PyTorch 2.1, one GPU; ../shared/data/e2e). Error = (predicted - measured) / measured.",
             "No stack was fitted on these steps: `roofline` and `tile` use datasheet figures and the",
             "tile model's shipped fit; `%s` is what `perf-opt --estimate` uses" % DEFAULT_STACK,
             "by default (on these five GPUs, which its folder was trained on, the held-out selection",
             "does not apply): its `ml` boosters and `calibrated` fits (data/models/neusight) were trained",
             "by perf-train on the NeuSight *kernel* measurements of the same five GPUs (in distribution",
             "for the kernels, not for these steps). Those measurements time each kernel alone between",
             "two events; the models price a kernel as it runs behind others on a stream, without that",
             "isolated launch.", ""]
    header = "| GPU | model | phase | seq | batch | measured ms | " + " | ".join(
        "%s ms | err %%" % s for s in stacks) + " | NeuSight err % |"
    lines += [header, "|" + "---|" * (6 + 2 * len(stacks) + 1)]
    for label, predicted in rows:
        key = (label["gpu"], label["model"], label["phase"], label["seq"], label["batch"])
        cells = ["%.1f | %+.1f" % (predicted[s], err(label, predicted[s])) for s in stacks]
        pub = PUBLISHED.get(key)
        lines.append("| %s | %s | %s | %d | %d | %.1f | %s | %s |" % (
            label["gpu"], label["model"], label["phase"], label["seq"], label["batch"],
            label["measured_ms"], " | ".join(cells), "%.1f" % pub if pub else ""))
    lines += ["", "## Summary", "", "| stack | labels | mean abs err % | worst abs err % | within 20 % |",
              "|---|---|---|---|---|"]
    failed = False
    for s in stacks:
        errors = [abs(err(l, p[s])) for l, p in rows]
        mean = sum(errors) / len(errors) if errors else 0.0
        lines.append("| %s | %d | %.1f | %.1f | %d |" % (s, len(errors), mean,
                                                       max(errors) if errors else 0.0,
                                                       sum(e <= 20 for e in errors)))
        if s != DEFAULT_STACK and len(stacks) > 1:
            continue
        worst = max(errors) if errors else 0.0
        if args.max_error and mean > args.max_error:
            print("error: stack %s mean |error| %.1f%% exceeds %.1f%%" % (s, mean, args.max_error),
                  file=sys.stderr)
            failed = True
        if args.max_worst and worst > args.max_worst:
            print("error: stack %s worst |error| %.1f%% exceeds %.1f%%" % (s, worst, args.max_worst),
                  file=sys.stderr)
            failed = True
    for key, title in (("gpu", "GPU"), ("model", "model")):
        lines += ["", "Per %s (mean abs err %%):" % title, "",
                  "| %s | labels | " % title + " | ".join(stacks) + " |",
                  "|" + "---|" * (2 + len(stacks))]
        for value in sorted({l[key] for l, _ in rows}):
            mine = [(l, p) for l, p in rows if l[key] == value]
            lines.append("| %s | %d | %s |" % (value, len(mine), " | ".join(
                "%.1f" % (sum(abs(err(l, p[s])) for l, p in mine) / len(mine))
                for s in stacks)))
    fx = [(l, p) for l, p in rows if "fx_measured" in l]
    if fx:
        last = stacks[-1]
        lines += ["", "## The per-node fx graphs", "",
                  "The same steps imported from the labels' per-node torch.fx CSVs "
                  "(`perf-translate --import-fx-csv`): *fx measured* keeps every node's "
                  "measured time (what the per-node measurements add up to, through the "
                  "critical path), *fx %s* prices the same kernels with that stack, "
                  "*config* is the config import above with the same stack." % last, "",
                  "| GPU | model | phase | seq | batch | measured ms | fx measured err %% | "
                  "fx %s err %% | config err %% |" % last, "|---|---|---|---|---|---|---|---|---|"]
        for l, p in fx:
            lines.append("| %s | %s | %s | %d | %d | %.1f | %+.1f | %+.1f | %+.1f |" % (
                l["gpu"], l["model"], l["phase"], l["seq"], l["batch"], l["measured_ms"],
                err(l, l["fx_measured"]), err(l, l["fx_predicted"]), err(l, p[last])))
        n = len(fx)
        lines += ["", "| | mean abs err % |", "|---|---|",
                  "| fx measured | %.1f |" % (sum(abs(err(l, l["fx_measured"])) for l, _ in fx) / n),
                  "| fx %s | %.1f |" % (last, sum(abs(err(l, l["fx_predicted"])) for l, _ in fx) / n),
                  "| config %s | %.1f |" % (last, sum(abs(err(l, p[last])) for l, p in fx) / n)]
        # Training graphs measure the backward per node, not per kernel kind.
        fx = [(l, p) for l, p in fx if l["phase"] == "inf"]
        n = len(fx)
        kinds = sorted({k for l, _ in fx for k in l["kinds_measured"]})
        lines += ["", "Where the remaining error is: device time per kernel kind over the %d "
                  "inference fx graphs, predicted by %s against the measured node times (ms, "
                  "and the kind's share of the total difference)." % (n, last), "",
                  "| kind | measured ms | predicted ms | difference ms | share of difference % |",
                  "|---|---|---|---|---|"]
        totals = {k: (sum(l["kinds_measured"].get(k, 0) for l, _ in fx),
                      sum(l["kinds_predicted"].get(k, 0) for l, _ in fx)) for k in kinds}
        absdiff = sum(abs(b - a) for a, b in totals.values()) or 1.0
        for k in sorted(kinds, key=lambda k: -abs(totals[k][1] - totals[k][0])):
            a, b = totals[k]
            lines.append("| %s | %.1f | %.1f | %+.1f | %.1f |" % (k, a, b, b - a,
                                                                100.0 * abs(b - a) / absdiff))
        # The same comparison per GPU: measured node time over predicted,
        # by kind. A GPU whose kernels run faster in the steps than in the
        # kernel measurements the models learned from shows below 1.
        gpus = sorted({l["gpu"] for l, _ in fx})
        shown = [k for k in kinds if totals[k][0] > 0.01 * sum(a for a, _ in totals.values())]
        lines += ["", "Measured node time over predicted, per GPU and kind (sums over the "
                  "GPU's inference fx graphs; below 1: the steps ran those kernels faster "
                  "than the models, trained on the kernel measurements, price them):", "",
                  "| GPU | " + " | ".join(shown) + " |", "|" + "---|" * (1 + len(shown))]
        for g in gpus:
            cells = []
            for k in shown:
                a = sum(l["kinds_measured"].get(k, 0) for l, _ in fx if l["gpu"] == g)
                b = sum(l["kinds_predicted"].get(k, 0) for l, _ in fx if l["gpu"] == g)
                cells.append("%.2f" % (a / b) if b > 0 else "-")
            lines.append("| %s | %s |" % (g, " | ".join(cells)))
    lines += ["", "## Why the worst labels stay off", "",
              "The steps were measured with `input_ids` of all ones (NeuSight's collect_label.py),",
              "the kernel measurements the models learn from with `torch.randn` operands. On",
              "power-capped boards the clock follows the power the data draws, so the same GEMM",
              "runs at different speeds in the two sets. Read from the data, not fitted:",
              "",
              "- T4 (70 W): the GPT2-Large batch-8 step runs its 8192x1280x1280 addmm at 3.58 ms,",
              "  7.5 TFLOP/s, 92% of the boost-clock peak; the T4 linear rows of comparable size",
              "  (min(m, n, k) >= 512, 1-16 ms) run at a median 3.1-3.7 TFLOP/s. The T4 GEMM nodes",
              "  of each step take 0.74-0.89x what the models price from those rows (the table",
              "  above sums them per GPU).",
              "- P4 (75 W): the rows slow from 2.8 TFLOP/s under 1 ms to 0.7 at seconds (the board",
              "  throttles as a kernel runs); the BERT batch-16 step takes 2.34x the batch-8 one for",
              "  2x the work, and its per-node GEMMs run at 1.5-2.8 TFLOP/s against 1.6-3.8 at batch",
              "  8: the labels themselves carry the throttle state of their run.",
              "- Switch-XL: with all-ones inputs every token's hidden state is the same (T5 has no",
              "  absolute positions, and attention over equal values returns them), every token goes",
              "  to one expert, and the A100 batch-1 step implies 12.6 TFLOP/s over 2.8 TFLOP of",
              "  FP32 work while the A100 rows near its GEMM shapes run at 4-12 TFLOP/s.",
              "",
              "A user's step on real data draws the power of random operands, which is what the",
              "models price; no measurement here (clocks or power during the runs) would let a",
              "model tell the two apart, so the gap is reported rather than fitted away."]
    if unsupported:
        lines += ["", "Labels not estimated (model family not imported yet):", ""]
        lines += ["- %s: %s" % u for u in unsupported]
    write_report("\n".join(lines) + "\n", args.out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
