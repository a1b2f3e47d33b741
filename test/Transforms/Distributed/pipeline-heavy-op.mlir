// RUN: perf-opt %s --perf-pipeline-parallel="devices=4 microbatches=1 schedule=gpipe" | FileCheck %s

// An op heavier than a stage's share does not leave a stage empty. On the
// toy GPU (1 TFLOP/s) the forward GEMMs take 2, 2, 54 and 2 us of 60: the
// middles of their weights, 1, 3, 33 and 59, fall in stages 0, 0, 2 and 3
// (a quarter is 15 us), which would leave stage 1 without an op. The cut
// moves on by at most one stage per op, and the ops left fill the stages
// left: 0, 1, 2, 3.
// CHECK: perf.op "f1"{{.*}}perf.stage = 0
// CHECK: perf.op "f2"{{.*}}perf.stage = 1
// CHECK: perf.op "f3"{{.*}}perf.stage = 2
// CHECK: perf.op "f4"{{.*}}perf.stage = 3
perf.graph @heavy attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "inference"} {
  %a = perf.op "f1" : () -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %b = perf.op "f2"(%a) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %c = perf.op "f3"(%b) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 300, n = 300, k = 300}
  }
  perf.op "f4"(%c) : (tensor<1000xf32>) -> () {
    perf.gemm {m = 100, n = 100, k = 100}
  }
}
