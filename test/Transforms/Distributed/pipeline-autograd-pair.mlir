// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=1 schedule=gpipe" | FileCheck %s
// RUN: sed 's/ {perf.autograd_pair = [0-9]}//' %s | perf-opt --perf-pipeline-parallel="devices=2 microbatches=1 schedule=gpipe" | FileCheck %s --check-prefix=CUT

// A backward op runs in the stage of its forward op (perf.autograd_pair).
// Balanced on FLOPs, the forward cut is [a, b | c] (c is the heavy GEMM).
// b's backward goes to stage 0 with b, though cut on their own the backward
// ops would split [a_bwd | b_bwd, c_bwd] (a_bwd is the heavy one): without
// pairs, b_bwd lands on stage 1, away from its layer's weights.
// CHECK: perf.op "a"{{.*}}perf.stage = 0
// CHECK: perf.op "b"{{.*}}perf.stage = 0
// CHECK: perf.op "c"{{.*}}perf.stage = 1
// CHECK: perf.op "c_bwd"{{.*}}perf.stage = 1
// CHECK: perf.op "b_bwd"{{.*}}perf.stage = 0
// CHECK: perf.op "a_bwd"{{.*}}perf.stage = 0
// CUT: perf.op "b_bwd"{{.*}}perf.stage = 1
perf.graph @step attributes {phase = "training"} {
  %a = perf.op "a" {perf.autograd_pair = 0} : () -> tensor<64x64xf32> {
    perf.gemm {m = 64, n = 64, k = 64}
  }
  %b = perf.op "b"(%a) {perf.autograd_pair = 1} : (tensor<64x64xf32>) -> tensor<64x64xf32> {
    perf.gemm {m = 64, n = 64, k = 64}
  }
  %c = perf.op "c"(%b) {perf.autograd_pair = 2} : (tensor<64x64xf32>) -> tensor<64x64xf32> {
    perf.gemm {m = 1024, n = 1024, k = 1024}
  }
  %gc = perf.op "c_bwd"(%c) {perf.autograd_pair = 2} : (tensor<64x64xf32>) -> tensor<64x64xf32> {
    perf.gemm {m = 64, n = 64, k = 64, pass = #perf.pass<dgrad>}
  }
  %gb = perf.op "b_bwd"(%gc) {perf.autograd_pair = 1} : (tensor<64x64xf32>) -> tensor<64x64xf32> {
    perf.gemm {m = 64, n = 64, k = 64, pass = #perf.pass<dgrad>}
  }
  perf.op "a_bwd"(%gb) {perf.autograd_pair = 0} : (tensor<64x64xf32>) -> () {
    perf.gemm {m = 1024, n = 1024, k = 1024, pass = #perf.pass<wgrad>}
  }
}
