// Two independent branches (an inception-like block) that join in a concat.
// Branch A runs on stream 0 and branch B on stream 1, so they overlap; the
// concat on stream 0 waits for both. Run:
//   perf-opt --estimate examples/two_branch.mlir
perf.graph @two_branch attributes {target = #perf.gpu<"V100-SXM2-32GB">, phase = "inference"} {
  %x = perf.op "input" : () -> tensor<32x256x28x28xf32>
  %a = perf.op "aten::conv2d"(%x) : (tensor<32x256x28x28xf32>) -> tensor<32x128x28x28xf32> {
    perf.conv2d {n = 32, c = 256, h = 28, w = 28, k = 128, r = 3, s = 3, pad = array<i64: 1, 1>, stream = 0}
  }
  %b = perf.op "aten::conv2d"(%x) : (tensor<32x256x28x28xf32>) -> tensor<32x128x28x28xf32> {
    perf.conv2d {n = 32, c = 256, h = 28, w = 28, k = 128, r = 1, s = 1, stream = 1}
  }
  %b2 = perf.op "aten::relu"(%b) : (tensor<32x128x28x28xf32>) -> tensor<32x128x28x28xf32> {
    perf.elementwise {elements = 3211264, fn = "relu", stream = 1}
  }
  %y = perf.op "aten::cat"(%a, %b2) : (tensor<32x128x28x28xf32>, tensor<32x128x28x28xf32>) -> tensor<32x256x28x28xf32> {
    perf.concat {elements = 6422528, stream = 0}
  }
  perf.sync {device = 0}
}
