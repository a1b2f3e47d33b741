// RUN: perf-opt %s --perf-fuse-elementwise | FileCheck %s
// RUN: perf-opt %s --perf-kernel-cost --perf-lower-bound=layers=false -o /dev/null | FileCheck %s --check-prefix=BEFORE
// RUN: perf-opt %s --perf-fuse-elementwise --perf-kernel-cost --perf-lower-bound=layers=false -o /dev/null | FileCheck %s --check-prefix=AFTER

// add -> relu -> (mul, tanh) over 1024 f32 values is one chain: the tensors
// between them have one consumer each. The chain reads x, y and z and
// writes one result: 4 x 1024 x 4 = 16384 bytes instead of
// 12288 + 8192 + 12288 + 8192 = 40960. %m has two consumers, so neg and the
// half-size kernel stay alone (8192 + 4096 bytes).
// Bytes 53248 -> 28672; FLOPs 5 x 1024 + 512 = 5632 either way; 6 -> 3 kernels.

// CHECK-LABEL: perf.graph @chain
// CHECK-SAME: perf.fused_elementwise = 3 : i64
// CHECK: perf.op "add"(%{{.*}}, %{{.*}}) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>{{$}}
// CHECK-NEXT: perf.op "relu"({{.*}}) : (tensor<1024xf32>) -> tensor<1024xf32>{{$}}
// CHECK-NEXT: perf.op "mul"
// CHECK-NEXT: perf.elementwise {elements = 1024 : i64, flops_per_element = 4.000000e+00 : f64, fn = "add+relu+mul+tanh", inputs = 3 : i64, perf.fused = ["add", "relu", "mul", "tanh"]}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: perf.op "neg"
// CHECK-NEXT: perf.elementwise {elements = 1024 : i64, fn = "neg"}
// CHECK: perf.op "half"
// CHECK-NEXT: perf.elementwise {elements = 512 : i64, fn = "exp"}

// BEFORE: kernels                      6
// BEFORE: total FLOPs           5.632000e+03
// BEFORE: total bytes           5.324800e+04
// AFTER: kernels                      3
// AFTER: total FLOPs           5.632000e+03
// AFTER: total bytes           2.867200e+04
perf.graph @chain attributes {target = #perf.gpu<"A100">} {
  %x = perf.op "input" : () -> tensor<1024xf32>
  %y = perf.op "input" : () -> tensor<1024xf32>
  %z = perf.op "input" : () -> tensor<1024xf32>
  %a = perf.op "add"(%x, %y) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32> {
    perf.elementwise {elements = 1024, inputs = 2, fn = "add"}
  }
  %r = perf.op "relu"(%a) : (tensor<1024xf32>) -> tensor<1024xf32> {
    perf.elementwise {elements = 1024, fn = "relu"}
  }
  %m = perf.op "mul"(%r, %z) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32> {
    perf.elementwise {elements = 1024, inputs = 2, fn = "mul"}
    perf.elementwise {elements = 1024, fn = "tanh"}
  }
  %n = perf.op "neg"(%m) : (tensor<1024xf32>) -> tensor<1024xf32> {
    perf.elementwise {elements = 1024, fn = "neg"}
  }
  %h = perf.op "half"(%m) : (tensor<1024xf32>) -> tensor<512xf32> {
    perf.elementwise {elements = 512, fn = "exp"}
  }
}
