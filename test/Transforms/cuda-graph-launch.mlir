// The host's launch mode (--perf-host-overhead's `launch`, --estimate's
// `launch`). Toy GPU at 1 TFLOP/s: each 100^3 GEMM is 2 us. Built-in
// overheads T1 8, T2 10, T3 5, T4 10 us; kernel gap 1 us.
//
// eager, by hand: @a's host 0 + T1 + T2 = 18, its GEMM at 18 + T4/2 =
// 23..25, host 18 + T4 + T3 = 33; @b's host 33 + 18 = 51, GEMM 56..58, host
// 66. End to end 66 us.
// cuda-graph: one cudaGraphLaunch (T4, 10 us) before the first op and no
// other host time: GEMMs at 10..12 and 13..15 (the gap). End to end 15 us.

// RUN: perf-opt %s --estimate="models=roofline compute-efficiency=1.0 format=json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EAGER
// RUN: perf-opt %s --estimate="models=roofline compute-efficiency=1.0 format=json launch=cuda-graph" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GRAPH
// RUN: perf-opt %s --perf-host-overhead=launch=cuda-graph | FileCheck %s --check-prefix=ATTRS
// RUN: not perf-opt %s --estimate=launch=compiled 2>&1 | FileCheck %s --check-prefix=BAD

// EAGER: "e2e_us": 66,
// GRAPH: "e2e_us": 15,
// ATTRS: perf.op "a" {{.*}}perf.overhead_us = array<f64: 1.000000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00>
// ATTRS-NEXT: perf.gemm {{.*}}perf.launch_us = 0.000000e+00 : f64
// ATTRS: perf.op "b" {{.*}}perf.overhead_us = array<f64: 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00>
// BAD: error: host overhead launch must be auto, eager or cuda-graph, got 'compiled'
perf.graph @g attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>} {
  perf.op "a" : () -> () {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  perf.op "b" : () -> () {
    perf.gemm {m = 100, n = 100, k = 100}
  }
}
