// RUN: perf-opt %s --perf-fuse-conv-bias-act | FileCheck %s
// RUN: perf-opt %s --perf-kernel-cost --perf-lower-bound=layers=false -o /dev/null | FileCheck %s --check-prefix=BEFORE
// RUN: perf-opt %s --perf-fuse-conv-bias-act --perf-kernel-cost --perf-lower-bound=layers=false -o /dev/null | FileCheck %s --check-prefix=AFTER

// conv1: conv + bias in one op, relu in the next (its only consumer): all
//   three become one kernel, the relu op keeps no kernels.
// conv2: no bias; its output feeds two ops, so the relu stays.
// conv3: bias, then batchnorm: only the bias joins the convolution.
// Bytes removed: bias 256 x 3 x 4 = 3072 and relu 256 x 2 x 4 = 2048 (conv1),
// bias 3072 (conv3): 8192 of 21808 -> 13616. Kernels 9 -> 6.
// conv1 3x8x8 -> 4x8x8, 3x3: 192 + 108 + 256 = 556 x 4 = 2224 bytes; conv2
// and conv3 4 -> 4: 256 + 144 + 256 = 656 x 4 = 2624 bytes; batchnorm
// 2 x 256 x 4 = 2048; relu (conv2's) 2048; sigmoid 2048.
// 2224 + 3072 + 2048 + 2624 + 2048 + 2048 + 2624 + 3072 + 2048 = 21808.

// CHECK-LABEL: perf.graph @convs
// CHECK-SAME: perf.fused_conv_bias_act = 2 : i64
// CHECK: perf.op "conv1"
// CHECK-NEXT: perf.conv2d {c = 3 : i64, {{.*}}perf.fused = ["bias", "relu"]
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "relu1"({{.*}}) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>{{$}}
// CHECK-NEXT: perf.op "conv2"
// CHECK-NEXT: perf.conv2d {c = 4 : i64, h = 8 : i64, k = 4 : i64, n = 1 : i64, pad = array<i64: 1, 1>, r = 3 : i64, s = 3 : i64, w = 8 : i64}{{$}}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "relu2"
// CHECK-NEXT: perf.elementwise {elements = 256 : i64, fn = "relu"}
// CHECK: perf.op "conv3"
// CHECK-NEXT: perf.conv2d {{.*}}perf.fused = ["bias"]
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "bn"
// CHECK-NEXT: perf.batchnorm

// BEFORE: kernels                      9
// BEFORE: total bytes           2.180800e+04
// AFTER: kernels                      6
// AFTER: total bytes           1.361600e+04
perf.graph @convs attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "input" : () -> tensor<1x3x8x8xf32>
  %c1 = perf.op "conv1"(%x) : (tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
    perf.conv2d {n = 1, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, pad = array<i64: 1, 1>}
    perf.elementwise {elements = 256, inputs = 2, fn = "bias"}
  }
  %r1 = perf.op "relu1"(%c1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    perf.elementwise {elements = 256, fn = "relu"}
  }
  %c2 = perf.op "conv2"(%r1) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    perf.conv2d {n = 1, c = 4, h = 8, w = 8, k = 4, r = 3, s = 3, pad = array<i64: 1, 1>}
  }
  %r2 = perf.op "relu2"(%c2) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    perf.elementwise {elements = 256, fn = "relu"}
  }
  %s2 = perf.op "sigmoid"(%c2) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    perf.elementwise {elements = 256, fn = "sigmoid"}
  }
  %c3 = perf.op "conv3"(%r2) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    perf.conv2d {n = 1, c = 4, h = 8, w = 8, k = 4, r = 3, s = 3, pad = array<i64: 1, 1>}
    perf.elementwise {elements = 256, inputs = 2, fn = "bias"}
  }
  %bn = perf.op "bn"(%c3) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
    perf.batchnorm {elements = 256, channels = 4}
  }
}
