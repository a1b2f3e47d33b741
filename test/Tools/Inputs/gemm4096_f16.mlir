perf.graph @g {
  perf.op "aten::mm" : () -> () {
    perf.gemm {m = 4096, n = 4096, k = 4096, dtype = f16, tensor_cores}
  }
}
