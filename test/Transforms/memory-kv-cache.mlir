// RUN: perf-opt --estimate=format=json %s | FileCheck %s

// A decode step's KV cache: the cat that appends this step's 1024 keys
// (4096 B) to the cache writes the new cache, 5120 f32 (20480 B), which is
// kept for the next step, and frees the cache it extends, the 16384 B its
// perf.kv_cache names, held from the step's start. Live bytes in launch
// order:
//   start             16384 (the cache before the step)
//   q                 +4096  = 20480
//   cat               +20480 = 40960, then the old cache goes: 24576
//   score             +8192  = 32768, then q goes: 28672
//   out               +32768 = 61440 (the peak), then score and out go
// and the new cache, 20480 B, is still there at the end. Without the
// attribute the cache would be freed after score: a peak of 40960.
// CHECK: "activation_peak_bytes": 61440
perf.graph @decode attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000, mem_gib = 1.0>} {
  %q = perf.op "aten::linear" : () -> tensor<1024xf32> {
    perf.elementwise {elements = 1024}
  }
  %k = perf.op "aten::cat"(%q) {perf.kv_cache = 16384 : i64} : (tensor<1024xf32>) -> tensor<5120xf32> {
    perf.concat {elements = 5120}
  }
  %s = perf.op "aten::matmul"(%q, %k) : (tensor<1024xf32>, tensor<5120xf32>) -> tensor<2048xf32> {
    perf.elementwise {elements = 2048, inputs = 2}
  }
  %o = perf.op "aten::softmax"(%s) : (tensor<2048xf32>) -> tensor<8192xf32> {
    perf.elementwise {elements = 8192}
  }
}
