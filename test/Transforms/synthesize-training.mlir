// RUN: perf-opt %s -split-input-file -verify-diagnostics --perf-synthesize-training | FileCheck %s
// RUN: perf-opt %s -split-input-file -verify-diagnostics --perf-synthesize-training="optimizer=adam per-layer=true" | FileCheck %s --check-prefix=ADAM
// RUN: not perf-opt %s --perf-synthesize-training=optimizer=lamb 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: perf-opt %s -split-input-file -verify-diagnostics --perf-synthesize-training --perf-kernel-cost --perf-lower-bound=layers=false -o /dev/null | FileCheck %s --check-prefix=FLOPS

// A two-layer MLP: x (2x8) -> linear1 (8x4 weights) -> relu -> linear2 (4x3).
// The input needs no gradient, so linear1 gets only its weight gradient.
// Parameters 32 + 12 = 44 f32: 176 gradient bytes.
// FLOPs: forward 2*2*4*8 + 8 + 2*2*3*4 = 128 + 8 + 48 = 184;
//   linear2 dgrad 2*2*4*3 = 48, wgrad 2*4*3*2 = 48; relu bwd 8;
//   linear1 wgrad 2*8*4*2 = 128; SGD 3 FLOPs x 44 = 132. Total 548.

// BADOPT: optimizer must be sgd, adam or none, got 'lamb'

// CHECK-LABEL: perf.graph @mlp
// CHECK-SAME: perf.grad_bytes = 176 : i64, perf.parameters = 44 : i64, phase = "training"
// CHECK: %[[X:.*]] = perf.op "input"
// CHECK: %[[H:.*]] = perf.op "linear1"
// CHECK: %[[R:.*]] = perf.op "relu"
// CHECK: %[[Y:.*]] = perf.op "linear2"
// CHECK: %[[B2:.*]]:2 = perf.op "linear2.backward"(%[[Y]]) {perf.autograd_pair = 0 : i64, perf.grad_bytes = 48 : i64, perf.params = 12 : i64} : (tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<12xf32>)
// CHECK-NEXT: perf.gemm {dtype = f32, k = 3 : i64, m = 2 : i64, n = 4 : i64, pass = #perf.pass<dgrad>, trans_b}
// CHECK-NEXT: perf.gemm {dtype = f32, k = 2 : i64, m = 4 : i64, n = 3 : i64, pass = #perf.pass<wgrad>, trans_a}
// CHECK: %[[BR:.*]] = perf.op "relu.backward"(%[[B2]]#0, %[[R]])
// CHECK-NEXT: perf.elementwise {dtype = f32, elements = 8 : i64, fn = "relu_bwd", inputs = 2 : i64, pass = #perf.pass<bwd>}
// CHECK: %[[B1:.*]] = perf.op "linear1.backward"(%[[BR]], %[[H]]) {perf.autograd_pair = 2 : i64, perf.grad_bytes = 128 : i64, perf.params = 32 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<32xf32>
// CHECK-NEXT: perf.gemm {dtype = f32, k = 2 : i64, m = 8 : i64, n = 4 : i64, pass = #perf.pass<wgrad>, trans_a}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "optimizer::sgd"(%[[B2]]#1, %[[B1]])
// CHECK-NEXT: perf.optimizer {dtype = f32, elements = 44 : i64, pass = #perf.pass<update>}

// ADAM-LABEL: perf.graph @mlp
// ADAM: perf.op "optimizer::adam"
// ADAM-NEXT: perf.optimizer {algorithm = #perf.optimizer<adam>, dtype = f32, elements = 12 : i64, pass = #perf.pass<update>}
// ADAM: perf.op "optimizer::adam"
// ADAM-NEXT: perf.optimizer {algorithm = #perf.optimizer<adam>, dtype = f32, elements = 32 : i64, pass = #perf.pass<update>}

