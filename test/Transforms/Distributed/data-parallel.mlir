// RUN: perf-opt %s --split-input-file --perf-data-parallel="devices=4 bucket-mb=1" | FileCheck %s
// RUN: perf-opt %s --split-input-file --perf-data-parallel="devices=2 bucket-mb=1" --perf-kernel-cost="compute-efficiency=1.0 memory-efficiency=1.0" --perf-comm-cost=system=dgx-a100 --perf-critical-path=kernel-gap-us=0 | FileCheck %s --check-prefix=TIME
// RUN: not perf-opt %S/Inputs/dp-inference.mlir --perf-data-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=NOGRAD
// RUN: not perf-opt %s --perf-data-parallel=devices=0 2>&1 | FileCheck %s --check-prefix=ZERO

// NOGRAD: error: --perf-data-parallel: graph @inference produces no gradients
// ZERO: error: --perf-data-parallel: devices and bucket-mb must be positive

// Buckets of 1 MiB = 1048576 bytes in backward order: b1 + b2 = 1.2e6 fills
// the first; b3 (3e5) + b4 (wgrad GEMM 256 x 256 f32 = 262144) are the last.
// CHECK-LABEL: perf.graph @buckets
// CHECK-SAME: perf.data_parallel = 4
// CHECK-SAME: perf.grad_bytes = 1762144
// CHECK: perf.op "b2"
// CHECK-NEXT: perf.gemm
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "ddp::all_reduce"
// CHECK-SAME: perf.bucket = 0
// CHECK-NEXT: perf.all_reduce {bytes = 1200000 : i64, group = array<i64: 0, 1, 2, 3>, stream = 1 : i64}
// CHECK: perf.op "b3"
// CHECK: perf.op "b4"
// CHECK-NEXT: perf.gemm
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "ddp::all_reduce"
// CHECK-SAME: perf.bucket = 1
// CHECK-NEXT: perf.all_reduce {bytes = 562144 : i64
// CHECK: perf.sync {stream = 1 : i64}
// CHECK-NEXT: perf.op "sgd"
perf.graph @buckets attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %x = perf.op "fwd" : () -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %a = perf.op "b1"(%x) {perf.grad_bytes = 600000} : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  %b = perf.op "b2"(%a) {perf.grad_bytes = 600000} : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  %c = perf.op "b3"(%b) {perf.grad_bytes = 300000} : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  perf.op "b4"(%c) : (tensor<4xf32>) -> () {
    perf.gemm {m = 256, n = 256, k = 64, pass = #perf.pass<wgrad>}
  }
  perf.op "sgd" : () -> () {
    perf.optimizer {elements = 1000}
  }
}

// -----

// Toy GPU at 1 TFLOP/s: a 100^3 GEMM takes 2 us, a 200^3 GEMM 16 us.
// all_reduce of 2.1e6 bytes over 2 GPUs of dgx-a100, NCCL's ring Simple (2
// steps; bus bandwidth 240 GB/s x 2/2):
//   8.4 + 2 x 3.4 + 2.1e6 / 240000 = 15.2 + 8.75 = 23.95 us
// (LL128 17.8 + 9.51, LL 7.8 + 23.95, tree Simple 16.4 + 31.7).
// b1 [0, 2]; bucket 0 on stream 1 [2, 25.95] overlaps b2 [2, 18];
// bucket 1 waits for bucket 0: [25.95, 49.9]. Device 0 computes 18 us, so
// 7.95 + 23.95 = 31.9 us of communication are exposed; device 1 only
// communicates (47.9 us).
// TIME-LABEL: perf.graph @overlap
// TIME-SAME: devices = [{active_us = 4.990000e+01 : f64, device = 0 : i64, end_us = 4.990000e+01 : f64, exposed_comm_us = 3.190000e+01 : f64
// TIME-SAME: {active_us = 4.790000e+01 : f64, device = 1 : i64, end_us = 4.990000e+01 : f64, exposed_comm_us = 4.790000e+01 : f64
// TIME-SAME: e2e_us = 4.990000e+01
// TIME: perf.op "ddp::all_reduce"
// TIME-NEXT: perf.all_reduce
// TIME-SAME: perf.end_us = 2.595000e+01 : f64, perf.latency_us = 2.395000e+01 : f64, perf.protocol = "Simple", perf.start_us = 2.000000e+00 : f64
// TIME: perf.op "ddp::all_reduce"
// TIME-NEXT: perf.all_reduce
// TIME-SAME: perf.end_us = 4.990000e+01 : f64, perf.latency_us = 2.395000e+01 : f64, perf.protocol = "Simple", perf.start_us = 2.595000e+01 : f64
perf.graph @overlap attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  %a = perf.op "b1" {perf.grad_bytes = 2100000} : () -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  perf.op "b2"(%a) {perf.grad_bytes = 2100000} : (tensor<4xf32>) -> () {
    perf.gemm {m = 200, n = 200, k = 200, pass = #perf.pass<dgrad>}
  }
}
