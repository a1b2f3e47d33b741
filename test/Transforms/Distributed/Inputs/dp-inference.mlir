// An inference graph: nothing to all-reduce.
perf.graph @inference attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  perf.op "fwd" : () -> () {
    perf.gemm {m = 100, n = 100, k = 100}
  }
}
