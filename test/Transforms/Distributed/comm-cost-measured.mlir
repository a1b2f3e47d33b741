// RUN: perf-opt %s --perf-comm-cost | FileCheck %s
// RUN: perf-opt %s --perf-device=A100-SXM4-80GB --estimate=models=roofline | FileCheck %s --check-prefix=STEP

// A collective measured on the hardware (an imported trace) keeps its time:
// --perf-comm-cost prices only the others, and a graph whose collectives are
// all measured needs neither a system nor a target GPU.
perf.graph @measured_only {
  perf.op "nccl:all_reduce" : () -> () {
    perf.all_reduce {bytes = 1048576, group = array<i64: 0, 1>, perf.latency_us = 123.5 : f64, perf.cost_model = "measured"}
  }
}
// CHECK-LABEL: perf.graph @measured_only
// CHECK: perf.all_reduce
// CHECK-SAME: perf.cost_model = "measured"
// CHECK-SAME: perf.latency_us = 1.235000e+02

// Beside one that is not measured, on a target GPU: that one is NCCL's.
perf.graph @mixed attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  perf.op "nccl:all_reduce" : () -> () {
    perf.all_reduce {bytes = 1048576, group = array<i64: 0, 1>, perf.latency_us = 123.5 : f64, perf.cost_model = "measured"}
  }
  perf.op "nccl:all_gather" : () -> () {
    perf.all_gather {bytes = 1048576, group = array<i64: 0, 1>}
  }
}
// CHECK-LABEL: perf.graph @mixed
// CHECK: perf.all_reduce
// CHECK-SAME: perf.cost_model = "measured"
// CHECK-SAME: perf.latency_us = 1.235000e+02
// CHECK: perf.all_gather
// CHECK-SAME: perf.cost_model = "nccl"

// The estimate keeps the measured time too: the all_reduce is its 123.5 us,
// starting 23 us in, after its op's host time from the built-in overhead table.
// STEP: perf estimate: @measured_only
// STEP: end-to-end time        146.500 us
// STEP: priced by: measured=1
// STEP: perf estimate: @mixed
// STEP: priced by: measured=1 nccl=1
