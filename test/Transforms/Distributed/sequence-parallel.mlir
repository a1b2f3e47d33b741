// RUN: perf-opt %s --perf-tensor-parallel="devices=2 sequence-parallel=true" | FileCheck %s
// RUN: perf-opt %s --perf-tensor-parallel="devices=2 sequence-parallel=true" --estimate=format=json | FileCheck %s --check-prefix=MEM
// RUN: not perf-opt %S/tensor-parallel-dataflow.mlir --perf-tensor-parallel="devices=2 sequence-parallel=true" 2>&1 | FileCheck %s --check-prefix=NOFLOW

// A pre-norm MLP block over 32 tokens (hidden 64, fp32), two ranks. The
// layernorm and the residual add are outside the tensor-parallel region:
// sequence parallelism gives each rank 16 of the 32 rows. fc1's input is
// all-gathered (32 x 64 x 4 = 8192 B) before it, fc2's output
// reduce-scattered (8192 B) instead of all-reduced.
// CHECK-LABEL: perf.graph @block
// CHECK-SAME: perf.sequence_parallel
// CHECK: %[[LN:.*]] = perf.op "ln" {perf.autograd_pair = 0 : i64, perf.tp_split}
// CHECK-NEXT: perf.layernorm {cols = 64 : i64, rows = 16 : i64}
// CHECK: %[[G:.*]] = perf.op "sp::all_gather"(%[[LN]])
// CHECK-NEXT: perf.all_gather {bytes = 8192 : i64, group = array<i64: 0, 1>}
// CHECK: perf.op "fc1"(%[[G]])
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 32 : i64, n = 64 : i64}
// CHECK: perf.op "gelu"
// CHECK-NEXT: perf.elementwise {elements = 2048 : i64}
// CHECK: perf.op "fc2"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 32 : i64, n = 64 : i64}
// CHECK: perf.op "sp::reduce_scatter"
// CHECK-NEXT: perf.reduce_scatter {bytes = 8192 : i64, group = array<i64: 0, 1>}
// CHECK: perf.op "add"
// CHECK-NEXT: perf.elementwise {elements = 1024 : i64, inputs = 2 : i64}
// Backward: every element-wise and layernorm kernel is split; fc2's output
// gradient is gathered before its backward op (8192 B); fc1's input is
// gathered again for its weight gradient (8192 B, before the op: the
// gather waits for the op's first operand) and its input gradient
// reduce-scattered (8192 B). GEMMs split along their largest dimension.
// CHECK: perf.op "add.backward"
// CHECK-NEXT: perf.elementwise {elements = 1024 : i64, pass = #perf.pass<bwd>}
// CHECK: perf.op "sp::all_gather"
// CHECK-NEXT: perf.all_gather {bytes = 8192 : i64
// CHECK: perf.op "fc2.backward"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 32 : i64, n = 64 : i64, pass = #perf.pass<dgrad>}
// CHECK-NEXT: perf.gemm {k = 32 : i64, m = 64 : i64, n = 64 : i64, pass = #perf.pass<wgrad>}
// CHECK: perf.op "gelu.backward"
// CHECK-NEXT: perf.elementwise {elements = 2048 : i64, pass = #perf.pass<bwd>}
// CHECK: perf.op "sp::all_gather"
// CHECK-NEXT: perf.all_gather {bytes = 8192 : i64
// CHECK: perf.op "fc1.backward"
// CHECK-NEXT: perf.gemm {k = 64 : i64, m = 32 : i64, n = 64 : i64, pass = #perf.pass<dgrad>}
// CHECK-NEXT: perf.gemm {k = 32 : i64, m = 64 : i64, n = 64 : i64, pass = #perf.pass<wgrad>}
// CHECK: perf.op "sp::reduce_scatter"
// CHECK-NEXT: perf.reduce_scatter {bytes = 8192 : i64
// CHECK: perf.op "ln.backward"
// CHECK-NEXT: perf.layernorm {cols = 64 : i64, pass = #perf.pass<bwd>, rows = 16 : i64}

// Memory: split tensors count half. Forward: ln 4096 (its gather writes in
// place), h 8192, g 8192, fc2's output 8192 (reduce-scattered in place),
// add 4096 = 32768 B. The peak is at fc2.backward: ln 4096 + h 8192 +
// g 8192 + dz 4096 + its weight gradient 16384 (64 x 64 after the split) +
// its input gradient 8192 = 49152 B (fc1.backward reaches it again).
// MEM: "activation_peak_bytes": 49152

// NOFLOW: error: --perf-tensor-parallel: sequence-parallel follows the data flow, and graph @noflow has no data-flow edges
perf.graph @block attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %x = perf.op "ln" {perf.autograd_pair = 0 : i64} : () -> tensor<32x64xf32> {
    perf.layernorm {rows = 32, cols = 64}
  }
  %h = perf.op "fc1"(%x) {perf.autograd_pair = 1 : i64} : (tensor<32x64xf32>) -> tensor<32x128xf32> {
    perf.gemm {m = 32, n = 128, k = 64}
  }
  %g = perf.op "gelu"(%h) {perf.autograd_pair = 2 : i64} : (tensor<32x128xf32>) -> tensor<32x128xf32> {
    perf.elementwise {elements = 4096}
  }
  %y = perf.op "fc2"(%g) {perf.autograd_pair = 3 : i64} : (tensor<32x128xf32>) -> tensor<32x64xf32> {
    perf.gemm {m = 32, n = 64, k = 128}
  }
  %z = perf.op "add"(%y, %x) {perf.autograd_pair = 4 : i64} : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.elementwise {elements = 2048, inputs = 2}
  }
  %dz = perf.op "add.backward"(%z) {perf.autograd_pair = 4 : i64} : (tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.elementwise {elements = 2048, pass = #perf.pass<bwd>}
  }
  %dg:2 = perf.op "fc2.backward"(%dz, %g) {perf.autograd_pair = 3 : i64} : (tensor<32x64xf32>, tensor<32x128xf32>) -> (tensor<32x128xf32>, tensor<8192xf32>) {
    perf.gemm {m = 32, n = 128, k = 64, pass = #perf.pass<dgrad>}
    perf.gemm {m = 128, n = 64, k = 32, pass = #perf.pass<wgrad>}
  }
  %dh = perf.op "gelu.backward"(%dg#0, %h) {perf.autograd_pair = 2 : i64} : (tensor<32x128xf32>, tensor<32x128xf32>) -> tensor<32x128xf32> {
    perf.elementwise {elements = 4096, pass = #perf.pass<bwd>}
  }
  %dx:2 = perf.op "fc1.backward"(%dh, %x) {perf.autograd_pair = 1 : i64} : (tensor<32x128xf32>, tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<8192xf32>) {
    perf.gemm {m = 32, n = 64, k = 128, pass = #perf.pass<dgrad>}
    perf.gemm {m = 64, n = 128, k = 32, pass = #perf.pass<wgrad>}
  }
  perf.op "ln.backward"(%dx#0) {perf.autograd_pair = 0 : i64} : (tensor<32x64xf32>) -> tensor<32x64xf32> {
    perf.layernorm {rows = 32, cols = 64, pass = #perf.pass<bwd>}
  }
}
