// RUN: perf-opt %s -verify-diagnostics --perf-synthesize-training -o /dev/null
//
// A weight of 2^30 x 2^30 elements (each size within max-extent, 2^40)
// declaring 2^50 parameters (within max-count, 2^53): its optimizer update
// would be a kernel of 2^50 elements, above max-extent. The pass fails at
// the graph naming the field, rather than build a kernel the dialect
// refuses (an assertion, or IR perf-opt could not read back).

// expected-error @+1 {{--perf-synthesize-training: 'perf.optimizer' attribute 'elements' failed to satisfy constraint: a positive 64-bit integer at most max-extent (2^40)}}
perf.graph @step {
  %0 = perf.op "input" : () -> tensor<1x1073741824xf32>
  %1 = perf.op "aten::linear"(%0) {perf.params = 1125899906842624 : i64} : (tensor<1x1073741824xf32>) -> tensor<1x1073741824xf32> {
    perf.gemm {m = 1, n = 1073741824, k = 1073741824}
  }
}
