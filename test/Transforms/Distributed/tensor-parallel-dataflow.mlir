// RUN: perf-opt %s --perf-tensor-parallel=devices=2 | FileCheck %s

// Column or row follows the data flow, not the order of the GEMMs: Q, K and
// V each read the replicated layernorm output, so all three are
// column-parallel (n 64 -> 32); "mix" and the view of its output are split;
// "proj" reads the split tensor, so it is row-parallel (k 64 -> 32) and its
// 32 x 64 f32 output (8192 bytes) is the one forward all_reduce. The
// residual add reads replicated tensors and keeps its size. (Alternating in
// launch order would make K row-parallel and reduce twice.)
// CHECK-LABEL: perf.graph @attention
// CHECK-SAME: perf.tp_all_reduces = array<i64: 1, 0>
// CHECK: perf.op "q"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 32 : i64, n = 32 : i64}
// CHECK: perf.op "k"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 32 : i64, n = 32 : i64}
// CHECK: perf.op "v"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 32 : i64, n = 32 : i64}
// CHECK: perf.op "mix"
// CHECK-NEXT: perf.elementwise {elements = 1024 : i64, inputs = 3 : i64}
// CHECK: perf.op "proj"
// CHECK-NEXT: perf.gemm {k = 32 : i64, m = 32 : i64, n = 64 : i64}
// CHECK: perf.op "tp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 8192 : i64, group = array<i64: 0, 1>}
// CHECK: perf.op "add"
// CHECK-NEXT: perf.elementwise {elements = 2048 : i64, inputs = 2 : i64}
perf.graph @attention attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %x = perf.op "ln" : () -> tensor<32x64xf32> {
    perf.layernorm {rows = 32, cols = 64}
  }
  %q = perf.op "q"(%x) : (tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.gemm {m = 32, n = 64, k = 64}
  }
  %k = perf.op "k"(%x) : (tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.gemm {m = 32, n = 64, k = 64}
  }
  %v = perf.op "v"(%x) : (tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.gemm {m = 32, n = 64, k = 64}
  }
  %a = perf.op "mix"(%q, %k, %v) : (tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.elementwise {elements = 2048, inputs = 3}
  }
  %r = perf.op "view"(%a) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %o = perf.op "proj"(%r) : (tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.gemm {m = 32, n = 64, k = 64}
  }
  perf.op "add"(%o, %x) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.elementwise {elements = 2048, inputs = 2}
  }
}

// Without data-flow edges the GEMMs alternate in launch order: fc1 column,
// gelu split, fc2 row.
// CHECK-LABEL: perf.graph @noflow
// CHECK-SAME: perf.tp_all_reduces = array<i64: 1, 0>
// CHECK: perf.op "fc1"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 64 : i64, n = 128 : i64}
// CHECK: perf.op "gelu"
// CHECK-NEXT: perf.elementwise {elements = 8192 : i64}
// CHECK: perf.op "fc2"
// CHECK-NEXT: perf.gemm {k = 128 : i64, m = 64 : i64, n = 64 : i64}
perf.graph @noflow attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  perf.op "fc1" : () -> () {
    perf.gemm {m = 64, n = 256, k = 64}
  }
  perf.op "gelu" : () -> () {
    perf.elementwise {elements = 16384}
  }
  perf.op "fc2" : () -> () {
    perf.gemm {m = 64, n = 64, k = 256}
  }
}

// A GEMM without weights outside the tensor-parallel regions (LLaMA's
// rotary angles: inverse frequencies x positions) has nothing to split:
// every rank computes it whole and its result stays replicated, so "cos"
// keeps its 512 elements and "fc" after it is column-parallel (n 64 -> 32),
// not row-parallel.
// CHECK-LABEL: perf.graph @weightless
// CHECK-SAME: perf.tp_all_reduces = array<i64: 0, 0>
// CHECK: perf.op "angles"
// CHECK-NOT: perf.tp_split
// CHECK-NEXT: perf.gemm {batch = 2 : i64, k = 1 : i64, m = 8 : i64, n = 16 : i64}
// CHECK: perf.op "cos"
// CHECK-NEXT: perf.elementwise {elements = 512 : i64}
// CHECK: perf.op "fc"
// CHECK-NEXT: perf.gemm {k = 16 : i64, m = 32 : i64, n = 32 : i64}
perf.graph @weightless attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %f = perf.op "angles" {perf.params = 0 : i64} : () -> tensor<2x8x16xf32> {
    perf.gemm {batch = 2, m = 8, n = 16, k = 1}
  }
  %c = perf.op "cos"(%f) : (tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    perf.elementwise {elements = 512}
  }
  perf.op "fc"(%c) {perf.params = 1024 : i64} : (tensor<2x8x16xf32>) -> tensor<32x64xf32> {
    perf.gemm {m = 32, n = 64, k = 16}
  }
}
