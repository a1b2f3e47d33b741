// The layout passes and training synthesis work on one perf.graph at a time
// (they are anchored on perf.graph): a module with two graphs gets each one
// transformed, whichever way the pipeline is spelled.
// RUN: perf-opt %s --perf-data-parallel=devices=4 | FileCheck %s
// RUN: perf-opt %s --pass-pipeline='builtin.module(perf.graph(perf-data-parallel{devices=4}))' | FileCheck %s
// Textual pass lists (perf-sweep --pipeline, perf.estimate(passes=...)) nest
// a per-graph pass under perf.graph themselves; braces and quotes keep
// their commas.
// RUN: perf-sweep %s --pipeline='perf-data-parallel{devices=4};perf-data-parallel{devices=4},perf-zero{stage=1}' --arch=allreduce-local --ethernet-gbps=25 --pcie-gbs=10 --tflops=1 --hbm-tbs=1 | FileCheck %s --check-prefix=SWEEP
// An explicit pipeline must nest itself, as MLIR's textual pipelines do.
// RUN: not perf-opt %s --pass-pipeline='builtin.module(perf-data-parallel{devices=4})' 2>&1 | FileCheck %s --check-prefix=UNNESTED
// Option errors name the tool, not a location in the input.
// RUN: not perf-opt %s --perf-data-parallel=devices=0 2>&1 | FileCheck %s --check-prefix=OPTION

// CHECK: perf.graph @first
// CHECK-SAME: perf.data_parallel = 4
// CHECK: perf.all_reduce {bytes = 1024 : i64, group = array<i64: 0, 1, 2, 3>, stream = 1 : i64}
// CHECK: perf.graph @second
// CHECK-SAME: perf.data_parallel = 4
// CHECK: perf.all_reduce {bytes = 4096 : i64, group = array<i64: 0, 1, 2, 3>, stream = 1 : i64}

// ZeRO-1 adds the all_gather of the updated weights after the step.
// SWEEP: pipeline
// SWEEP-NEXT: 12.3 {{.*}} perf-data-parallel{devices=4}{{$}}
// SWEEP-NEXT: 19.9 {{.*}} perf-data-parallel{devices=4},perf-zero{stage=1}{{$}}

// UNNESTED: Can't add pass 'DataParallel' restricted to 'perf.graph'

// OPTION: perf-opt: error: --perf-data-parallel: devices and bucket-mb must be positive
// OPTION-NOT: loc(

perf.graph @first attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %x = perf.op "fc" : () -> tensor<16x16xf32> {
    perf.gemm {m = 16, n = 16, k = 16}
  }
  %g = perf.op "fc_bwd"(%x) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
    perf.gemm {m = 16, n = 16, k = 16, pass = #perf.pass<dgrad>}
    perf.gemm {m = 16, n = 16, k = 16, pass = #perf.pass<wgrad>}
  }
  perf.op "sgd"(%g) : (tensor<16x16xf32>) -> () {
    perf.optimizer {elements = 256}
  }
}

perf.graph @second attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %x = perf.op "fc" : () -> tensor<32x32xf32> {
    perf.gemm {m = 32, n = 32, k = 32}
  }
  %g = perf.op "fc_bwd"(%x) : (tensor<32x32xf32>) -> tensor<32x32xf32> {
    perf.gemm {m = 32, n = 32, k = 32, pass = #perf.pass<dgrad>}
    perf.gemm {m = 32, n = 32, k = 32, pass = #perf.pass<wgrad>}
  }
  perf.op "sgd"(%g) : (tensor<32x32xf32>) -> () {
    perf.optimizer {elements = 1024}
  }
}
