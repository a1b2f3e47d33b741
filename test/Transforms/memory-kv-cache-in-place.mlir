// RUN: perf-opt --estimate=format=json %s | FileCheck %s

// A cache written in place (a view of the keys the model returns, as
// transformers 4 returns GPT-2's): the storage it aliases, the linear's
// 4096 B, stays to the step's end, so the softmax's 8192 B come on top of
// it: a peak of 12288 B (8192 B if the view's reader freed it).
// CHECK: "activation_peak_bytes": 12288
perf.graph @prefill attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000, mem_gib = 1.0>} {
  %k = perf.op "aten::linear" : () -> tensor<1024xf32> {
    perf.elementwise {elements = 1024}
  }
  %cache = perf.op "aten::view"(%k) {perf.kv_cache = 0 : i64} : (tensor<1024xf32>) -> tensor<1024xf32>
  %s = perf.op "aten::softmax" : () -> tensor<2048xf32> {
    perf.elementwise {elements = 2048}
  }
}
