#!/usr/bin/env bash
# Scaling benchmark of the estimate pipeline (not a timed test).
#
#   bench/scale/run.sh [build-dir] [sizes...]
#
# For synthetic graphs of 1k, 10k and 100k kernels (gen_graph.py), the
# largest shared ONNX model and a ResNet-50 batch-64 training step, prints
# a markdown table of: wall and user seconds of the whole perf-opt run
# (parse, passes, output), seconds spent in the estimate passes alone
# (-mlir-timing), and peak RSS (/usr/bin/time -v). The machine's load
# average is printed too: wall times on a shared machine are noisy.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
sizes=${*:-1000 10000 100000}
opt=$build/bin/perf-opt
translate=$build/bin/perf-translate
onnx_dir=$root/../shared/data/onnx
[ -x "$opt" ] || { echo "error: $opt not built (ninja perf-opt)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) is needed" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure NAME KERNELS FILE: one table row for `perf-opt FILE --estimate`
# (the roofline, as the baseline prices kernels).
measure() {
  local name=$1 kernels=$2 file=$3
  /usr/bin/time -v "$opt" "$file" --perf-device=A100 --estimate=models=roofline \
    -mlir-timing > /dev/null 2> "$work/log"
  local wall user rss passes
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0;
    for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$work/log")
  user=$(awk -F': ' '/User time/ {print $2}' "$work/log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$work/log")
  # Wall time of every pass of the pipeline (not Parser, Output, Rest).
  passes=$(awk '/Wall Time/ {on = 1; next} on && NF >= 4 && $NF != "Total" &&
    $NF != "Parser" && $NF != "Output" && $NF != "Rest" {s += $1}
    END {printf "%.3f", s}' "$work/log")
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$kernels" "$wall" \
    "$user" "$passes" "$rss"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo
echo "| input | kernels | wall s | user s | estimate passes s | peak RSS MiB |"
echo "| --- | --- | --- | --- | --- | --- |"
for n in $sizes; do
  python3 "$root/bench/scale/gen_graph.py" "$n" > "$work/g$n.mlir"
  measure "synthetic" "$n" "$work/g$n.mlir"
done

if [ -x "$translate" ] && [ -d "$onnx_dir" ]; then
  largest=$(ls -S "$onnx_dir"/*.onnx | head -1)
  /usr/bin/time -f "%e %M" -o "$work/import" \
    "$translate" --import-onnx "$largest" -o "$work/largest.mlir" 2> /dev/null
  k=$(grep -c 'perf\.[a-z_0-9]* {' "$work/largest.mlir" || true)
  measure "$(basename "$largest") (import $(cut -d' ' -f1 "$work/import") s)" "$k" "$work/largest.mlir"
  "$translate" --import-onnx "$onnx_dir/light_resnet50.onnx" --onnx-batch=64 |
    "$opt" --perf-synthesize-training -o "$work/r50train.mlir"
  k=$(grep -c 'perf\.[a-z_0-9]* {' "$work/r50train.mlir" || true)
  measure "ResNet-50 training, batch 64" "$k" "$work/r50train.mlir"
fi
