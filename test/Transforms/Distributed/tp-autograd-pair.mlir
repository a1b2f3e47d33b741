// RUN: perf-opt %s -split-input-file -verify-diagnostics --perf-tensor-parallel=devices=2 | FileCheck %s

// A backward op is laid out as its forward op (the same perf.autograd_pair),
// not matched by size. qkv is column-parallel (n 192 -> 96): its output is
// split, so the sum of its three output gradients (64 x 192 = 12288
// elements, no forward kernel of that size) runs on 6144 on each rank, and
// its dgrad (64 x 64 over 192) is followed by the all_reduce of its input
// gradient (64 x 64 f32 = 16384 B). proj is row-parallel (k 192 -> 96): its
// output is all-reduced after it, and nothing of its backward op is.
// CHECK-LABEL: perf.graph @attention
// CHECK-SAME: perf.tp_all_reduces = array<i64: 1, 1>
// CHECK: perf.op "qkv"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 64 : i64, n = 96 : i64}
// CHECK: perf.op "proj"
// CHECK-NEXT: perf.gemm {k = 96 : i64, m = 64 : i64, n = 64 : i64}
// CHECK: perf.op "tp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 16384 : i64
// CHECK: perf.op "proj_bwd"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 64 : i64, n = 96 : i64, pass = #perf.pass<dgrad>}
// CHECK-NOT: perf.op "tp::all_reduce"
// CHECK: perf.op "qkv_bwd"
// CHECK-NEXT: perf.elementwise {elements = 6144 : i64, inputs = 3 : i64, pass = #perf.pass<bwd>}
// CHECK-NEXT: perf.gemm {k = 96 : i64, m = 64 : i64, n = 64 : i64, pass = #perf.pass<dgrad>}
// CHECK: perf.op "tp::all_reduce"
// CHECK-NEXT: perf.all_reduce {bytes = 16384 : i64
perf.graph @attention attributes {phase = "training"} {
  %x = perf.op "qkv" {perf.autograd_pair = 0} : () -> tensor<64x192xf32> {
    perf.gemm {m = 64, n = 192, k = 64}
  }
  %y = perf.op "proj"(%x) {perf.autograd_pair = 1} : (tensor<64x192xf32>) -> tensor<64x64xf32> {
    perf.gemm {m = 64, n = 64, k = 192}
  }
  %g = perf.op "proj_bwd"(%y) {perf.autograd_pair = 1} : (tensor<64x64xf32>) -> tensor<64x192xf32> {
    perf.gemm {m = 64, n = 192, k = 64, pass = #perf.pass<dgrad>}
  }
  perf.op "qkv_bwd"(%g) {perf.autograd_pair = 0} : (tensor<64x192xf32>) -> () {
    perf.elementwise {elements = 12288, inputs = 3, pass = #perf.pass<bwd>}
    perf.gemm {m = 64, n = 64, k = 192, pass = #perf.pass<dgrad>}
  }
}

// -----

// A backward op without its pair: its layout cannot be known.
perf.graph @unpaired attributes {phase = "training"} {
  %x = perf.op "fc" : () -> tensor<64x64xf32> {
    perf.gemm {m = 64, n = 64, k = 64}
  }
  // expected-error @+1 {{--perf-tensor-parallel: backward op 'fc_bwd' names no forward op (perf.autograd_pair), so its layout is unknown}}
  perf.op "fc_bwd"(%x) : (tensor<64x64xf32>) -> () {
    perf.gemm {m = 64, n = 64, k = 64, pass = #perf.pass<dgrad>}
  }
}
