// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=2 chunks=2" | FileCheck %s --check-prefix=ORDER
// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=2 chunks=2" --perf-kernel-cost="compute-efficiency=1.0 memory-efficiency=1.0" --perf-comm-cost=system=dgx-a100 --perf-critical-path=kernel-gap-us=0 | FileCheck %s --check-prefix=TIME
// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=2" --perf-kernel-cost="compute-efficiency=1.0 memory-efficiency=1.0" --perf-comm-cost=system=dgx-a100 --perf-critical-path=kernel-gap-us=0 | FileCheck %s --check-prefix=PLAIN
// RUN: not perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=3 chunks=2" 2>&1 | FileCheck %s --check-prefix=DIVIDE
// RUN: not perf-opt %s --perf-pipeline-parallel="devices=2 chunks=2 schedule=gpipe" 2>&1 | FileCheck %s --check-prefix=GPIPE

// Megatron's interleaved 1F1B over two devices with two model chunks each:
// four forward GEMMs of G = 2000 us each (2 GFLOP on the 1 TFLOP/s toy GPU)
// are chunks 0-3, one each, chunk c on device c mod 2 (device 0: f1, f3;
// device 1: f2, f4); the backward chunks mirror them (device 0: b3, b1;
// device 1: b4, b2). With as many micro-batches as devices every forward
// is a warm-up forward: device 0 runs f1 m0, f1 m1, f3 m0, f3 m1, then b3
// m0, b3 m1, b1 m0, b1 m1.
// ORDER: perf.op "f1"{{.*}} {perf.chunk = 0 : i64, perf.microbatch = 0 : i64, perf.stage = 0
// ORDER: perf.op "f1"{{.*}} {perf.chunk = 0 : i64, perf.microbatch = 1 : i64, perf.stage = 0
// ORDER: perf.op "f3"{{.*}} {perf.chunk = 2 : i64, perf.microbatch = 0 : i64, perf.stage = 0
// ORDER: perf.op "f3"{{.*}} {perf.chunk = 2 : i64, perf.microbatch = 1 : i64, perf.stage = 0
// ORDER: perf.op "b3"{{.*}} {perf.chunk = 2 : i64, perf.microbatch = 0 : i64, perf.stage = 0
// ORDER: perf.op "b3"{{.*}} {perf.chunk = 2 : i64, perf.microbatch = 1 : i64, perf.stage = 0
// ORDER: perf.op "b1"{{.*}} {perf.chunk = 0 : i64, perf.microbatch = 0 : i64, perf.stage = 0
// ORDER: perf.op "b1"{{.*}} {perf.chunk = 0 : i64, perf.microbatch = 1 : i64, perf.stage = 0

// Each boundary tensor (1000 f32) is a send of c = 7.245610 us on dgx-a100
// (pipeline-parallel.mlir works it out); a send starts when its chunk is
// done, one per link direction at a time (G > c, so they never queue). By
// hand (device: [start, end] in units of G and c):
//   0: f1 m0 [0, G], f1 m1 [G, 2G]          1: f2 m0 [G+c, 2G+c], m1 [2G+c, 3G+c]
//   0: f3 m0 [2G+2c, 3G+2c], m1 [3G+2c, 4G+2c]
//   1: f4 m0 [3G+3c, 4G+3c], m1 [4G+3c, 5G+3c], b4 m0 [5G+3c, 6G+3c], m1 [6G+3c, 7G+3c]
//   0: b3 m0 [6G+4c, 7G+4c], m1 [7G+4c, 8G+4c]
//   1: b2 m0 [7G+5c, 8G+5c], m1 [8G+5c, 9G+5c]
//   0: b1 m0 [8G+6c, 9G+6c], m1 [9G+6c, 10G+6c]
// step = 10G + 6c = 20043.473660 us: each device works 8G, so the bubble is
// 2G, (devices - 1) / (microbatches x chunks) = 1/4 of the 8G, where plain
// 1F1B (stage 0: f1 f2 b2 b1, stage 1: f3 f4 b4 b3) leaves 4G idle:
//   0: F m0 [0, 2G], F m1 [2G, 4G]; 1: F m0 [2G+c, 4G+c], B m0 [4G+c, 6G+c],
//   F m1 [6G+c, 8G+c], B m1 [8G+c, 10G+c]; 0: B m0 [6G+2c, 8G+2c],
//   B m1 [10G+2c, 12G+2c]; step = 12G + 2c = 24014.491220 us.
// TIME: e2e_us = 20043.47366
// TIME-SAME: perf.pipeline_parallel = {chunks = 2 : i64, microbatches = 2 : i64, schedule = "1f1b", sends = 12 : i64, stages = 2 : i64, stride = 1 : i64}
// PLAIN: e2e_us = 24014.49122
// PLAIN-SAME: perf.pipeline_parallel = {chunks = 1 : i64, microbatches = 2 : i64, schedule = "1f1b", sends = 4 : i64, stages = 2 : i64, stride = 1 : i64}

// DIVIDE: error: --perf-pipeline-parallel: interleaving (chunks=2) needs micro-batches divisible by the 2 devices, got 3
// GPIPE: error: --perf-pipeline-parallel: chunks above 1 interleave the 1f1b schedule; schedule=gpipe has no interleaved form
perf.graph @chain attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  %a = perf.op "f1" : () -> tensor<1000xf32> {
    perf.gemm {m = 1000, n = 1000, k = 1000}
  }
  %b = perf.op "f2"(%a) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 1000, n = 1000, k = 1000}
  }
  %c = perf.op "f3"(%b) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 1000, n = 1000, k = 1000}
  }
  %d = perf.op "f4"(%c) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 1000, n = 1000, k = 1000}
  }
  %e = perf.op "b4"(%d) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 1000, n = 1000, k = 1000, pass = #perf.pass<dgrad>}
  }
  %f = perf.op "b3"(%e) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 1000, n = 1000, k = 1000, pass = #perf.pass<dgrad>}
  }
  %g = perf.op "b2"(%f) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 1000, n = 1000, k = 1000, pass = #perf.pass<dgrad>}
  }
  perf.op "b1"(%g) : (tensor<1000xf32>) -> () {
    perf.gemm {m = 1000, n = 1000, k = 1000, pass = #perf.pass<dgrad>}
  }
}
