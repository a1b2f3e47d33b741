#!/usr/bin/env bash
# Runs every fuzz target for RUNS inputs (default 1,000,000) from its corpus,
# or MAX_SECONDS (default 1800) if that comes first, and prints a Markdown
# table for docs/reliability.md: executions, seconds, coverage (edges and
# features), inputs found, and the finding if any (a crash-*, timeout-* or
# oom-* file in OUT). Run it again into the same OUT to continue the targets
# that have not reached RUNS.
#
#   fuzz/run_campaign.sh BUILD_DIR [RUNS] [OUT]
set -uo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:?usage: fuzz/run_campaign.sh BUILD_DIR [RUNS] [OUT]}" && pwd)
runs=${2:-1000000}
max_seconds=${MAX_SECONDS:-1800}
out=$(mkdir -p "${3:-fuzz-campaign}" && cd "${3:-fuzz-campaign}" && pwd)
# TARGETS="onnx mlir" runs those only; JOBS=1 runs one target at a time.
targets=${TARGETS:-$(cd fuzz/corpus && ls)}
jobs=${JOBS:-$(nproc)}

# Executions of one libFuzzer log: its final count, or the last status line
# of a run that was stopped.
executions() {
  local n
  n=$(grep -o 'number_of_executed_units: [0-9]*' "$1" | grep -o '[0-9]*$')
  [ -n "$n" ] || n=$(grep -oE '^#[0-9]+' "$1" | tail -1 | tr -d '#')
  echo "${n:-0}"
}

# A second campaign into the same OUT continues each target where the last
# one stopped: from the inputs it kept (found/), for the executions still
# missing; `done` and `seconds` hold the sums over the runs.
run_one() {
  local t=$1
  local dir=$out/$t
  mkdir -p "$dir/found"
  local before=$(cat "$dir/done" 2>/dev/null || echo 0)
  [ -f "$dir/log" ] && before=$(( before + $(executions "$dir/log") ))
  local left=$(( runs - before ))
  if [ "$left" -le 0 ]; then
    return
  fi
  if [ -f "$dir/log" ]; then
    echo "$before" > "$dir/done"
    mv "$dir/log" "$dir/log.$(date +%s)"
  fi
  local start=$(date +%s)
  (cd "$dir" && "$build/fuzz/fuzz-$t" -runs="$left" -max_total_time="$max_seconds" -timeout=10 \
     -rss_limit_mb=2048 -seed=1 -print_final_stats=1 \
     found "$root/fuzz/corpus/$t" > log 2>&1)
  echo $(( $(cat "$dir/seconds" 2>/dev/null || echo 0) + $(date +%s) - start )) > "$dir/seconds"
}
export -f run_one executions
root=$PWD
export build runs max_seconds out root
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}'


echo "| target | executions | seconds | edges | features | inputs found | finding |"
echo "|---|---|---|---|---|---|---|"
for t in $targets; do
  log=$out/$t/log
  execs=$(( $(cat "$out/$t/done" 2>/dev/null || echo 0) + $( [ -f "$log" ] && executions "$log" || echo 0) ))
  last=$(grep -E '^#[0-9]+' "$log" | grep -o 'cov: [0-9]* ft: [0-9]*' | tail -1)
  edges=$(echo "$last" | awk '{print $2}')
  features=$(echo "$last" | awk '{print $4}')
  found=$(ls "$out/$t/found" | wc -l)
  finding=$(cd "$out/$t" && ls crash-* timeout-* oom-* leak-* 2>/dev/null | head -1)
  echo "| $t | ${execs:-?} | $(cat "$out/$t/seconds") | ${edges:-?} | ${features:-?} | $found | ${finding:-none} |"
done
