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
// CHECK: perf.op "mlp2_bwd"(%{{.*}}) {device = 2 : i64, perf.grad_bytes = 4000000 : i64, perf.microbatch = 1
// CHECK: perf.all_reduce {bytes = 4000000 : i64, device = 2 : i64, group = array<i64: 2, 6>, stream = 3 : i64}
// CHECK: perf.send {bytes = 4194304 : i64, device = 2 : i64, group = array<i64: 2, 0>, stream = 2 : i64}
// CHECK: perf.op "mlp1_bwd"(%{{.*}}) {perf.grad_bytes = 3000000 : i64, perf.microbatch = 1
// CHECK: perf.all_reduce {bytes = 3000000 : i64, group = array<i64: 0, 4>, stream = 3 : i64}

perf.graph @block attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %h = perf.op "mlp1_fwd" : () -> tensor<1024x1024xf32> {
    perf.gemm {m = 1024, n = 4096, k = 1024}
    perf.gemm {m = 1024, n = 1024, k = 4096}
  }
  %g = perf.op "mlp2_fwd"(%h) : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    perf.gemm {m = 1024, n = 4096, k = 1024}
    perf.gemm {m = 1024, n = 1024, k = 4096}
  }
  %d = perf.op "mlp2_bwd"(%g) {perf.grad_bytes = 8000000} : (tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    perf.gemm {m = 1024, n = 4096, k = 1024, pass = #perf.pass<dgrad>}
  }
  perf.op "mlp1_bwd"(%d) {perf.grad_bytes = 6000000} : (tensor<1024x1024xf32>) -> () {
    perf.gemm {m = 1024, n = 4096, k = 1024, pass = #perf.pass<dgrad>}
  }
}
