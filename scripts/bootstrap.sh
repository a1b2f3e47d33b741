#!/usr/bin/env bash
# Installs every system package the build and the tests need. Idempotent: a
# package already present is left alone, so a second run is a quick no-op.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build git ca-certificates
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  libsqlite3-dev sqlite3 zlib1g-dev libzstd-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libxgboost-dev
  nlohmann-json3-dev libcli11-dev libsimdjson-dev
  python3 python3-onnx python3-dev pybind11-dev python3-jsonschema
  # GNU time: bench/speed measures the peak memory of small runs with it.
  time
)
# --sanitizers: what the ASan/UBSan and libFuzzer build needs (.ci/sanitize).
if [ "${1:-}" = "--sanitizers" ]; then
  PACKAGES+=(clang-22 libclang-rt-22-dev libfuzzer-22-dev)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "bootstrap: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
