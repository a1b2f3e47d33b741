#!/usr/bin/env bash
# Which of NeuSight's distributed GPT layouts fit in memory (its Table of
# distributed training, seed 001): GPT2-Large (sequence 1024, global batch 4
# and 16) and GPT3-XL (sequence 2048, global batch 4) on 4 A100-40GB and 4
# H100-80GB, data parallel (per-GPU batch = global / 4), tensor parallel
# (the whole batch, 4-way Megatron split) and GPipe pipeline parallel (4
# stages, 4 micro-batches of global / 4). Training with AdamW in FP32, as
# NeuSight ran them. Prints a Markdown table: the per-GPU peak perf-opt
# --estimate reports, its verdict and the measured one.
#
#   bench/memory/neusight_oom.sh [build] [configs]
set -euo pipefail
BUILD=${1:-build}
CONFIGS=${2:-../shared/data/e2e/neusight/configs}
if [ ! -d "$CONFIGS" ]; then
  echo "skipped: no configs at $CONFIGS" >&2
  exit 77
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# NeuSight's measured cells: OOM or a step time (fits).
measured() { # model batch layout gpu
  case "$1 $2 $3 $4" in
    "gpt2_large 16 "*" a100"*|"gpt3_xl 4 "*" a100"*|"gpt3_xl 4 dp h100"*) echo OOM ;;
    *) echo fits ;;
  esac
}

echo "| model | global batch | layout | GPU | peak GiB per GPU | predicted | measured |"
echo "|---|---|---|---|---|---|---|"
for gpu in a100-pcie-40gb h100-sxm; do
  for spec in "gpt2_large 1024 4" "gpt2_large 1024 16" "gpt3_xl 2048 4"; do
    set -- $spec
    model=$1 seq=$2 global=$3
    for layout in dp tp pp; do
      case $layout in
        dp) batch=$((global / 4)) pass="--perf-data-parallel=devices=4" ;;
        tp) batch=$global pass="--perf-tensor-parallel=devices=4" ;;
        pp) batch=$((global / 4))
            pass="--perf-pipeline-parallel=devices=4 microbatches=4 schedule=gpipe" ;;
      esac
      "$BUILD/bin/perf-translate" --import-model-config "$CONFIGS/$model.json" \
        --seq=$seq --batch=$batch --phase=training --optimizer=adam -o "$WORK/step.mlir"
      "$BUILD/bin/perf-opt" "$WORK/step.mlir" --perf-device=$gpu "$pass" \
        --estimate-models=roofline --estimate --estimate-format=json > "$WORK/report.json"
      python3 - "$WORK/report.json" "$model" "$global" "$layout" "$gpu" \
        "$(measured $model $global $layout $gpu)" <<'PY'
import json, sys
report, model, batch, layout, gpu, measured = sys.argv[1:]
memory = json.load(open(report))["graphs"][0]["memory"]
peak = max(d["peak_bytes"] for d in memory["devices"]) / 2**30
verdict = "OOM" if memory["out_of_memory"] else "fits"
print("| %s | %s | %s | %s | %.1f | %s | %s%s |" % (
    model, batch, layout, gpu, peak, verdict, measured,
    "" if verdict == measured else " (differs)"))
PY
    done
  done
done
