// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=2 schedule=gpipe" --perf-data-parallel=devices=2 | FileCheck %s
// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=2 schedule=gpipe" --perf-data-parallel=devices=2 --perf-kernel-cost --perf-comm-cost="system=dgx-a100 algorithm=ring" | FileCheck %s --check-prefix=COST

// 2 pipeline stages x 2 data-parallel replicas on 4 GPUs: replica r's stage
// s is device 2r + s. Stage 0 runs f1 and b1, stage 1 f2 and b2 (the first
// backward op goes to the last stage). Each stage reduces its own gradients
// with the same stage of the other replica, once a step: after the last
// micro-batch's backward op, on stream 3 (the pipeline's sends use 1-2).
// Stage 0: b1's 1e6 B over {0, 2}; stage 1: b2's 2e6 B over {1, 3}.
// On dgx-a100, NCCL's ring over 2 GPUs (2 steps, bus 240 GB/s x 2/2):
//   1e6 B: LL 6.6 + 2 x 0.6 + 1e6 / 87700 (llMaxBw) = 19.2025 us (Simple
//   15.2 + 4.1667 = 19.3667, LL128 17.8 + 4.529)
//   2e6 B: Simple 8.4 + 2 x 3.4 + 2e6 / 240000 = 23.5333 us (LL128
//   17.8 + 9.058, LL 7.8 + 22.805)
// CHECK-LABEL: perf.graph @pp
// CHECK-SAME: perf.data_parallel = 2
// CHECK-SAME: perf.grad_bytes = 3000000
// CHECK: perf.op "b2"(%{{.*}}) {device = 1 : i64, perf.grad_bytes = 2000000 : i64, perf.microbatch = 1
// CHECK-NEXT: perf.gemm
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "ddp::all_reduce"
// CHECK-SAME: device = 1
// CHECK-NEXT: perf.all_reduce {bytes = 2000000 : i64, device = 1 : i64, group = array<i64: 1, 3>, stream = 3 : i64}
// CHECK: perf.op "b1"(%{{.*}}) {perf.grad_bytes = 1000000 : i64, perf.microbatch = 1
// CHECK-NEXT: perf.gemm
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "ddp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 1000000 : i64, group = array<i64: 0, 2>, stream = 3 : i64}
// CHECK: perf.sync {stream = 3 : i64}
// CHECK-NEXT: perf.op "sgd"
// CHECK: perf.sync {device = 1 : i64, stream = 3 : i64}
// CHECK-NEXT: perf.op "sgd"
// COST: perf.all_reduce {bytes = 2000000 : i64, device = 1 : i64, group = array<i64: 1, 3>, perf.algorithm = "ring", perf.cost_model = "nccl", perf.latency_us = 23.533{{[0-9]*}} : f64, perf.protocol = "Simple", stream = 3 : i64}
// COST: perf.all_reduce {bytes = 1000000 : i64, group = array<i64: 0, 2>, perf.algorithm = "ring", perf.cost_model = "nccl", perf.latency_us = 19.202{{[0-9]*}} : f64, perf.protocol = "LL", stream = 3 : i64}

perf.graph @pp attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  %a = perf.op "f1" : () -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %b = perf.op "f2"(%a) : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %c = perf.op "b2"(%b) {perf.grad_bytes = 2000000} : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  perf.op "b1"(%c) {perf.grad_bytes = 1000000} : (tensor<4xf32>) -> () {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  perf.op "sgd" : () -> () {
    perf.optimizer {elements = 1000}
  }
}
