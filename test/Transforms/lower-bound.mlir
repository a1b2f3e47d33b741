// RUN: perf-opt %s -split-input-file -verify-diagnostics --perf-lower-bound -o /dev/null | FileCheck %s
// RUN: not perf-opt %s -split-input-file --perf-lower-bound=format=yaml 2>&1 | FileCheck %s --check-prefix=BADFMT
// RUN: perf-opt %s -split-input-file -verify-diagnostics --perf-lower-bound=format=json -o /dev/null | FileCheck %s --check-prefix=JSON

// Latencies are given, so the bounds can be checked by hand:
//   a (linear) 10 us and b (conv) 30 us both start at 0; b2 waits for b:
//   30..35; c waits for a and b2: 35..37, 37..40; the reshape has no
//   kernels, so d waits for c through it: 40..44.
// Sequential = 10 + 30 + 5 + 2 + 3 + 4 = 54 us; parallel = 44 us (1.227x);
// the critical path is b, b2, c, c, d (5 kernels).
// Counts: gemm 2x4x8 = 64 MACs, 128 FLOPs, (16 + 32 + 8) x 4 = 224 bytes,
//   twice; conv 1x1x4x4, 3x3 filter -> 2x2 output: 36 MACs, 72 FLOPs,
//   (16 + 9 + 4) x 4 = 116 bytes; element-wise over 4: 4 FLOPs and
//   4 x (inputs + 1) x 4 bytes: 32, 48, 32.
//   MACs 164, FLOPs 340, bytes 676.
// Layers: a, b, b2, c, d; d repeats a: 4 unique. Kernels: 6, 5 unique.

// BADFMT: format must be text or json, got 'yaml'

// CHECK-LABEL: perf lower bound: @diamond (inference) on A100-SXM4-40GB
// CHECK-NEXT: layers                       5  (4 unique)
// CHECK-NEXT: kernels                      6  (5 unique)
// CHECK-NEXT: total MACs            1.640000e+02
// CHECK-NEXT: total FLOPs           3.400000e+02
// CHECK-NEXT: fwd      FLOPs      3.400000e+02
// CHECK-NEXT: total bytes           6.760000e+02
// CHECK-NEXT: sequential lower bound       54.000 us  (sum of kernels)
// CHECK-NEXT: parallel lower bound         44.000 us  (critical path, 1.227x faster)
// CHECK-NEXT: per layer:
// CHECK-NEXT: # layer
// CHECK-NEXT: 0 a                        linear                    1   6.4000e+01   1.2800e+02   2.2400e+02       10.000     -
// CHECK-NEXT: 1 b                        conv                      1   3.6000e+01   7.2000e+01   1.1600e+02       30.000     -
// CHECK-NEXT: 2 b2                       relu                      1   0.0000e+00   4.0000e+00   3.2000e+01        5.000     -
// CHECK-NEXT: 3 c                        add                       2   0.0000e+00   8.0000e+00   8.0000e+01        5.000     -
// CHECK-NEXT: 4 d                        linear                    1   6.4000e+01   1.2800e+02   2.2400e+02        4.000     0
// CHECK-NEXT: critical path (5 kernels, 44.000 us):
// CHECK-NEXT: 0.000 ..       30.000 us  conv2d/fwd           b
// CHECK-NEXT: 30.000 ..       35.000 us  elementwise/fwd      b2
// CHECK-NEXT: 35.000 ..       37.000 us  elementwise/fwd      c
// CHECK-NEXT: 37.000 ..       40.000 us  elementwise/fwd      c
// CHECK-NEXT: 40.000 ..       44.000 us  gemm/fwd             d

// JSON: "num_kernels": 6,
// JSON: "parallel_us": 44,
// JSON: "sequential_us": 54,
// JSON: "total": {
// JSON-NEXT: "bytes": 676,
// JSON-NEXT: "flops": 340,
// JSON-NEXT: "macs": 164,
perf.graph @diamond attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "input" : () -> tensor<2x8xf32>
  %a = perf.op "linear"(%x) {onnx.name = "a"} : (tensor<2x8xf32>) -> tensor<2x4xf32> {
    perf.gemm {m = 2, n = 4, k = 8, perf.latency_us = 10.0}
  }
  %b = perf.op "conv"(%x) {onnx.name = "b"} : (tensor<2x8xf32>) -> tensor<1x1x2x2xf32> {
    perf.conv2d {n = 1, c = 1, h = 4, w = 4, k = 1, r = 3, s = 3, perf.latency_us = 30.0}
  }
  %b2 = perf.op "relu"(%b) {onnx.name = "b2"} : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
    perf.elementwise {elements = 4, fn = "relu", perf.latency_us = 5.0}
  }
  %c = perf.op "add"(%a, %b2) {onnx.name = "c"} : (tensor<2x4xf32>, tensor<1x1x2x2xf32>) -> tensor<2x4xf32> {
    perf.elementwise {elements = 4, inputs = 2, fn = "add", perf.latency_us = 2.0}
    perf.elementwise {elements = 4, fn = "tanh", perf.latency_us = 3.0}
  }
  %r = perf.op "reshape"(%c) : (tensor<2x4xf32>) -> tensor<2x8xf32>
  %d = perf.op "linear"(%r) {onnx.name = "d"} : (tensor<2x8xf32>) -> tensor<2x4xf32> {
    perf.gemm {m = 2, n = 4, k = 8, perf.latency_us = 4.0}
  }
}

// -----

perf.graph @unpriced attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "input" : () -> tensor<4xf32>
  // expected-error @+1 {{'perf.elementwise' launched by 'relu': has no 'perf.latency_us'; run --perf-kernel-cost}}
  perf.op "relu"(%x) : (tensor<4xf32>) -> () {
    perf.elementwise {elements = 4, fn = "relu"}
  }
}
