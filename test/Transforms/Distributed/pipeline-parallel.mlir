// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=2 schedule=gpipe" | FileCheck %s --check-prefix=GPIPE
// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=2 schedule=1f1b" | FileCheck %s --check-prefix=1F1B
// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=2 schedule=gpipe" --perf-kernel-cost="compute-efficiency=1.0 memory-efficiency=1.0" --perf-comm-cost=system=dgx-a100 --perf-critical-path=kernel-gap-us=0 | FileCheck %s --check-prefix=TIME
// RUN: not perf-opt %s --perf-pipeline-parallel="devices=2 schedule=zigzag" 2>&1 | FileCheck %s --check-prefix=BAD

// Four forward and four backward GEMMs of 2 us each on the toy GPU; stage 0
// gets f1, f2, b2, b1 and stage 1 f3, f4, b4, b3. A boundary tensor of
// 1000 f32 (4000 bytes) is an NCCL point-to-point transfer on dgx-a100, LL
// (under 12 channels x 16384 B): 6.6 + 0.6 us + 4000 / 87.7 GB/s (llMaxBw)
// = c = 7.245610 us.
//
// GPipe by hand (device: kernels, [start, end] in us); the sends of one
// direction share a stream:
//   dev 0: f1 f2 (m0) [0, 4], f1 f2 (m1) [4, 8]
//   send m0 fwd [4, 4+c]; send m1 fwd [4+c, 4+2c]
//   dev 1: f3 f4 m0 [4+c, 8+c], f3 f4 m1 [4+2c, 8+2c], b4 b3 m0
//   [8+2c, 12+2c], b4 b3 m1 [12+2c, 16+2c]
//   send m0 bwd [12+2c, 12+3c]; send m1 bwd [12+3c, 12+4c]
//   dev 0: b2 b1 m0 [12+3c, 16+3c]; b2 b1 m1 [12+4c, 16+4c]
//   step = 16 + 4c = 44.982440 us (28 us of GEMMs on one device would be
//   16 us).
// TIME: e2e_us = 44.98244013
// TIME-SAME: perf.pipeline_parallel = {chunks = 1 : i64, microbatches = 2 : i64, schedule = "gpipe", sends = 4 : i64, stages = 2 : i64, stride = 1 : i64}

// Launch order of stage 1 (device 1): GPipe runs both forwards first,
// 1F1B alternates from the start (no warm-up on the last stage).
// GPIPE: perf.op "f3"{{.*}}device = 1 : i64, perf.microbatch = 0
// GPIPE: perf.op "f3"{{.*}}device = 1 : i64, perf.microbatch = 1
// GPIPE: perf.op "b4"{{.*}}device = 1 : i64, perf.microbatch = 0
// GPIPE: perf.op "b4"{{.*}}device = 1 : i64, perf.microbatch = 1
// 1F1B: perf.op "f3"{{.*}}device = 1 : i64, perf.microbatch = 0
// 1F1B: perf.op "b4"{{.*}}device = 1 : i64, perf.microbatch = 0
// 1F1B: perf.op "f3"{{.*}}device = 1 : i64, perf.microbatch = 1
// 1F1B: perf.op "b4"{{.*}}device = 1 : i64, perf.microbatch = 1
// GPIPE: perf.op "pp::send"
// GPIPE-NEXT: perf.send {bytes = 4000 : i64, device = 1 : i64, group = array<i64: 1, 0>, stream = 2 : i64}
// BAD: error: --perf-pipeline-parallel: devices must be positive and schedule gpipe or 1f1b
perf.graph @chain attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  %a = perf.op "f1" : () -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %b = perf.op "f2"(%a) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %c = perf.op "f3"(%b) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %d = perf.op "f4"(%c) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100}
  }
  %e = perf.op "b4"(%d) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  %f = perf.op "b3"(%e) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  %g = perf.op "b2"(%f) : (tensor<1000xf32>) -> tensor<1000xf32> {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
  perf.op "b1"(%g) : (tensor<1000xf32>) -> () {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
}
