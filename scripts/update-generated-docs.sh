#!/usr/bin/env bash
# Regenerates docs/generated/ from the ODS (the dialect, its attributes, the
# passes) through the build's perf-docs target.
#
#   scripts/update-generated-docs.sh [build]
set -euo pipefail
BUILD=${1:-build}
cmake --build "$BUILD" --target perf-docs
for doc in Dialects/PerfDialect.md Dialects/PerfAttrs.md PerfPasses.md \
  PerfConversionPasses.md WorkKinds.md; do
  cp "$BUILD/docs/$doc" "docs/generated/$(basename "$doc")"
done
echo "docs/generated/ updated from $BUILD/docs"
