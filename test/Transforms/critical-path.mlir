// RUN: perf-opt %s --perf-kernel-cost="models=roofline compute-efficiency=1.0 memory-efficiency=1.0" --perf-host-overhead=table=%S/Inputs/overheads.json --perf-critical-path | FileCheck %s

// Toy GPU: 1 TFLOP/s, 1 TB/s. gemm 100^3 = 2e6 FLOP -> 2 us (bytes 0.12 us);
// elementwise of 250000 f32 = 2e6 bytes -> 2 us. T1..T5 = 1..5 us, 1 us
// kernel gap. Algorithm 1 by hand:
//   @a: host 0 +T1 +T2 = 3; gemm at 3 + T4/2 = 5..7; host 3+4+T5 = 12;
//       elementwise at max(7+1, 12+2) = 14..16; host 12+4+T3 = 19
//   @b: host 19+1+2 = 22; gemm (stream 1, waits for @a) at max(24, 16) = 24..26;
//       host 22+4+3 = 29
//   end-to-end = max(29, 26) = 29; GPU active 6; idle 23.

// CHECK-LABEL: perf.graph @g
// The last kernel waited for its launch (host), so the path is that kernel.
// CHECK-SAME: perf.estimate = {critical_path = array<i64: 2>
// CHECK-SAME: e2e_us = 2.900000e+01
// CHECK-SAME: gpu_active_us = 6.000000e+00
// CHECK-SAME: host_bound = true
// CHECK-SAME: host_us = 2.900000e+01
// CHECK-SAME: idle_us = 2.300000e+01
// CHECK-SAME: sum_kernel_us = 6.000000e+00
perf.graph @g attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>} {
  // CHECK: perf.op "a"
  // CHECK-SAME: perf.end_us = 1.900000e+01 : f64
  // CHECK-SAME: perf.overhead_us = array<f64: 1.000000e+00, 2.000000e+00, 3.000000e+00, 5.000000e+00>
  // CHECK-SAME: perf.start_us = 0.000000e+00 : f64
  // CHECK-NEXT: perf.gemm
  // CHECK-SAME: perf.cost_model = "roofline"
  // CHECK-SAME: perf.end_us = 7.000000e+00 : f64
  // CHECK-SAME: perf.latency_us = 2.000000e+00 : f64
  // CHECK-SAME: perf.launch_us = 4.000000e+00 : f64
  // CHECK-SAME: perf.start_us = 5.000000e+00 : f64
  // CHECK-NEXT: perf.elementwise
  // CHECK-SAME: perf.end_us = 1.600000e+01 : f64
  // CHECK-SAME: perf.start_us = 1.400000e+01 : f64
  %x = perf.op "a" : () -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
    perf.elementwise {elements = 250000}
  }
  // CHECK: perf.op "b"
  // CHECK-SAME: perf.end_us = 2.900000e+01 : f64
  // CHECK-NEXT: perf.gemm
  // CHECK-SAME: perf.end_us = 2.600000e+01 : f64
  // CHECK-SAME: perf.start_us = 2.400000e+01 : f64
  perf.op "b"(%x) : (tensor<4xf32>) -> () {
    perf.gemm {m = 100, n = 100, k = 100, stream = 1}
  }
}
