// RUN: perf-opt %s --perf-convert-linalg | FileCheck %s
// RUN: perf-opt %s --perf-convert-linalg --perf-device=A100 --estimate | FileCheck %s --check-prefix=EST
// RUN: perf-opt %s --perf-convert-linalg --perf-device=A100 --perf-kernel-cost="compute-efficiency=1.0 memory-efficiency=1.0" | FileCheck %s --check-prefix=COST

// CHECK-LABEL: perf.graph @mlp {
// CHECK: %[[IN:.*]]:2 = perf.op "input" : () -> (tensor<64x128xf32>, tensor<128x256xf32>)
// CHECK: %[[FILL:.*]] = perf.op "linalg.fill" : () -> tensor<64x256xf32> {
// CHECK-NEXT: perf.elementwise {dtype = f32, elements = 16384 : i64, flops_per_element = 0.000000e+00 : f64, fn = "fill"}
// CHECK: %[[MM:.*]] = perf.op "linalg.matmul"(%[[IN]]#0, %[[IN]]#1, %[[FILL]])
// CHECK-NEXT: perf.gemm {dtype = f32, k = 128 : i64, m = 64 : i64, n = 256 : i64}
// CHECK: perf.op "linalg.generic"(%[[MM]])
// CHECK-NEXT: perf.elementwise {dtype = f32, elements = 16384 : i64, fn = "generic"}
// CHECK: perf.op "linalg.reduce"
// CHECK-NEXT: perf.reduce {cols = 256 : i64, dtype = f32, rows = 64 : i64}
// CHECK: perf.op "linalg.softmax"
// CHECK-NEXT: perf.softmax {cols = 256 : i64, dtype = f32, rows = 64 : i64}
// CHECK-NOT: func.func

// 64x256x128 GEMM on the A100 at full efficiency: 2*64*256*128 = 4194304 FLOP
// / 19.5e12 = 0.2151 us; bytes (64*128 + 128*256 + 64*256) * 4 = 229376 /
// 1555e9 = 0.1475 us, so compute bound.
// COST: perf.gemm {{.*}}perf.latency_us = 0.21509{{[0-9]*}} : f64
// EST: perf estimate: @mlp (inference) on A100-SXM4-40GB
// EST: gemm {{.*}} 1
func.func @mlp(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %y = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x256xf32>) outs(%acc : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %s = linalg.reduce ins(%r : tensor<64x256xf32>) outs(%e1 : tensor<64xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %sm = linalg.softmax dimension(1) ins(%r : tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %s : tensor<64xf32>
}

// A 3x3 convolution, stride 2, on an already padded 1x3x225x225 input:
// output 112x112. The 3x3 / 2 max pooling to 55x55 reads a 111x111 window of
// it: (55 - 1) * 2 + 3.
// CHECK-LABEL: perf.graph @conv
// CHECK: perf.conv2d {c = 3 : i64, dtype = f32, h = 225 : i64, k = 64 : i64, n = 1 : i64, r = 3 : i64, s = 3 : i64, stride = array<i64: 2, 2>, w = 225 : i64}
// CHECK: perf.pooling {c = 64 : i64, dtype = f32, h = 111 : i64, n = 1 : i64, r = 3 : i64, s = 3 : i64, stride = array<i64: 2, 2>, w = 111 : i64}
func.func @conv(%x: tensor<1x3x225x225xf32>, %f: tensor<64x3x3x3xf32>) -> tensor<1x64x55x55xf32> {
  %e = tensor.empty() : tensor<1x64x112x112xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %f : tensor<1x3x225x225xf32>, tensor<64x3x3x3xf32>) outs(%e : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %e2 = tensor.empty() : tensor<1x64x55x55xf32>
  %p = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%y, %win : tensor<1x64x112x112xf32>, tensor<3x3xf32>) outs(%e2 : tensor<1x64x55x55xf32>) -> tensor<1x64x55x55xf32>
  return %p : tensor<1x64x55x55xf32>
}
