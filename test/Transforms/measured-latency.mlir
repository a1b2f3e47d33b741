// RUN: perf-opt %s --perf-kernel-cost --perf-comm-cost | FileCheck %s

// Latencies measured on hardware (imported traces) survive the models; the
// unmeasured kernel and collective are priced.
// CHECK: perf.gemm {k = 64 : i64, m = 64 : i64, n = 64 : i64, perf.cost_model = "measured", perf.latency_us = 1.234500e+01 : f64}
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 64 : i64, n = 64 : i64, perf.cost_model = "roofline"
// CHECK: perf.all_reduce {bytes = 1048576 : i64, group = array<i64: 0, 1>, perf.cost_model = "measured", perf.latency_us = 9.900000e+01 : f64}
// CHECK-NEXT: perf.all_reduce {bytes = 1048576 : i64, group = array<i64: 0, 1>, perf.algorithm = {{.*}}, perf.cost_model = "nccl"
perf.graph @g attributes {target = #perf.gpu<"A100">} {
  perf.op "mm" : () -> () {
    perf.gemm {m = 64, n = 64, k = 64, perf.latency_us = 12.345, perf.cost_model = "measured"}
    perf.gemm {m = 64, n = 64, k = 64}
  }
  perf.op "nccl:all_reduce" : () -> () {
    perf.all_reduce {bytes = 1048576, group = array<i64: 0, 1>, perf.latency_us = 99.0, perf.cost_model = "measured"}
    perf.all_reduce {bytes = 1048576, group = array<i64: 0, 1>}
  }
}
