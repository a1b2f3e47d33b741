// One training step of a 2-layer MLP (batch 512, 1024 -> 4096 -> 1024) with
// an MSE loss and SGD, on an A100. Run:
//   perf-opt --estimate examples/mlp_training.mlir
perf.graph @mlp_step attributes {target = #perf.gpu<"A100-SXM4-40GB">, phase = "training"} {
  %x_host = perf.op "dataloader::next" : () -> tensor<512x1024xf32>
  %x = perf.op "aten::to"(%x_host) : (tensor<512x1024xf32>) -> tensor<512x1024xf32> {
    perf.memcpy {bytes = 2097152, kind = #perf.copy<h2d>}
  }
  %h = perf.op "aten::linear"(%x) : (tensor<512x1024xf32>) -> tensor<512x4096xf32> {
    perf.gemm {m = 512, n = 4096, k = 1024}
  }
  %a = perf.op "aten::relu"(%h) : (tensor<512x4096xf32>) -> tensor<512x4096xf32> {
    perf.elementwise {elements = 2097152, fn = "relu"}
  }
  %y = perf.op "aten::linear"(%a) : (tensor<512x4096xf32>) -> tensor<512x1024xf32> {
    perf.gemm {m = 512, n = 1024, k = 4096}
  }
  %loss = perf.op "aten::mse_loss"(%y) : (tensor<512x1024xf32>) -> tensor<f32> {
    perf.elementwise {elements = 524288, inputs = 2, flops_per_element = 3.0, fn = "sub_square"}
    perf.reduce {rows = 1, cols = 524288}
  }
  %gy = perf.op "MseLossBackward0"(%loss) : (tensor<f32>) -> tensor<512x1024xf32> {
    perf.elementwise {elements = 524288, inputs = 2, pass = #perf.pass<bwd>}
  }
  %ga = perf.op "AddmmBackward0"(%gy) : (tensor<512x1024xf32>) -> tensor<512x4096xf32> {
    perf.gemm {m = 512, n = 4096, k = 1024, pass = #perf.pass<dgrad>}
    perf.gemm {m = 4096, n = 1024, k = 512, pass = #perf.pass<wgrad>}
  }
  %gh = perf.op "ReluBackward0"(%ga) : (tensor<512x4096xf32>) -> tensor<512x4096xf32> {
    perf.elementwise {elements = 2097152, inputs = 2, pass = #perf.pass<bwd>}
  }
  %gw = perf.op "AddmmBackward0"(%gh) : (tensor<512x4096xf32>) -> tensor<1024x4096xf32> {
    perf.gemm {m = 1024, n = 4096, k = 512, pass = #perf.pass<wgrad>}
  }
  perf.op "Optimizer.step#SGD.step"(%ga, %gw) : (tensor<512x4096xf32>, tensor<1024x4096xf32>) -> () {
    perf.optimizer {elements = 4194304, algorithm = #perf.optimizer<sgd>, pass = #perf.pass<update>}
    perf.optimizer {elements = 4194304, algorithm = #perf.optimizer<sgd>, pass = #perf.pass<update>}
  }
  perf.sync {device = 0}
}
