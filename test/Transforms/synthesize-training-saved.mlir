// RUN: perf-opt %s --perf-synthesize-training=optimizer=none | FileCheck %s
// RUN: perf-opt %s --perf-synthesize-training=optimizer=none --estimate="models=roofline format=json" | FileCheck %s --check-prefix=MEM

// Each backward op reads the gradients of its op's outputs and what autograd
// saves for it (derivatives.yaml), not the op's outputs: an addmm keeps its
// input, a product each operand the other's gradient needs (nothing for a
// product with a constant), tanh and softmax their result, dropout its
// boolean mask (added as native_dropout's second result, as ATen returns
// it), and an add nothing.

// CHECK-LABEL: perf.graph @block
// CHECK: %[[X:.*]] = perf.op "aten::embedding"
// CHECK: %[[H:.*]] = perf.op "aten::addmm"(%[[X]])
// CHECK: %[[HALF:.*]] = perf.op "aten::mul"(%[[H]])
// CHECK: %[[T:.*]] = perf.op "aten::tanh"(%[[H]])
// CHECK: %[[G:.*]] = perf.op "aten::mul"(%[[HALF]], %[[T]])
// CHECK: %[[D:.*]]:2 = perf.op "aten::native_dropout"(%[[G]]) {perf.autograd_pair = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
// CHECK: %[[S:.*]] = perf.op "aten::add"(%[[D]]#0, %[[X]])
// CHECK: %[[P:.*]] = perf.op "aten::_softmax"(%[[S]])
// CHECK: %[[BP:.*]] = perf.op "aten::_softmax.backward"(%[[P]]) {perf.autograd_pair = 0 : i64} :
// CHECK: %[[BD:.*]] = perf.op "aten::native_dropout.backward"(%[[BP]], %[[D]]#1) {perf.autograd_pair = 1 : i64} :
// CHECK: %[[BG:.*]]:2 = perf.op "aten::mul.backward"(%[[BD]], %[[HALF]], %[[T]]) {perf.autograd_pair = 2 : i64} :
// CHECK: %[[BT:.*]] = perf.op "aten::tanh.backward"(%[[BG]]#1, %[[T]]) {perf.autograd_pair = 3 : i64} :
// CHECK: %[[BHALF:.*]] = perf.op "aten::mul.backward"(%[[BG]]#0) {perf.autograd_pair = 4 : i64} :
// CHECK: %[[BH:.*]]:2 = perf.op "aten::addmm.backward"(%[[BT]], %[[BHALF]], %[[X]]) {perf.autograd_pair = 5 : i64, perf.grad_bytes = 256 : i64
// CHECK: perf.op "aten::embedding.backward"(%[[BP]], %[[BH]]#0) {perf.autograd_pair = 6 : i64, perf.grad_bytes = 128 : i64
// CHECK-NOT: aten::add.backward

// Memory, every f32 tensor 4 x 8 x 4 B = 128 B, the mask 32 B. A tensor lives
// from its op to its last reader; in launch order (live bytes after the op's
// allocations, then after its frees):
//   embedding 128; addmm 256; mul 384; tanh 512, frees h (read by nothing
//   after it: the products keep half and t) 384; mul 512; dropout + 160 =
//   672, frees g 544; add 672, frees the dropout output 544; softmax 672,
//   frees s 544; softmax.backward 672, frees p 544; dropout.backward 672,
//   frees the mask 640; mul.backward + 256 = 896, frees half and its
//   gradient input 640; tanh.backward 768, frees t 512; mul.backward 640,
//   frees 512; addmm.backward + 256 of weight gradient + 128 = 896, frees x
//   512; embedding.backward + 128 of weight gradient = 640.
// Peak 896 B; weights 64 + 32 parameters = 384 B, and as many of gradients.
// MEM: "activation_peak_bytes": 896
// MEM: "gradient_bytes": 384
// MEM: "parameter_bytes": 384
// MEM: "peak_bytes": 1280
perf.graph @block attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "aten::embedding" {perf.params = 32 : i64} : () -> tensor<4x8xf32> {
    perf.embedding_bag {rows = 4, dim = 8, batch = 4}
  }
  %h = perf.op "aten::addmm"(%x) {perf.params = 64 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    perf.gemm {m = 4, n = 8, k = 8}
  }
  %half = perf.op "aten::mul"(%h) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    perf.elementwise {elements = 32, fn = "mul"}
  }
  %t = perf.op "aten::tanh"(%h) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    perf.elementwise {elements = 32, fn = "tanh"}
  }
  %g = perf.op "aten::mul"(%half, %t) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
    perf.elementwise {elements = 32, inputs = 2, fn = "mul"}
  }
  %d = perf.op "aten::native_dropout"(%g) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    perf.elementwise {elements = 32, fn = "native_dropout"}
  }
  %s = perf.op "aten::add"(%d, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> {
    perf.elementwise {elements = 32, inputs = 2, fn = "add"}
  }
  %p = perf.op "aten::_softmax"(%s) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
    perf.softmax {rows = 4, cols = 8}
  }
}
