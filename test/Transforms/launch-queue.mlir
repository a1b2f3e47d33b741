// RUN: perf-opt %s --perf-kernel-cost="models=roofline compute-efficiency=1.0 memory-efficiency=1.0" --perf-host-overhead=table=%S/Inputs/overheads-launch-queue.json --perf-critical-path | FileCheck %s
// RUN: perf-opt %s --perf-kernel-cost="models=roofline compute-efficiency=1.0 memory-efficiency=1.0" --perf-host-overhead=table=%S/Inputs/overheads.json --perf-critical-path | FileCheck %s --check-prefix=FREE

// A host overhead table that records the driver's launch queue (perf-trace
// writes the depth it saw a trace's launches fill) puts it on the graph, and
// the critical path blocks a launch while that many kernels are pending.
// Toy GPU: 1 TFLOP/s; each gemm 2 x 500 x 100 x 1000 = 1e8 FLOP -> 100 us.
// T1..T5 = 1..5 us, 1 us kernel gap. Depth 1, by hand:
//   a: host 0+T1+T2 = 3; gemm at 3 + T4/2 = 5..105; host 3+T4+T3 = 10
//   b: host 13; k1 pending: waits to 105; gemm at max(106, 107) = 107..207;
//      host 105+4+3 = 112
//   c: host 115; waits to 207; gemm at max(208, 209) = 209..309; host 214
//   end-to-end 309, the host done at 214.
// Without the queue the host runs ahead (b at 13, c at 23, done at 30) and
// the gemms run back to back: 5..105, 106..206, 207..307.

// CHECK-LABEL: perf.graph @g
// CHECK-SAME: e2e_us = 3.090000e+02
// CHECK-SAME: host_us = 2.140000e+02
// CHECK-SAME: perf.launch_queue_depth = 1 : i64
// FREE-LABEL: perf.graph @g
// FREE-SAME: e2e_us = 3.070000e+02
// FREE-SAME: host_us = 3.000000e+01
// FREE-NOT: perf.launch_queue_depth
perf.graph @g attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>} {
  // CHECK: perf.op "a"
  // CHECK: perf.gemm
  // CHECK-SAME: perf.start_us = 5.000000e+00
  %a = perf.op "a" : () -> tensor<4xf32> {
    perf.gemm {m = 500, n = 100, k = 1000}
  }
  // CHECK: perf.op "b"
  // CHECK: perf.gemm
  // CHECK-SAME: perf.start_us = 1.070000e+02
  %b = perf.op "b" : () -> tensor<4xf32> {
    perf.gemm {m = 500, n = 100, k = 1000}
  }
  // CHECK: perf.op "c"
  // CHECK-SAME: perf.end_us = 2.140000e+02
  // CHECK: perf.gemm
  // CHECK-SAME: perf.start_us = 2.090000e+02
  %c = perf.op "c" : () -> tensor<4xf32> {
    perf.gemm {m = 500, n = 100, k = 1000}
  }
}

