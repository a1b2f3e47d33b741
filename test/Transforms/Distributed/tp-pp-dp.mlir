// RUN: perf-opt %s --perf-tensor-parallel=devices=2 --perf-pipeline-parallel="devices=2 microbatches=2 schedule=gpipe" --perf-data-parallel=devices=2 | FileCheck %s

// 2-way TP x 2 pipeline stages x 2 data-parallel replicas on 8 GPUs:
// device = 4 x replica + 2 x stage + TP rank. Stage 0 (mlp1) runs on TP
// group {0, 1}, stage 1 (mlp2) on {2, 3}: sends go 0 -> 2 and back, stage
// 1's TP all_reduces span {2, 3}. TP halves the gradients (8e6 -> 4e6 on
// stage 1, 6e6 -> 3e6 on stage 0), which DP reduces over the same device of
// the other pipeline, 4 devices on: {2, 6} and {0, 4}.
// CHECK-LABEL: perf.graph @block
// CHECK-SAME: perf.grad_bytes = 7000000
// CHECK: perf.send {bytes = 4194304 : i64, group = array<i64: 0, 2>, stream = 1 : i64}
// CHECK: perf.all_reduce {bytes = 4194304 : i64, device = 2 : i64, group = array<i64: 2, 3>}
// CHECK: perf.op "mlp2_bwd"(%{{.*}}) {device = 2 : i64, perf.autograd_pair = 1 : i64, perf.grad_bytes = 4000000 : i64, perf.microbatch = 1
// CHECK: perf.all_reduce {bytes = 4000000 : i64, device = 2 : i64, group = array<i64: 2, 6>, stream = 3 : i64}
// CHECK: perf.send {bytes = 4194304 : i64, device = 2 : i64, group = array<i64: 2, 0>, stream = 2 : i64}
// CHECK: perf.op "mlp1_bwd"(%{{.*}}) {perf.autograd_pair = 0 : i64, perf.grad_bytes = 3000000 : i64, perf.microbatch = 1
// CHECK: perf.all_reduce {bytes = 3000000 : i64, group = array<i64: 0, 4>, stream = 3 : i64}

perf.graph @block attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %h = perf.op "mlp1_fwd" {perf.autograd_pair = 0 : i64} : () -> tensor<1024x1024xf32> {
    perf.gemm {m = 1024, n = 4096, k = 1024}
    perf.gemm {m = 1024, n = 1024, k = 4096}
  }
  %g = perf.op "mlp2_fwd"(%h) {perf.autograd_pair = 1 : i64} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    perf.gemm {m = 1024, n = 4096, k = 1024}
    perf.gemm {m = 1024, n = 1024, k = 4096}
  }
  %d = perf.op "mlp2_bwd"(%g) {perf.autograd_pair = 1 : i64, perf.grad_bytes = 8000000} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    perf.gemm {m = 1024, n = 4096, k = 1024, pass = #perf.pass<dgrad>}
  }
  perf.op "mlp1_bwd"(%d) {perf.autograd_pair = 0 : i64, perf.grad_bytes = 6000000} : (tensor<1024x1024xf32>) -> () {
    perf.gemm {m = 1024, n = 4096, k = 1024, pass = #perf.pass<dgrad>}
  }
}

// Megatron-LM's default rank order (tp-dp-pp: its data-parallel groups are
// the TP groups of one stage, the stages a TP x DP block apart): with the
// stages 4 devices apart, device = 4 x stage + 2 x replica + TP rank. Stage
// 1 runs on {4, 5}: sends go 0 -> 4 and back, its TP all_reduces span
// {4, 5}, and DP's peers default to a TP group apart, in the gap: {4, 6}
// and {0, 2}.
// RUN: perf-opt %s --perf-tensor-parallel=devices=2 --perf-pipeline-parallel="devices=2 microbatches=2 schedule=gpipe stride=4" --perf-data-parallel=devices=2 | FileCheck %s --check-prefix=MEGATRON
// MEGATRON-LABEL: perf.graph @block
// MEGATRON-SAME: perf.pipeline_parallel = {{{.*}}stages = 2 : i64, stride = 4 : i64}
// MEGATRON: perf.send {bytes = 4194304 : i64, group = array<i64: 0, 4>, stream = 1 : i64}
// MEGATRON: perf.all_reduce {bytes = 4194304 : i64, device = 4 : i64, group = array<i64: 4, 5>}
// MEGATRON: perf.op "mlp2_bwd"(%{{.*}}) {device = 4 : i64, perf.autograd_pair = 1 : i64, perf.grad_bytes = 4000000 : i64, perf.microbatch = 1
// MEGATRON: perf.all_reduce {bytes = 4000000 : i64, device = 4 : i64, group = array<i64: 4, 6>, stream = 3 : i64}
// MEGATRON: perf.send {bytes = 4194304 : i64, device = 4 : i64, group = array<i64: 4, 0>, stream = 2 : i64}
// MEGATRON: perf.all_reduce {bytes = 3000000 : i64, group = array<i64: 0, 2>, stream = 3 : i64}

// A layout that puts two ranks on one device is an error naming both: three
// replicas a TP group apart run out of the 4-device gap (replica 2 of stage
// 0 is stage 1's device 4), and an explicit stride of 4 lands replica 1 on
// it too. A stride inside a stage's TP group is refused by the pipeline.
// RUN: not perf-opt %s --perf-tensor-parallel=devices=2 --perf-pipeline-parallel="devices=2 microbatches=2 stride=4" --perf-data-parallel=devices=3 2>&1 | FileCheck %s --check-prefix=OVERLAP3
// OVERLAP3: error: --perf-data-parallel: device 4 would run replica 0 of stage 1 and replica 2 of stage 0 (replicas 2 devices apart, tensor-parallel groups of 2, stages starting at devices 0, 4); give --perf-data-parallel a stride that keeps them apart, or --perf-pipeline-parallel a stride of at least 6
// RUN: not perf-opt %s --perf-tensor-parallel=devices=2 --perf-pipeline-parallel="devices=2 microbatches=2 stride=4" --perf-data-parallel="devices=2 stride=4" 2>&1 | FileCheck %s --check-prefix=OVERLAP
// OVERLAP: error: --perf-data-parallel: device 4 would run replica 0 of stage 1 and replica 1 of stage 0
// RUN: not perf-opt %s --perf-tensor-parallel=devices=2 --perf-pipeline-parallel="devices=2 stride=1" 2>&1 | FileCheck %s --check-prefix=INSIDE
// INSIDE: error: --perf-pipeline-parallel: stride=1 puts stage 1 inside stage 0's tensor-parallel group of 2 devices; give at least 2
