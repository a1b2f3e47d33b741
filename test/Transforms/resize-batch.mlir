// RUN: perf-opt %s --perf-resize-batch=128 | FileCheck %s
// RUN: perf-opt %s --perf-resize-batch="batch=128 from=64" | FileCheck %s
// RUN: perf-opt %s --estimate --perf-resize-batch=batch=128 --estimate --perf-compare | FileCheck %s --check-prefix=COMPARE
// RUN: not perf-opt %s --perf-resize-batch 2>&1 | FileCheck %s --check-prefix=NOBATCH

// The batch (64, the most common leading dimension) becomes 128 wherever a
// size equals it or is a multiple of it; parameter-sized work keeps its size.
// CHECK-LABEL: perf.graph @step
// CHECK-SAME: perf.batch = 128 : i64
// CHECK-SAME: perf.transforms = ["perf-resize-batch 64->128"]
// CHECK: perf.op "aten::to" : () -> tensor<128x13xf32>
// CHECK-NEXT: perf.memcpy {bytes = 6656 : i64, kind = #perf.copy<h2d>}
// 256 indices = 64 bags x 4: a multiple of the batch.
// CHECK: perf.op "aten::to" : () -> tensor<512xi64>
// The measured GEMM is rescaled and loses its latency (and where the trace
// ran it: the resized kernel is not the one measured).
// CHECK: perf.op "aten::linear"(%{{.*}}) : (tensor<128x13xf32>) -> tensor<128x32xf32>
// CHECK-NEXT: perf.gemm {k = 13 : i64, m = 128 : i64, n = 32 : i64}
// CHECK-NEXT: perf.elementwise {elements = 4096 : i64, fn = "relu"}
// CHECK: perf.gemm {batch = 128 : i64, k = 16 : i64, m = 4 : i64, n = 4 : i64}
// Batch x sequence rows: 640 = 64 x 10.
// CHECK: perf.gemm {k = 32 : i64, m = 1280 : i64, n = 32 : i64}
// CHECK: perf.embedding_bag {batch = 128 : i64, dim = 16 : i64, pooling = 4 : i64, rows = 1000 : i64}
// CHECK: perf.reduce {cols = 128 : i64, rows = 1 : i64}
// Weight gradient: m and n are weight dims, k is the batch.
// CHECK: perf.gemm {k = 128 : i64, m = 32 : i64, n = 13 : i64, pass = #perf.pass<wgrad>}
// A measured kernel without shapes scales linearly; it too loses its
// measured start.
// CHECK: perf.kernel {bytes = 2.000000e+03 : f64, flops = 0.000000e+00 : f64, perf.cost_model = "measured", perf.latency_scale = 2.000000e+00 : f64, perf.latency_us = 2.000000e+01 : f64}
// CHECK: perf.optimizer {elements = 448 : i64, pass = #perf.pass<update>}
// CHECK: perf.all_reduce {bytes = 1792 : i64, group = array<i64: 0, 1>}

// COMPARE: perf compare: @step
// COMPARE-NEXT: before transforms {{.*}}[perf-resize-batch 64->128]

// NOBATCH: error: perf-resize-batch needs a positive batch (--perf-resize-batch=N)
perf.graph @step attributes {target = #perf.gpu<"V100">, phase = "training"} {
  %x = perf.op "aten::to" : () -> tensor<64x13xf32> {
    perf.memcpy {bytes = 3328, kind = #perf.copy<h2d>}
  }
  %idx = perf.op "aten::to" : () -> tensor<256xi64> {
    perf.memcpy {bytes = 2048, kind = #perf.copy<h2d>}
  }
  %h = perf.op "aten::linear"(%x) : (tensor<64x13xf32>) -> tensor<64x32xf32> {
    perf.gemm {m = 64, n = 32, k = 13, perf.latency_us = 9.0, perf.cost_model = "measured", perf.measured_start_us = 3.0}
    perf.elementwise {elements = 2048, fn = "relu"}
  }
  %z = perf.op "aten::bmm"(%h) : (tensor<64x32xf32>) -> tensor<64x4x4xf32> {
    perf.gemm {batch = 64, m = 4, n = 4, k = 16}
  }
  %s = perf.op "aten::matmul"(%h) : (tensor<64x32xf32>) -> tensor<64x10x32xf32> {
    perf.gemm {m = 640, n = 32, k = 32}
  }
  %e = perf.op "aten::embedding_bag"(%idx) : (tensor<256xi64>) -> tensor<64x16xf32> {
    perf.embedding_bag {rows = 1000, dim = 16, batch = 64, pooling = 4}
  }
  %l = perf.op "aten::mse_loss"(%e) : (tensor<64x16xf32>) -> tensor<f32> {
    perf.reduce {rows = 1, cols = 64}
  }
  %g = perf.op "AddmmBackward0"(%l) : (tensor<f32>) -> tensor<32x13xf32> {
    perf.gemm {m = 32, n = 13, k = 64, pass = #perf.pass<wgrad>}
    perf.kernel {flops = 0.0, bytes = 1000.0, perf.latency_us = 10.0, perf.cost_model = "measured", perf.measured_start_us = 50.0}
  }
  perf.op "Optimizer.step#SGD.step"(%g) : (tensor<32x13xf32>) -> () {
    perf.optimizer {elements = 448, algorithm = #perf.optimizer<sgd>, pass = #perf.pass<update>}
    perf.all_reduce {bytes = 1792, group = array<i64: 0, 1>}
  }
}
