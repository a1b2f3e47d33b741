#!/bin/sh
# Refits the collective calibrations of bench/collectives/systems/*.json on
# the measured NCCL tables and regenerates the validation tables of
# docs/distributed.md (between the perf-comm-eval markers) in one go.
#
#   bench/collectives/update-docs.sh [DATA_DIR]
#
# DATA_DIR defaults to ../shared/data/collectives beside the checkout; the
# tools come from $BUILD (default build/).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
data=${1:-$root/../shared/data/collectives}
doc=$root/docs/distributed.md
begin='<!-- perf-comm-eval: begin (bench/collectives/update-docs.sh) -->'
end='<!-- perf-comm-eval: end -->'

grep -qxF "$begin" "$doc" || { echo "$doc: no '$begin' line" >&2; exit 1; }
grep -qxF "$end" "$doc" || { echo "$doc: no '$end' line" >&2; exit 1; }
tables=$(mktemp)
spliced=$(mktemp)
trap 'rm -f "$tables" "$spliced"' EXIT
"$build/bin/perf-comm-eval" --data="$data" --write >"$tables"
awk -v begin="$begin" -v end="$end" -v tables="$tables" '
  $0 == begin { print; while ((getline line < tables) > 0) print line; skip = 1; next }
  $0 == end { skip = 0 }
  !skip { print }
' "$doc" >"$spliced"
cat "$spliced" >"$doc"
echo "updated $doc and $root/bench/collectives/systems/*.json"