// FLOPS-LABEL: perf lower bound: @mlp (training)
// FLOPS: total FLOPs           5.480000e+02
// FLOPS-NEXT: bwd      FLOPs      8.000000e+00
// FLOPS-NEXT: dgrad    FLOPs      4.800000e+01
// FLOPS-NEXT: fwd      FLOPs      1.840000e+02
// FLOPS-NEXT: update   FLOPs      1.320000e+02
// FLOPS-NEXT: wgrad    FLOPs      1.760000e+02
perf.graph @mlp attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "input" : () -> tensor<2x8xf32>
  %h = perf.op "linear1"(%x) {perf.params = 32} : (tensor<2x8xf32>) -> tensor<2x4xf32> {
    perf.gemm {m = 2, n = 4, k = 8}
  }
  %r = perf.op "relu"(%h) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
    perf.elementwise {elements = 8, fn = "relu"}
  }
  %y = perf.op "linear2"(%r) {perf.params = 12} : (tensor<2x4xf32>) -> tensor<2x3xf32> {
    perf.gemm {m = 2, n = 3, k = 4}
  }
}

// -----

// A residual block: %a feeds both the convolution and the add, so its
// gradient is the sum of two contributions (grad_accumulate, 2 inputs). The
// add passes the loss gradient through without a kernel (no backward op); the stem conv has no
// parameters attribute, so its filter (8x3x3x3 = 216) is the parameter
// count, and the block conv has 8x8x3x3 = 576.

// CHECK-LABEL: perf.graph @residual
// CHECK-SAME: perf.grad_bytes = 3168 : i64, perf.parameters = 792 : i64
// CHECK: %[[STEM:.*]] = perf.op "stem"
// CHECK: %[[CONV:.*]] = perf.op "conv"
// CHECK: %[[ADD:.*]] = perf.op "add"
// CHECK-NOT: perf.op "add.backward"
// CHECK: %[[BC:.*]]:2 = perf.op "conv.backward"(%[[ADD]], %[[CONV]]) {perf.autograd_pair = 0 : i64, perf.grad_bytes = 2304 : i64, perf.params = 576 : i64}
// CHECK-NEXT: perf.conv2d {{.*}}pass = #perf.pass<dgrad>
// CHECK-NEXT: perf.conv2d {{.*}}pass = #perf.pass<wgrad>
// CHECK: %[[BS:.*]] = perf.op "stem.backward"(%[[ADD]], %[[BC]]#0, %[[STEM]]) {perf.autograd_pair = 1 : i64, perf.grad_bytes = 864 : i64, perf.params = 216 : i64}
// CHECK-NEXT: perf.elementwise {dtype = f32, elements = 1024 : i64, fn = "grad_accumulate", inputs = 2 : i64, pass = #perf.pass<bwd>}
// CHECK-NEXT: perf.conv2d {{.*}}pass = #perf.pass<wgrad>
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "optimizer::sgd"(%[[BC]]#1, %[[BS]])
// CHECK-NEXT: perf.optimizer {dtype = f32, elements = 792 : i64
perf.graph @residual attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "input" : () -> tensor<2x3x8x8xf32>
  %a = perf.op "stem"(%x) : (tensor<2x3x8x8xf32>) -> tensor<2x8x8x8xf32> {
    perf.conv2d {n = 2, c = 3, h = 8, w = 8, k = 8, r = 3, s = 3, pad = array<i64: 1, 1>}
  }
  %b = perf.op "conv"(%a) : (tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
    perf.conv2d {n = 2, c = 8, h = 8, w = 8, k = 8, r = 3, s = 3, pad = array<i64: 1, 1>}
  }
  %c = perf.op "add"(%b, %a) : (tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32> {
    perf.elementwise {elements = 1024, inputs = 2, fn = "add"}
  }
}

// -----

// expected-error @+1 {{graph @done is already a training step}}
perf.graph @done attributes {phase = "training"} {
}
