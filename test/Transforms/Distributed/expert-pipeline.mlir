// RUN: perf-opt %s --perf-expert-parallel=devices=4 --perf-pipeline-parallel="devices=2 microbatches=2" | FileCheck %s
// RUN: perf-opt %s --perf-expert-parallel=devices=4 --perf-pipeline-parallel="devices=2 microbatches=2 stride=4" | FileCheck %s --check-prefix=MEGATRON
// RUN: not perf-opt %s --perf-expert-parallel=devices=4 --perf-pipeline-parallel="devices=2 microbatches=2 stride=2" 2>&1 | FileCheck %s --check-prefix=NARROW

// Four experts over four devices, then two pipeline stages. The cut falls
// between the layer's dispatch (stage 0, device 0) and its expert (stage 1,
// device 1). A stage's experts are spread over its data-parallel replicas:
// with the stages side by side those are a pipeline (2 devices) apart, so
// stage 0's all_to_all spans {0, 2, 4, 6} and stage 1's {1, 3, 5, 7}.
// CHECK: perf.op "ep::dispatch"
// CHECK-NEXT: perf.all_to_all {bytes = 512 : i64, group = array<i64: 0, 2, 4, 6>}
// CHECK: perf.op "ep::combine"
// CHECK-NEXT: perf.all_to_all {bytes = 512 : i64, device = 1 : i64, group = array<i64: 1, 3, 5, 7>}

// Stages 4 devices apart (Megatron-LM's order): the replicas are
// neighbours, {0, 1, 2, 3} and {4, 5, 6, 7}.
// MEGATRON: perf.op "ep::dispatch"
// MEGATRON-NEXT: perf.all_to_all {bytes = 512 : i64, group = array<i64: 0, 1, 2, 3>}
// MEGATRON: perf.op "ep::combine"
// MEGATRON-NEXT: perf.all_to_all {bytes = 512 : i64, device = 4 : i64, group = array<i64: 4, 5, 6, 7>}

// Stages 2 devices apart leave room for 2 replicas, not the 4 the experts
// span.
// NARROW: error: --perf-pipeline-parallel: stride=2 leaves room for 2 replicas of a stage, fewer than the 4 devices its experts are spread over (perf.expert_parallel)
perf.graph @moe attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "inference"} {
  %x = perf.op "dense" : () -> tensor<16x8xf32> {
    perf.gemm {m = 16, n = 8, k = 8}
  }
  %e0 = perf.op "expert0"(%x) {perf.expert = 0, perf.layer = 0} : (tensor<16x8xf32>) -> tensor<16x8xf32> {
    perf.gemm {m = 4, n = 8, k = 8}
  }
  %e1 = perf.op "expert1"(%e0) {perf.expert = 1, perf.layer = 0} : (tensor<16x8xf32>) -> tensor<16x8xf32> {
    perf.gemm {m = 4, n = 8, k = 8}
  }
  %e2 = perf.op "expert2"(%e1) {perf.expert = 2, perf.layer = 0} : (tensor<16x8xf32>) -> tensor<16x8xf32> {
    perf.gemm {m = 4, n = 8, k = 8}
  }
  %e3 = perf.op "expert3"(%e2) {perf.expert = 3, perf.layer = 0} : (tensor<16x8xf32>) -> tensor<16x8xf32> {
    perf.gemm {m = 4, n = 8, k = 8}
  }
  perf.op "head"(%e3) : (tensor<16x8xf32>) -> () {
    perf.gemm {m = 16, n = 8, k = 8}
  }
}
