// RUN: perf-opt %s --perf-tensor-parallel=devices=2 | FileCheck %s

// An MLP block h=64 -> 256 -> 64 on 64 tokens. fc1 is column-parallel
// (n 256 -> 128), gelu runs on half the activations, fc2 is row-parallel
// (k 256 -> 128) and its 64 x 64 f32 output (16384 bytes) is all-reduced.
// Backward: every GEMM loses half its largest dimension, gelu_bwd (the size
// of the split gelu) is split too, and the dgrad of
// fc1 (64 x 64 over 256) is followed by the all_reduce of the input gradient.
// CHECK-LABEL: perf.graph @mlp
// CHECK-SAME: perf.tensor_parallel = 2
// CHECK-SAME: perf.tp_all_reduces = array<i64: 1, 1>
// CHECK: perf.op "fc1"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 64 : i64, n = 128 : i64}
// CHECK: perf.op "gelu"
// CHECK-NEXT: perf.elementwise {elements = 8192 : i64}
// CHECK: %[[FC2:.*]] = perf.op "fc2"
// CHECK-NEXT: perf.gemm {k = 128 : i64, m = 64 : i64, n = 64 : i64}
// CHECK: %[[RED:.*]] = perf.op "tp::all_reduce"(%[[FC2]])
// CHECK-NEXT: perf.all_reduce {bytes = 16384 : i64, group = array<i64: 0, 1>}
// CHECK: perf.op "layernorm"(%[[RED]])
// CHECK-NEXT: perf.layernorm {cols = 64 : i64, rows = 64 : i64}
// CHECK: perf.op "fc2_bwd"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 64 : i64, n = 128 : i64, pass = #perf.pass<dgrad>}
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 128 : i64, n = 64 : i64, pass = #perf.pass<wgrad>}
// CHECK-NOT: perf.all_reduce
// CHECK: perf.op "gelu_bwd"
// CHECK-NEXT: perf.elementwise {elements = 8192 : i64, inputs = 2 : i64, pass = #perf.pass<bwd>}
// CHECK: perf.op "fc1_bwd"
// CHECK-NEXT: perf.gemm {k = 128 : i64, m = 64 : i64, n = 64 : i64, pass = #perf.pass<dgrad>}
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 64 : i64, n = 128 : i64, pass = #perf.pass<wgrad>}
// CHECK: perf.op "tp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 16384 : i64, group = array<i64: 0, 1>}
// CHECK: perf.optimizer {elements = 16384 : i64}
perf.graph @mlp attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %x = perf.op "fc1" {perf.autograd_pair = 0 : i64} : () -> tensor<64x256xf32> {
    perf.gemm {m = 64, n = 256, k = 64}
  }
  %y = perf.op "gelu"(%x) {perf.autograd_pair = 1 : i64} : (tensor<64x256xf32>) -> tensor<64x256xf32> {
    perf.elementwise {elements = 16384}
  }
  %z = perf.op "fc2"(%y) {perf.autograd_pair = 2 : i64} : (tensor<64x256xf32>) -> tensor<64x64xf32> {
    perf.gemm {m = 64, n = 64, k = 256}
  }
  %w = perf.op "layernorm"(%z) : (tensor<64x64xf32>) -> tensor<64x64xf32> {
    perf.layernorm {rows = 64, cols = 64}
  }
  %g2 = perf.op "fc2_bwd"(%w) {perf.autograd_pair = 2 : i64} : (tensor<64x64xf32>) -> tensor<64x256xf32> {
    perf.gemm {m = 64, n = 256, k = 64, pass = #perf.pass<dgrad>}
    perf.gemm {m = 256, n = 64, k = 64, pass = #perf.pass<wgrad>}
  }
  %g3 = perf.op "gelu_bwd"(%g2) {perf.autograd_pair = 1 : i64} : (tensor<64x256xf32>) -> tensor<64x256xf32> {
    perf.elementwise {elements = 16384, inputs = 2, pass = #perf.pass<bwd>}
  }
  %g1 = perf.op "fc1_bwd"(%g3) {perf.autograd_pair = 0 : i64} : (tensor<64x256xf32>) -> tensor<64x64xf32> {
    perf.gemm {m = 64, n = 64, k = 256, pass = #perf.pass<dgrad>}
    perf.gemm {m = 64, n = 256, k = 64, pass = #perf.pass<wgrad>}
  }
  perf.op "adam"(%g1) : (tensor<64x64xf32>) -> () {
    perf.optimizer {elements = 32768}
  }
}
