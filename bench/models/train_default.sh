#!/bin/bash
# Trains the model folder perf-opt --estimate uses by default
# (data/models/neusight, see data/models/README.md) from the NeuSight kernel
# measurements: the ml boosters (120 rounds, gzipped UBJSON), the tile fit and the
# per-GPU launch floors and the held-out model selection; then the calibrated
# roofline (roofline.json) from the NeuSight FP32 and the Vidur FP16
# measurements; then the analytic models' fits (tensorcore.json,
# flash.json) from what the project measured on an H200
# (data/measured/h200). About 2 minutes.
#
#   bench/models/train_default.sh [BUILD_DIR] [NEUSIGHT_KERNELS_DIR] [VIDUR_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
kernels=${2:-$root/../shared/data/kernels/neusight}
vidur=${3:-$root/../shared/data/kernels/vidur}
out=$root/data/models/neusight
for d in "$kernels" "$vidur"; do
  [ -d "$d" ] || { echo "error: no kernel measurements at $d" >&2; exit 1; }
done
rm -rf "$out.tmp"
# --select: each GPU held out in turn, the default stack's models retrained
# on the others; selection.json keeps, per kind and number type, the model
# that priced the held-out GPUs best (the 'auto' stack routes GPUs outside
# the training set by it).
"$build/bin/perf-train" --neusight "$kernels" --rounds=120 --select \
  -o "$out.tmp"
# The boosters stay FP32-only (held out, they price FP16 projections worse
# than the calibrated roofline does: docs/accuracy.md); the roofline is fitted
# on both.
"$build/bin/perf-train" --neusight "$kernels" --vidur "$vidur" --roofline-only \
  -o "$out.tmp"
# retarget=shrunk's weights: how much of a GPU's deviation from these
# boosters carries over to another GPU, fitted on held-out shape folds.
python3 "$(dirname "$0")/../kernels/residual_transfer.py" --neusight "$kernels" \
  --build "$build" --rounds=120 --out "$out.tmp/retarget.json"
# The tensor-core GEMM model on perf-bench's H200 GEMMs (TF32, FP16, BF16),
# the attention model on PyTorch's fused attention timed on the same GPU.
h200=$root/data/measured/h200
gunzip -c "$h200/perf.db.gz" > "$out.tmp/h200.db"
"$build/bin/perf-train" --analytic-only --db "$out.tmp/h200.db" \
  --attention "$h200/attention.csv" -o "$out.tmp"
rm "$out.tmp/h200.db"
gzip -9n "$out.tmp"/*.ubj
rm -rf "$out"
mv "$out.tmp" "$out"
du -sh "$out"
