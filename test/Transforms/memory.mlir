// RUN: perf-opt --estimate %s | FileCheck %s
// RUN: perf-opt --estimate=format=json %s | FileCheck %s --check-prefix=JSON
// RUN: perf-opt --perf-tensor-parallel=devices=2 --estimate=format=json %s | FileCheck %s --check-prefix=TP

// A training step of one 1024 x 1024 fp32 linear layer over 256 rows, with
// Adam; every activation is 256 x 1024 x 4 B = 1 MiB. Weights 4 MiB, their
// gradient 4 MiB, Adam's two moments 8 MiB. Live tensors in launch order:
//   linear: x1 (1 MiB); relu: x1, r (2); view: aliases r; sum: + s (4 B);
//   sum.backward: + g (3 MiB + 4 B; s freed after it);
//   relu.backward: x1, r, g, + dr (4 MiB; r and g freed after it);
//   linear.backward: x1, dr, + dx (3 MiB) + the 4 MiB weight gradient = 7 MiB.
// Peak: 4 (weights) + 8 (Adam) + 7 = 19 MiB = 19922944 B, over the 16 MiB
// of the toy GPU.
// CHECK: memory per device (GiB):
// CHECK-NEXT: gpu0   weights    0.004  gradients    0.004  optimizer    0.008  buckets    0.000  activations    0.007  peak    0.019 of 0.016  OUT OF MEMORY
// JSON: "memory": {
// JSON-NEXT: "capacity_bytes": 16777216
// JSON-NEXT: "devices": [
// JSON-NEXT: {
// JSON-NEXT: "activation_peak_bytes": 7340032
// JSON-NEXT: "bucket_bytes": 0
// JSON-NEXT: "device": 0
// JSON-NEXT: "gradient_bytes": 4194304
// JSON-NEXT: "optimizer_bytes": 8388608
// JSON-NEXT: "parameter_bytes": 4194304
// JSON-NEXT: "peak_bytes": 19922944
// JSON: "out_of_memory": true

// Two tensor-parallel ranks: the linear is column-parallel, so every
// tensor after it is split in two, as are the weights (2 MiB), their
// gradient (2 MiB) and Adam's moments (4 MiB); the peak, at
// linear.backward, is 1.5 MiB of activations + 2 MiB of gradient.
// 2 + 4 + 3.5 = 9.5 MiB = 9961472 B.
// TP: "activation_peak_bytes": 3670016
// TP: "gradient_bytes": 2097152
// TP: "optimizer_bytes": 4194304
// TP: "parameter_bytes": 2097152
// TP: "peak_bytes": 9961472
// TP: "out_of_memory": false
perf.graph @step attributes {phase = "training", target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000, mem_gib = 0.015625>} {
  %0 = perf.op "aten::linear" {perf.autograd_pair = 0 : i64, perf.params = 1048576 : i64} : () -> tensor<256x1024xf32> {
    perf.gemm {dtype = f32, m = 256, n = 1024, k = 1024}
  }
  %1 = perf.op "aten::relu"(%0) {perf.autograd_pair = 1 : i64} : (tensor<256x1024xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "relu"}
  }
  %2 = perf.op "aten::view"(%1) : (tensor<256x1024xf32>) -> tensor<262144xf32>
  %3 = perf.op "aten::sum"(%2) {perf.autograd_pair = 2 : i64} : (tensor<262144xf32>) -> tensor<f32> {
    perf.reduce {dtype = f32, rows = 1, cols = 262144}
  }
  %4 = perf.op "aten::sum.backward"(%3) {perf.autograd_pair = 2 : i64} : (tensor<f32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "fill", pass = #perf.pass<bwd>}
  }
  %5 = perf.op "aten::relu.backward"(%4, %2) {perf.autograd_pair = 1 : i64} : (tensor<256x1024xf32>, tensor<262144xf32>) -> tensor<256x1024xf32> {
    perf.elementwise {dtype = f32, elements = 262144 : i64, fn = "relu_bwd", pass = #perf.pass<bwd>}
  }
  %6:2 = perf.op "aten::linear.backward"(%5, %0) {perf.autograd_pair = 0 : i64, perf.grad_bytes = 4194304 : i64} : (tensor<256x1024xf32>, tensor<256x1024xf32>) -> (tensor<256x1024xf32>, tensor<1048576xf32>) {
    perf.gemm {dtype = f32, m = 256, n = 1024, k = 1024, pass = #perf.pass<dgrad>}
    perf.gemm {dtype = f32, m = 1024, n = 1024, k = 256, pass = #perf.pass<wgrad>}
  }
  perf.op "optimizer::adam"(%6#1) : (tensor<1048576xf32>) -> () {
    perf.optimizer {dtype = f32, elements = 1048576 : i64, algorithm = #perf.optimizer<adam>, pass = #perf.pass<update>}
  }
}
