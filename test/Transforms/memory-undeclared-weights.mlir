// RUN: perf-opt --estimate=format=json %s | FileCheck %s

// The step of memory.mlir without perf.params on its linear: the weights
// are taken from the 4 MiB gradient the backward op writes (one weight per
// gradient), so the budget is the same: 4 + 8 + 7 = 19 MiB.
// CHECK: "parameter_bytes": 4194304
// CHECK-NEXT: "peak_bytes": 19922944
perf.graph @step attributes {phase = "training", target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000, mem_gib = 0.015625>} {
  %0 = perf.op "aten::linear" : () -> tensor<256x1024xf32> {
    perf.gemm {dtype = f32, m = 256, n = 1024, k = 1024}
  }
  %1 = perf.op "aten::relu"(%0) : (tensor<256x1024xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "relu"}
  }
  %2 = perf.op "aten::view"(%1) : (tensor<256x1024xf32>) -> tensor<262144xf32>
  %3 = perf.op "aten::sum"(%2) : (tensor<262144xf32>) -> tensor<f32> {
    perf.reduce {dtype = f32, rows = 1, cols = 262144}
  }
  %4 = perf.op "aten::sum.backward"(%3) : (tensor<f32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "fill", pass = #perf.pass<bwd>}
  }
  %5 = perf.op "aten::relu.backward"(%4, %2) : (tensor<256x1024xf32>, tensor<262144xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "relu_bwd", pass = #perf.pass<bwd>}
  }
  %6:2 = perf.op "aten::linear.backward"(%5, %0) {perf.grad_bytes = 4194304 : i64} : (tensor<256x1024xf32>, tensor<256x1024xf32>) -> (tensor<256x1024xf32>, tensor<1048576xf32>) {
    perf.gemm {dtype = f32, m = 256, n = 1024, k = 1024, pass = #perf.pass<dgrad>}
    perf.gemm {dtype = f32, m = 1024, n = 1024, k = 256, pass = #perf.pass<wgrad>}
  }
  perf.op "optimizer::adam"(%6#1) : (tensor<1048576xf32>) -> () {
    perf.optimizer {dtype = f32, elements = 1048576 : i64, algorithm = #perf.optimizer<adam>, pass = #perf.pass<update>}
  }
}
