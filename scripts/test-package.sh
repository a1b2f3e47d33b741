#!/usr/bin/env bash
# ctest package-consumer: installs perf to a temporary prefix, builds the
# out-of-tree examples/consumer against it with find_package(Perf), runs it,
# and checks its figures against the roofline worked out by hand.
#
#   scripts/test-package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT; echo "work: $work"
prefix=$work/prefix

fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
# A second install over the first is an up-to-date no-op, not an error.
cmake --install "$build" --prefix "$prefix" > "$work/install2.log"
# A prefix that cannot be written is an error naming the directory. Root
# writes through permission bits, so the prefix sits below a regular file.
touch "$work/not-a-directory"
if cmake --install "$build" --prefix "$work/not-a-directory/prefix" \
  > "$work/unwritable.log" 2>&1; then
  fail "installing to an unwritable prefix succeeded"
fi
# CMake wraps the message, so the path may start the next line.
tr -s ' \n' ' ' < "$work/unwritable.log" |
  grep -q "cannot create directory: $work/not-a-directory/prefix" ||
  { cat "$work/unwritable.log"; fail "no error naming the unwritable prefix"; }
for f in include/perf-c/Perf.h include/perf/CostModel/KernelCostModel.h \
  include/perf/Dialect/PerfOps.h.inc lib/libperf-c.so lib/pkgconfig/perf.pc \
  lib/cmake/perf/PerfConfig.cmake lib/cmake/perf/PerfTargets.cmake \
  bin/perf-opt share/perf/models/neusight; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

# The installed perf-opt prices with the installed learned models.
env -u PERF_MODEL_DIR "$prefix/bin/perf-opt" --estimate "$src/examples/mlp_training.mlir" \
  > "$work/estimate.txt" || fail "installed perf-opt --estimate"
grep -q "priced by:.* ml=" "$work/estimate.txt" ||
  { cat "$work/estimate.txt"; fail "installed perf-opt did not use the learned models"; }

cmake -S "$src/examples/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" ||
  { cat "$work/configure.log"; fail "configuring the consumer"; }
cmake --build "$work/consumer" > "$work/build.log" ||
  { cat "$work/build.log"; fail "building the consumer"; }

"$work/consumer/fuse-epilogue" A100 | tee "$work/fuse.txt"
"$work/consumer/price-c" | tee "$work/c.txt"

# A100-SXM4-40GB roofline (0.7 of 19.5 TFLOP/s, 0.8 of 1555 GB/s):
#   GEMM 4096 x 4096 x 1024: 2 * 4096 * 4096 * 1024 = 34.36 GFLOP -> 2517.2 us
#   (its 100.7 MB take 80.9 us: compute-bound)
#   ReLU over 16.78 M floats: 134.2 MB read and written -> 107.9 us
#   fused: 34.36 GFLOP + 16.78 M -> 2518.4 us < 2625.1: fuse.
grep -q '^gemm 2517\.[0-9]* us, relu 107\.[0-9]* us, separate 2625\.[0-9]* us, fused 2518\.[0-9]* us$' \
  "$work/fuse.txt" || fail "fuse-epilogue figures"
grep -q '^decision: fuse$' "$work/fuse.txt" || fail "fuse-epilogue decision"
grep -q '^gemm 2517\.[0-9]* us$' "$work/c.txt" || fail "C API figure"
grep -q "^unknown gpu: .*B9000" "$work/c.txt" || fail "C API unknown GPU message"
# The C program needs nothing but libperf-c.so and the C library.
# (Outputs go to files before grep -q: with pipefail, a grep that stops at
# the first match can fail the pipeline through its writer's SIGPIPE.)
readelf -d "$work/consumer/price-c" > "$work/dynamic.txt"
grep NEEDED "$work/dynamic.txt" > "$work/needed.txt" || true
grep -q 'libperf-c.so.0' "$work/needed.txt" || fail "price-c does not need libperf-c"
if grep -q 'libstdc++\|libLLVM\|libMLIR' "$work/needed.txt"; then
  fail "price-c links C++ libraries directly: $(cat "$work/needed.txt")"
fi
ldd "$work/consumer/price-c" > "$work/ldd.txt"
grep -q "libperf-c.so.0 => $prefix/lib" "$work/ldd.txt" ||
  { cat "$work/ldd.txt"; fail "price-c does not load the installed libperf-c.so"; }

# The Python package, where it was built: imported from the prefix (from
# another folder, so the build's is not found), it prices with the
# installed learned models.
if [ -d "$build/python/perf" ]; then
  [ -e "$prefix/lib/python3/dist-packages/perf/__init__.py" ] ||
    fail "not installed: lib/python3/dist-packages/perf"
  (cd "$work" && env -u PERF_MODEL_DIR PYTHONPATH="$prefix/lib/python3/dist-packages" \
    "${PYTHON:-python3}" -c 'import perf; print(perf.__file__); print(perf.kernel_latency("gemm", "V100-PCIe-32GB", m=4096, n=1024, k=1024)["model"])') \
    > "$work/python.txt" 2>&1 || { cat "$work/python.txt"; fail "the installed Python package"; }
  grep -q "^$prefix/lib/python3/dist-packages/perf/__init__.py$" "$work/python.txt" ||
    { cat "$work/python.txt"; fail "python imported perf from elsewhere"; }
  grep -q "^ml$" "$work/python.txt" ||
    { cat "$work/python.txt"; fail "the installed Python package did not use the learned models"; }
fi

# pkg-config finds the C API under the prefix.
if command -v pkg-config > /dev/null; then
  PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs perf > "$work/pkg.txt"
  grep -q -- "-lperf-c" "$work/pkg.txt" || fail "pkg-config --libs perf"
fi

# Every component configures; Perf::Analysis is the earlier name of
# Perf::Schedule.
mkdir -p "$work/all"
printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(all LANGUAGES CXX)' \
  'find_package(Perf REQUIRED COMPONENTS CostModel Schedule Analysis Transforms CAPI)' \
  'foreach(t CostModel Schedule Analysis Transforms CAPI)' \
  '  if(NOT TARGET Perf::${t})' '    message(FATAL_ERROR "no Perf::${t}")' '  endif()' \
  'endforeach()' > "$work/all/CMakeLists.txt"
cmake -S "$work/all" -B "$work/all/build" -DCMAKE_PREFIX_PATH="$prefix" \
  > "$work/all.log" 2>&1 || { cat "$work/all.log"; fail "configuring every component"; }

# A component that does not exist is a clear configure error.
mkdir -p "$work/bad"
printf 'cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES CXX)\nfind_package(Perf REQUIRED COMPONENTS Frobnicate)\n' \
  > "$work/bad/CMakeLists.txt"
if cmake -S "$work/bad" -B "$work/bad/build" -DCMAKE_PREFIX_PATH="$prefix" \
  > "$work/bad.log" 2>&1; then
  fail "an unknown component configured"
fi
grep -q "Perf has no component 'Frobnicate'" "$work/bad.log" ||
  { cat "$work/bad.log"; fail "unknown component message"; }
echo "package-consumer: ok"
