// RUN: perf-opt %s --perf-synthesize-training="optimizer=adam master-weights=true" | FileCheck %s
// RUN: perf-opt %s --perf-synthesize-training="optimizer=adam master-weights=true" --estimate=format=json | FileCheck %s --check-prefix=MEM
// RUN: perf-opt %s --perf-synthesize-training="optimizer=adam" --estimate=format=json | FileCheck %s --check-prefix=PURE
// RUN: perf-opt %s --perf-synthesize-training="optimizer=adam master-weights=true" --perf-data-parallel=devices=2 --perf-zero=stage=1 | FileCheck %s --check-prefix=ZERO
// RUN: perf-opt %s --perf-synthesize-training="optimizer=adam master-weights=true" "--perf-pipeline-parallel=devices=2 microbatches=2" | FileCheck %s --check-prefix=PP

// Mixed precision with FP32 master weights on a BF16 two-layer MLP (44
// weights: linear1 8 x 4, linear2 4 x 3). The weights stay BF16 (88 B); their
// gradients are FP32 (176 B, 4 B a weight); Adam updates an FP32 copy it
// keeps beside its two FP32 moments (3 x 4 B x 44 = 528 B), then writes the
// copy back to the BF16 weights: an FP32 read and a BF16 write per weight
// (6 B: two 2-byte inputs and one output of an element-wise kernel).
// CHECK: perf.op "linear2.backward"(%{{.*}}) {perf.autograd_pair = 0 : i64, perf.grad_bytes = 48 : i64, perf.params = 12 : i64} : (tensor<2x3xbf16>) -> (tensor<2x4xbf16>, tensor<12xf32>)
// CHECK: perf.op "linear1.backward"(%{{.*}}) {perf.autograd_pair = 1 : i64, perf.grad_bytes = 128 : i64, perf.params = 32 : i64} : (tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<32xf32>
// CHECK: perf.op "optimizer::adam"(%{{.*}}) : (tensor<12xf32>, tensor<32xf32>) -> ()
// CHECK-NEXT: perf.optimizer {algorithm = #perf.optimizer<adam>, dtype = f32, elements = 44 : i64, master_weights, pass = #perf.pass<update>}
// CHECK-NEXT: perf.elementwise {dtype = bf16, elements = 44 : i64, flops_per_element = 0.000000e+00 : f64, fn = "master_to_model", inputs = 2 : i64, pass = #perf.pass<update>}

// MEM: "gradient_bytes": 176
// MEM-NEXT: "optimizer_bytes": 528
// MEM-NEXT: "parameter_bytes": 88

// Pure BF16 (no master weights): BF16 gradients and moments, 88 and 176 B.
// PURE: "gradient_bytes": 88
// PURE-NEXT: "optimizer_bytes": 176
// PURE-NEXT: "parameter_bytes": 88

// ZeRO-1 over two replicas: the FP32 gradients are reduce-scattered (176 B),
// each replica updates and writes back 22 weights, and the BF16 weights are
// gathered (88 B).
// ZERO: perf.reduce_scatter {bytes = 176 : i64
// ZERO: perf.optimizer {algorithm = #perf.optimizer<adam>, dtype = f32, elements = 22 : i64, master_weights
// ZERO-NEXT: perf.elementwise {dtype = bf16, elements = 22 : i64, {{.*}}fn = "master_to_model"
// ZERO: perf.all_gather {bytes = 88 : i64

// Two pipeline stages, linear1 on the first and linear2 on the second: each
// updates its own layer's weights (32 and 12) and writes them back.
// PP: perf.optimizer {algorithm = #perf.optimizer<adam>, dtype = f32, elements = 32 : i64, master_weights
// PP-NEXT: perf.elementwise {dtype = bf16, elements = 32 : i64, {{.*}}fn = "master_to_model"
// PP: perf.optimizer {algorithm = #perf.optimizer<adam>, device = 1 : i64, dtype = f32, elements = 12 : i64, master_weights
// PP-NEXT: perf.elementwise {device = 1 : i64, dtype = bf16, elements = 12 : i64, {{.*}}fn = "master_to_model"
perf.graph @mlp attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  %x = perf.op "input" : () -> tensor<2x8xbf16>
  %h = perf.op "linear1"(%x) {perf.params = 32 : i64} : (tensor<2x8xbf16>) -> tensor<2x4xbf16> {
    perf.gemm {dtype = bf16, m = 2, n = 4, k = 8}
  }
  %y = perf.op "linear2"(%h) {perf.params = 12 : i64} : (tensor<2x4xbf16>) -> tensor<2x3xbf16> {
    perf.gemm {dtype = bf16, m = 2, n = 3, k = 4}
  }
}
