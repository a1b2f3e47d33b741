// RUN: perf-opt %s -verify-diagnostics --perf-convert-linalg -o /dev/null
//
// A matmul of 2^41 rows: a size above max-extent (2^40) fails the conversion
// at the op, naming the field, rather than build a kernel the dialect
// refuses.

func.func @huge(%a: tensor<2199023255552x16xf32>, %b: tensor<16x16xf32>,
                %c: tensor<2199023255552x16xf32>) -> tensor<2199023255552x16xf32> {
  // expected-error @+1 {{describes a kernel beyond the limits: 'perf.gemm' attribute 'm' failed to satisfy constraint: a positive 64-bit integer at most max-extent (2^40)}}
  %0 = linalg.matmul ins(%a, %b : tensor<2199023255552x16xf32>, tensor<16x16xf32>)
                     outs(%c : tensor<2199023255552x16xf32>) -> tensor<2199023255552x16xf32>
  return %0 : tensor<2199023255552x16xf32>
}
