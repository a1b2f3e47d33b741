#!/usr/bin/env bash
# Runs every fuzz target for RUNS inputs (default 1,000,000) from its corpus,
# or MAX_SECONDS (default 1800) if that comes first, and prints a Markdown table for docs/reliability.md: executions, seconds,
# coverage (edges and features), inputs found, and the finding if any (a
# crash-*, timeout-* or oom-* file in OUT).
#
#   fuzz/run_campaign.sh BUILD_DIR [RUNS] [OUT]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:?usage: fuzz/run_campaign.sh BUILD_DIR [RUNS] [OUT]}" && pwd)
runs=${2:-1000000}
max_seconds=${MAX_SECONDS:-1800}
out=$(mkdir -p "${3:-fuzz-campaign}" && cd "${3:-fuzz-campaign}" && pwd)
# TARGETS="onnx mlir" runs those only.
targets=${TARGETS:-$(cd fuzz/corpus && ls)}
jobs=$(nproc)

run_one() {
  local t=$1
  local dir=$out/$t
  mkdir -p "$dir/found"
  local start=$(date +%s)
  (cd "$dir" && "$build/fuzz/fuzz-$t" -runs="$runs" -max_total_time="$max_seconds" -timeout=10 \
     -rss_limit_mb=2048 -seed=1 -print_final_stats=1 \
     found "$root/fuzz/corpus/$t" > log 2>&1)
  echo $(( $(date +%s) - start )) > "$dir/seconds"
}
export -f run_one
root=$PWD
export build runs max_seconds out root
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}'


echo "| target | executions | seconds | edges | features | inputs found | finding |"
echo "|---|---|---|---|---|---|---|"
for t in $targets; do
  log=$out/$t/log
  execs=$(grep -o 'number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$')
  last=$(grep -E '^#[0-9]+' "$log" | grep -o 'cov: [0-9]* ft: [0-9]*' | tail -1)
  edges=$(echo "$last" | awk '{print $2}')
  features=$(echo "$last" | awk '{print $4}')
  found=$(ls "$out/$t/found" | wc -l)
  finding=$(cd "$out/$t" && ls crash-* timeout-* oom-* leak-* 2>/dev/null | head -1)
  echo "| $t | ${execs:-?} | $(cat "$out/$t/seconds") | ${edges:-?} | ${features:-?} | $found | ${finding:-none} |"
done
