// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=1 schedule=gpipe" | FileCheck %s --check-prefix=TIME
// RUN: perf-opt %s --perf-pipeline-parallel="devices=2 microbatches=1 schedule=gpipe balance=flops" | FileCheck %s --check-prefix=FLOPS
// RUN: perf-opt %s --perf-kernel-cost="compute-efficiency=0.1" --perf-pipeline-parallel="devices=2 microbatches=1 schedule=gpipe" | FileCheck %s --check-prefix=PRICED
// RUN: not perf-opt %s --perf-pipeline-parallel="devices=2 balance=ops" 2>&1 | FileCheck %s --check-prefix=BAD

// Stage cuts on the toy GPU (1 TFLOP/s, 1000 GB/s). f1 is element-wise over
// 1e6 f32 (1e6 FLOP, 8e6 bytes: 8 us at peak); f2-f4 are 100^3 GEMMs (2e6
// FLOP, 2 us). Each op goes to the stage holding the middle of its weight:
//   time:  8, 2, 2, 2 of 14 -> middles 4, 9, 11, 13 -> stages 0, 1, 1, 1
//   FLOPs: 1, 2, 2, 2 of 7  -> middles 0.5, 2, 4, 6 -> stages 0, 0, 1, 1
// TIME: perf.op "f1"{{.*}}perf.stage = 0
// TIME: perf.op "f2"{{.*}}perf.stage = 1
// FLOPS: perf.op "f1"{{.*}}perf.stage = 0
// FLOPS: perf.op "f2"{{.*}}perf.stage = 0
// FLOPS: perf.op "f3"{{.*}}perf.stage = 1

// Priced kernels weigh their perf.latency_us: at 10% compute efficiency the
// GEMMs take 20 us and f1 10 us (8e6 bytes at 80% of 1000 GB/s):
// 10, 20, 20, 20 of 70 -> middles 5, 20, 40, 60 -> stages 0, 0, 1, 1.
// PRICED: perf.op "f2"{{.*}}perf.stage = 0
// PRICED: perf.op "f3"{{.*}}perf.stage = 1

// BAD: error: --perf-pipeline-parallel: balance must be time or flops, got 'ops'
perf.graph @mixed attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>, phase = "training"} {
  %a = perf.op "f1" : () -> tensor<1000xf32> {
    perf.elementwise {elements = 1000000}
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
  perf.op "b1"(%e) : (tensor<1000xf32>) -> () {
    perf.gemm {m = 100, n = 100, k = 100, pass = #perf.pass<dgrad>}
  }
}
