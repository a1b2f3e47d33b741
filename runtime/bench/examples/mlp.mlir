// Kernels of a small MLP training step as the perf dialect prints them.
// perf-bench --from reads only the op names and attribute dictionaries.
module {
  func.func @step() {
    perf.gemm {batch = 1 : i64, m = 64 : i64, n = 512 : i64, k = 256 : i64, dtype = f32}
    perf.gemm {batch = 1 : i64, m = 64 : i64, n = 512 : i64, k = 256 : i64, dtype = f32}
    perf.gemm {batch = 1 : i64, m = 64 : i64, n = 256 : i64, k = 512 : i64, ta = true, dtype = bf16}
    perf.conv2d {n = 8 : i64, c = 3 : i64, h = 224 : i64, w = 224 : i64, k = 64 : i64,
                 r = 7 : i64, s = 7 : i64, stride = array<i64: 2, 2>, pad = array<i64: 3, 3>,
                 dilation = array<i64: 1, 1>, groups = 1 : i64, pass = "fwd", dtype = f16}
    perf.embedding_bag {tables = 4 : i64, rows = 100000 : i64, dim = 64 : i64, batch = 64 : i64, pooling = 20 : i64, pass = "bwd"}
    "perf.softmax"() <{rows = 64 : i64, cols = 512 : i64}> {dtype = f16} : () -> ()
    perf.elementwise {elements = 32768 : i64, inputs = 1 : i64, op = "erf"}
    perf.attention {batch = 1 : i64, heads = 8 : i64}
    perf.yield
  }
}
