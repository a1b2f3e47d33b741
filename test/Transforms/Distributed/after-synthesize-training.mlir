// The parallelism passes on a training step made by --perf-synthesize-training
// (which writes `perf.grad_bytes` on each backward op).
// RUN: perf-opt %s --perf-synthesize-training --perf-data-parallel="devices=2 bucket-mb=0.00004" | FileCheck %s --check-prefix=DP
// RUN: perf-opt %s --perf-synthesize-training --perf-tensor-parallel=devices=2 | FileCheck %s --check-prefix=TP
// RUN: perf-opt %s --perf-synthesize-training --perf-pipeline-parallel="devices=2 microbatches=2" --estimate | FileCheck %s --check-prefix=PP

// Gradients: linear2 4 x 3 f32 = 48 B, linear1 8 x 4 f32 = 128 B. Buckets of
// 0.00004 MiB = 41.9 B close after each backward op.
// DP: perf.op "linear2.backward"
// DP: perf.op "ddp::all_reduce"
// DP-NEXT: perf.all_reduce {bytes = 48 : i64, group = array<i64: 0, 1>, stream = 1 : i64}
// DP: perf.op "linear1.backward"
// DP: perf.op "ddp::all_reduce"
// DP-NEXT: perf.all_reduce {bytes = 128 : i64, group = array<i64: 0, 1>, stream = 1 : i64}
// DP: perf.sync {stream = 1 : i64}
// DP-NEXT: perf.op "optimizer::sgd"

// linear1 is column-parallel (n 4 -> 2), relu runs on half, linear2 is
// row-parallel (k 4 -> 2) and its 2 x 3 f32 output (24 B) is all-reduced.
// The first layer's input gradient is never computed, so the backward pass
// has no all_reduce.
// TP: perf.tp_all_reduces = array<i64: 1, 0>
// TP: perf.op "linear1"
// TP-NEXT: perf.gemm {k = 8 : i64, m = 2 : i64, n = 2 : i64}
// TP: perf.elementwise {elements = 4 : i64
// TP: perf.op "linear2"
// TP-NEXT: perf.gemm {k = 2 : i64, m = 2 : i64, n = 3 : i64}
// TP: perf.op "tp::all_reduce"
// TP-NEXT: perf.all_reduce {bytes = 24 : i64

// PP: perf estimate: @mlp (training)
// PP: per device:
// PP-NEXT: gpu0
// PP-NEXT: gpu1
perf.graph @mlp attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "input" : () -> tensor<2x8xf32>
  %h = perf.op "linear1"(%x) {perf.params = 32} : (tensor<2x8xf32>) -> tensor<2x4xf32> {
    perf.gemm {m = 2, n = 4, k = 8}
  }
  %r = perf.op "relu"(%h) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
    perf.elementwise {elements = 8, fn = "relu"}
  }
  %y = perf.op "linear2"(%r) {perf.params = 12} : (tensor<2x4xf32>) -> tensor<2x3xf32> {
    perf.gemm {m = 2, n = 3, k = 4}
  }
}
