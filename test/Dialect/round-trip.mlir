// RUN: perf-opt %s | perf-opt | FileCheck %s
// RUN: perf-opt %s --mlir-print-op-generic | perf-opt | FileCheck %s

// CHECK-LABEL: perf.graph @step
// CHECK-SAME: phase = "training"
// CHECK-SAME: target = #perf.gpu<"H100-SXM5-80GB", sms = 132, cores_per_sm = 128, clock_mhz = 1980, fp64_tflops = 34, fp32_tflops = 67,
// CHECK-SAME: mem_bw_gbs = 3350
perf.graph @step attributes {target = #perf.gpu<"h100">, phase = "training"} {
  // CHECK: %[[X:.*]] = perf.op "aten::randn" : () -> tensor<64x128xf32>
  %x = perf.op "aten::randn" : () -> tensor<64x128xf32>
  // CHECK: perf.op "aten::addmm"(%[[X]]) : (tensor<64x128xf32>) -> tensor<64x256xf32> {
  // CHECK-NEXT: perf.gemm {dtype = bf16, k = 128 : i64, m = 64 : i64, n = 256 : i64, stream = 1 : i64, tensor_cores}
  %y = perf.op "aten::addmm"(%x) : (tensor<64x128xf32>) -> tensor<64x256xf32> {
    perf.gemm {m = 64, n = 256, k = 128, dtype = bf16, tensor_cores, stream = 1}
  }
  // CHECK: perf.conv2d {c = 3 : i64, h = 224 : i64, k = 64 : i64, n = 8 : i64, pad = array<i64: 3, 3>, r = 7 : i64, s = 7 : i64, stride = array<i64: 2, 2>, w = 224 : i64}
  // CHECK: perf.elementwise {elements = 100 : i64, flops_per_element = 2.000000e+00 : f64, fn = "gelu"}
  // CHECK: perf.reduce {cols = 10 : i64, rows = 4 : i64}
  // CHECK: perf.softmax
  // CHECK: perf.layernorm
  // CHECK: perf.embedding_bag {batch = 32 : i64, dim = 16 : i64, pass = #perf.pass<bwd>, pooling = 4 : i64, rows = 1000 : i64, tables = 2 : i64}
  // CHECK: perf.memcpy {bytes = 4096 : i64, kind = #perf.copy<h2d>}
  // CHECK: perf.transpose
  // CHECK: perf.concat
  // CHECK: perf.pooling
  // CHECK: perf.batchnorm
  // CHECK: perf.attention {batch = 2 : i64, head_dim = 64 : i64, heads = 8 : i64, seq = 128 : i64}
  // CHECK: perf.attention {batch = 1 : i64, block_size = 16 : i64, dtype = bf16, head_dim = 128 : i64, heads = 32 : i64, impl = "flash3", kv_heads = 8 : i64, kv_seq = 4096 : i64, seq = 1 : i64}
  // CHECK: perf.attention {batch = 2 : i64, causal, head_dim = 128 : i64, heads = 32 : i64, kv_heads = 8 : i64, seq = 2048 : i64, window = 4096 : i64}
  // CHECK: perf.rope {dtype = bf16, head_dim = 128 : i64, heads = 32 : i64, kv_heads = 8 : i64, tokens = 4096 : i64}
  // CHECK: perf.kv_cache_write {block_size = 16 : i64, dtype = bf16, head_dim = 128 : i64, kv_heads = 8 : i64, tokens = 4096 : i64}
  // CHECK: perf.optimizer {algorithm = #perf.optimizer<adam>, elements = 1000 : i64, pass = #perf.pass<update>}
  // CHECK: perf.kernel {bytes = 2.000000e+03 : f64, flops = 1.000000e+03 : f64, kernel_name = "my_kernel"}
  perf.op "everything"(%y) : (tensor<64x256xf32>) -> () {
    perf.conv2d {n = 8, c = 3, h = 224, w = 224, k = 64, r = 7, s = 7, stride = array<i64: 2, 2>, pad = array<i64: 3, 3>, dilation = array<i64: 1, 1>}
    perf.elementwise {elements = 100, flops_per_element = 2.0, fn = "gelu"}
    perf.reduce {rows = 4, cols = 10}
    perf.softmax {rows = 4, cols = 10}
    perf.layernorm {rows = 4, cols = 10}
    perf.embedding_bag {tables = 2, rows = 1000, dim = 16, batch = 32, pooling = 4, pass = #perf.pass<bwd>}
    perf.memcpy {bytes = 4096, kind = #perf.copy<h2d>}
    perf.transpose {elements = 100}
    perf.concat {elements = 100}
    perf.pooling {n = 8, c = 64, h = 112, w = 112, r = 3, s = 3, stride = array<i64: 2, 2>}
    perf.batchnorm {elements = 1000, channels = 10}
    perf.attention {batch = 2, heads = 8, seq = 128, head_dim = 64}
    perf.attention {batch = 1, heads = 32, kv_heads = 8, seq = 1, kv_seq = 4096, head_dim = 128, impl = "flash3", block_size = 16, dtype = bf16}
    perf.attention {batch = 2, heads = 32, kv_heads = 8, seq = 2048, head_dim = 128, causal, window = 4096}
    perf.rope {tokens = 4096, heads = 32, kv_heads = 8, head_dim = 128, dtype = bf16}
    perf.kv_cache_write {tokens = 4096, kv_heads = 8, head_dim = 128, block_size = 16, dtype = bf16}
    perf.optimizer {elements = 1000, algorithm = #perf.optimizer<adam>, pass = #perf.pass<update>}
    perf.kernel {flops = 1000.0, bytes = 2000.0, kernel_name = "my_kernel"}
  }
  // CHECK: perf.op "nccl:all_reduce"
  // CHECK-NEXT: perf.all_reduce {bytes = 1024 : i64, group = array<i64: 0, 1>, stream = 1 : i64}
  // CHECK-NEXT: perf.send {bytes = 64 : i64, group = array<i64: 0, 1>}
  perf.op "nccl:all_reduce" : () -> () {
    perf.all_reduce {bytes = 1024, group = array<i64: 0, 1>, stream = 1}
    perf.send {bytes = 64, group = array<i64: 0, 1>}
  }
  // CHECK: perf.sync{{$}}
  perf.sync {device = 0}
  // CHECK: perf.sync {device = 1 : i64, stream = 2 : i64}
  perf.sync {device = 1, stream = 2}
}

// A GPU that is not in the catalog, and one derived from a catalog GPU.
// CHECK-LABEL: perf.graph @future
// CHECK-SAME: #perf.gpu<"X1", sms = 200, cores_per_sm = 0, clock_mhz = 0, fp64_tflops = 0, fp32_tflops = 100,
// CHECK-SAME: mem_bw_gbs = 8000, mem_gib = 0, l2_bw_gbs = 24000
perf.graph @future attributes {target = #perf.gpu<"X1", sms = 200, fp32_tflops = 100.0, mem_bw_gbs = 8000>} {
}
// CHECK-LABEL: perf.graph @faster_hbm
// CHECK-SAME: #perf.gpu<"H100-8TB", sms = 132
// CHECK-SAME: mem_bw_gbs = 8000
perf.graph @faster_hbm attributes {target = #perf.gpu<"H100-8TB", base = "H100", mem_bw_gbs = 8000>} {
}

// CHECK-LABEL: perf.graph @repeated
// CHECK: %[[X:.*]] = perf.op "embed"
// CHECK-NEXT: %[[R:.*]] = perf.repeat 12(%[[X]]) : (tensor<8x768xf16>) -> tensor<8x768xf16> {
// CHECK-NEXT: ^bb0(%[[H:.*]]: tensor<8x768xf16>):
// CHECK-NEXT: %[[Y:.*]] = perf.op "layer"(%[[H]])
// CHECK: perf.yield %[[Y]] : tensor<8x768xf16>
// CHECK: perf.repeat 2 : () -> () {
// CHECK-NEXT: perf.sync
// CHECK-NEXT: }
// CHECK: perf.op "head"(%[[R]])
perf.graph @repeated {
  %x = perf.op "embed" : () -> tensor<8x768xf16>
  %r = perf.repeat 12 (%x) : (tensor<8x768xf16>) -> tensor<8x768xf16> {
  ^bb0(%h: tensor<8x768xf16>):
    %y = perf.op "layer"(%h) : (tensor<8x768xf16>) -> tensor<8x768xf16> {
      perf.gemm {m = 8, n = 768, k = 768, dtype = f16}
    }
    perf.yield %y : tensor<8x768xf16>
  }
  perf.repeat 2 : () -> () {
    perf.sync
  }
  perf.op "head"(%r) : (tensor<8x768xf16>) -> ()
}
