#!/bin/bash
# Trains the model folder perf-opt --estimate uses by default
# (data/models/neusight, see data/models/README.md) from the NeuSight kernel
# measurements: the ml boosters (120 rounds, gzipped), the tile fit and the
# per-GPU launch floors. About 10 s.
#
#   bench/models/train_default.sh [BUILD_DIR] [NEUSIGHT_KERNELS_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
kernels=${2:-$root/../shared/data/kernels/neusight}
out=$root/data/models/neusight
[ -d "$kernels" ] || { echo "error: no kernel measurements at $kernels" >&2; exit 1; }
rm -rf "$out.tmp"
"$build/bin/perf-train" --neusight "$kernels" --rounds=120 -o "$out.tmp"
for f in "$out.tmp"/*.json; do
  case $(basename "$f") in
    launch.json | coverage.json | tile.json) ;;
    *) gzip -9n "$f" ;;
  esac
done
rm -rf "$out"
mv "$out.tmp" "$out"
du -sh "$out"
