// RUN: perf-opt %s --perf-host-overhead | FileCheck %s
// RUN: perf-opt %s --perf-host-overhead=table=%S/Inputs/per-op-overheads.json | FileCheck %s --check-prefix=TABLE
// RUN: not perf-opt %s --perf-host-overhead=table=%S/Inputs/bad-overheads.json 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: perf-opt %s --perf-host-overhead=scale=1.5 | FileCheck %s --check-prefix=SCALE
// RUN: not perf-opt %s --perf-host-overhead=scale=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not perf-opt %s --estimate=host-scale=-1 2>&1 | FileCheck %s --check-prefix=FLAG

// Built-in defaults (Lin et al.): T1 8, T2 10, T3 5, T5 5; T4 10.
// CHECK: perf.op "aten::addmm" {{.*}}perf.overhead_us = array<f64: 8.000000e+00, 1.000000e+01, 5.000000e+00, 5.000000e+00>
// CHECK-NEXT: perf.gemm {{.*}}perf.launch_us = 1.000000e+01 : f64
// CHECK: perf.memcpy {{.*}}perf.launch_us = 1.000000e+01 : f64
// TABLE: perf.op "aten::addmm" {{.*}}perf.overhead_us = array<f64: 3.000000e+00, 1.250000e+01, 5.000000e+00, 2.000000e+00>
// TABLE-NEXT: perf.gemm {{.*}}perf.launch_us = 4.500000e+00 : f64
// TABLE: perf.memcpy {{.*}}perf.launch_us = 9.500000e+00 : f64
// A host 1.5 times slower: every overhead times 1.5.
// SCALE: perf.op "aten::addmm" {{.*}}perf.overhead_us = array<f64: 1.200000e+01, 1.500000e+01, 7.500000e+00, 7.500000e+00>
// SCALE-NEXT: perf.gemm {{.*}}perf.launch_us = 1.500000e+01 : f64
// ZERO: error: host overhead scale must be a positive number, got 0
// FLAG: error: host overhead scale must be a positive number
// BAD: bad-overheads.json:0:0: error: overhead table: ops.aten::addmm.t2 must be a finite non-negative number of microseconds or an object with one as "mean"
perf.graph @g {
  perf.op "aten::addmm" : () -> () {
    perf.gemm {m = 8, n = 8, k = 8}
  }
  perf.op "aten::to" : () -> () {
    perf.memcpy {bytes = 64, kind = #perf.copy<h2d>}
  }
}
