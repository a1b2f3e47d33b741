// One training step of a DLRM-like model (batch 2048): a bottom MLP over 13
// dense features, 8 embedding tables of 1M x 64 rows looked up 20 times per
// sample, a pairwise-dot interaction, a top MLP, backward and SGD, on a V100.
//   perf-opt --estimate examples/dlrm_step.mlir
//   perf-opt --perf-fuse-embeddings --estimate examples/dlrm_step.mlir
perf.graph @dlrm_step attributes {target = #perf.gpu<"V100-SXM2-32GB">, phase = "training"} {
  %dense_h, %idx_h = perf.op "dataloader::next" : () -> (tensor<2048x13xf32>, tensor<8x40960xi64>)
  %dense = perf.op "aten::to"(%dense_h) : (tensor<2048x13xf32>) -> tensor<2048x13xf32> {
    perf.memcpy {bytes = 106496, kind = #perf.copy<h2d>}
  }
  %idx = perf.op "aten::to"(%idx_h) : (tensor<8x40960xi64>) -> tensor<8x40960xi64> {
    perf.memcpy {bytes = 2621440, kind = #perf.copy<h2d>}
  }
  %b1 = perf.op "aten::linear"(%dense) : (tensor<2048x13xf32>) -> tensor<2048x512xf32> {
    perf.gemm {m = 2048, n = 512, k = 13}
    perf.elementwise {elements = 1048576, fn = "relu"}
  }
  %b2 = perf.op "aten::linear"(%b1) : (tensor<2048x512xf32>) -> tensor<2048x256xf32> {
    perf.gemm {m = 2048, n = 256, k = 512}
    perf.elementwise {elements = 524288, fn = "relu"}
  }
  %b3 = perf.op "aten::linear"(%b2) : (tensor<2048x256xf32>) -> tensor<2048x64xf32> {
    perf.gemm {m = 2048, n = 64, k = 256}
    perf.elementwise {elements = 131072, fn = "relu"}
  }
  %e0 = perf.op "aten::embedding_bag"(%idx) : (tensor<8x40960xi64>) -> tensor<2048x64xf32> {
    perf.embedding_bag {rows = 1000000, dim = 64, batch = 2048, pooling = 20}
  }
  %e1 = perf.op "aten::embedding_bag"(%idx) : (tensor<8x40960xi64>) -> tensor<2048x64xf32> {
    perf.embedding_bag {rows = 1000000, dim = 64, batch = 2048, pooling = 20}
  }
  %e2 = perf.op "aten::embedding_bag"(%idx) : (tensor<8x40960xi64>) -> tensor<2048x64xf32> {
    perf.embedding_bag {rows = 1000000, dim = 64, batch = 2048, pooling = 20}
  }
  %e3 = perf.op "aten::embedding_bag"(%idx) : (tensor<8x40960xi64>) -> tensor<2048x64xf32> {
    perf.embedding_bag {rows = 1000000, dim = 64, batch = 2048, pooling = 20}
  }
  %e4 = perf.op "aten::embedding_bag"(%idx) : (tensor<8x40960xi64>) -> tensor<2048x64xf32> {
    perf.embedding_bag {rows = 1000000, dim = 64, batch = 2048, pooling = 20}
  }
  %e5 = perf.op "aten::embedding_bag"(%idx) : (tensor<8x40960xi64>) -> tensor<2048x64xf32> {
    perf.embedding_bag {rows = 1000000, dim = 64, batch = 2048, pooling = 20}
  }
  %e6 = perf.op "aten::embedding_bag"(%idx) : (tensor<8x40960xi64>) -> tensor<2048x64xf32> {
    perf.embedding_bag {rows = 1000000, dim = 64, batch = 2048, pooling = 20}
  }
  %e7 = perf.op "aten::embedding_bag"(%idx) : (tensor<8x40960xi64>) -> tensor<2048x64xf32> {
    perf.embedding_bag {rows = 1000000, dim = 64, batch = 2048, pooling = 20}
  }
  %cat = perf.op "aten::cat"(%b3, %e0, %e1, %e2, %e3, %e4, %e5, %e6, %e7) : (tensor<2048x64xf32>, tensor<2048x64xf32>, tensor<2048x64xf32>, tensor<2048x64xf32>, tensor<2048x64xf32>, tensor<2048x64xf32>, tensor<2048x64xf32>, tensor<2048x64xf32>, tensor<2048x64xf32>) -> tensor<2048x9x64xf32> {
    perf.concat {elements = 1179648}
  }
  %z = perf.op "aten::bmm"(%cat) : (tensor<2048x9x64xf32>) -> tensor<2048x9x9xf32> {
    perf.gemm {batch = 2048, m = 9, n = 9, k = 64}
  }
  %zt = perf.op "aten::index"(%z, %b3) : (tensor<2048x9x9xf32>, tensor<2048x64xf32>) -> tensor<2048x100xf32> {
    perf.elementwise {elements = 204800, inputs = 2, fn = "tril_gather"}
  }
  %t1 = perf.op "aten::linear"(%zt) : (tensor<2048x100xf32>) -> tensor<2048x512xf32> {
    perf.gemm {m = 2048, n = 512, k = 100}
    perf.elementwise {elements = 1048576, fn = "relu"}
  }
  %t2 = perf.op "aten::linear"(%t1) : (tensor<2048x512xf32>) -> tensor<2048x1xf32> {
    perf.gemm {m = 2048, n = 1, k = 512}
    perf.elementwise {elements = 2048, fn = "sigmoid", flops_per_element = 4.0}
  }
  %loss = perf.op "aten::mse_loss"(%t2) : (tensor<2048x1xf32>) -> tensor<f32> {
    perf.elementwise {elements = 2048, inputs = 2, flops_per_element = 3.0}
    perf.reduce {rows = 1, cols = 2048}
  }
  %g_t2 = perf.op "AddmmBackward0"(%loss) : (tensor<f32>) -> tensor<2048x512xf32> {
    perf.gemm {m = 2048, n = 512, k = 1, pass = #perf.pass<dgrad>}
    perf.gemm {m = 512, n = 1, k = 2048, pass = #perf.pass<wgrad>}
  }
  %g_t1 = perf.op "AddmmBackward0"(%g_t2) : (tensor<2048x512xf32>) -> tensor<2048x100xf32> {
    perf.elementwise {elements = 1048576, inputs = 2, pass = #perf.pass<bwd>}
    perf.gemm {m = 2048, n = 100, k = 512, pass = #perf.pass<dgrad>}
    perf.gemm {m = 100, n = 512, k = 2048, pass = #perf.pass<wgrad>}
  }
  %g_z = perf.op "BmmBackward0"(%g_t1) : (tensor<2048x100xf32>) -> tensor<2048x9x64xf32> {
    perf.gemm {batch = 2048, m = 9, n = 64, k = 9, pass = #perf.pass<dgrad>}
    perf.gemm {batch = 2048, m = 9, n = 64, k = 9, pass = #perf.pass<dgrad>}
  }
  %g_emb = perf.op "EmbeddingBagBackward0"(%g_z) : (tensor<2048x9x64xf32>) -> tensor<8x2048x64xf32> {
    perf.embedding_bag {tables = 8, rows = 1000000, dim = 64, batch = 2048, pooling = 20, pass = #perf.pass<bwd>}
  }
  %g_b = perf.op "AddmmBackward0"(%g_z) : (tensor<2048x9x64xf32>) -> tensor<2048x13xf32> {
    perf.gemm {m = 2048, n = 256, k = 64, pass = #perf.pass<dgrad>}
    perf.gemm {m = 256, n = 64, k = 2048, pass = #perf.pass<wgrad>}
    perf.gemm {m = 2048, n = 512, k = 256, pass = #perf.pass<dgrad>}
    perf.gemm {m = 512, n = 256, k = 2048, pass = #perf.pass<wgrad>}
    perf.gemm {m = 13, n = 512, k = 2048, pass = #perf.pass<wgrad>}
  }
  perf.op "Optimizer.step#SGD.step"(%g_b, %g_emb) : (tensor<2048x13xf32>, tensor<8x2048x64xf32>) -> () {
    perf.optimizer {elements = 440000, algorithm = #perf.optimizer<sgd>, pass = #perf.pass<update>}
  }
  perf.sync {device = 0}
}
