// An op reading a value defined after it: not valid IR (test/Tools/bytecode.test).
perf.graph @step attributes {target = #perf.gpu<"A100">} {
  %0 = perf.op "input" : () -> tensor<4xf32>
  %1 = perf.op "aten::relu"(%2) : (tensor<4xf32>) -> tensor<4xf32> {
    perf.elementwise {elements = 4}
  }
  %2 = perf.op "aten::relu"(%0) : (tensor<4xf32>) -> tensor<4xf32> {
    perf.elementwise {elements = 4}
  }
}
