// RUN: not perf-opt %s --perf-data-parallel=devices=2 --perf-tensor-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=DPTP
// RUN: not perf-opt %s --perf-pipeline-parallel=devices=2 --perf-tensor-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=PPTP
// RUN: not perf-opt %s --perf-data-parallel=devices=2 --perf-pipeline-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=DPPP
// RUN: not perf-opt %s --perf-tensor-parallel=devices=2 --perf-tensor-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: perf-opt %s --perf-tensor-parallel=devices=2 --perf-pipeline-parallel=devices=2 --perf-data-parallel=devices=2 -o /dev/null

// The layout passes compose as tensor (or expert), then pipeline, then data
// parallelism, the order Megatron-LM builds its process groups in; another
// order would rewrite a layout the earlier pass already placed and price a
// step nobody runs, so it is an error that names the order.
// DPTP: error: --perf-tensor-parallel: graph @step already has perf.data_parallel; the layout passes compose as tensor (or expert), then pipeline, then data parallelism: run --perf-tensor-parallel first
// PPTP: error: --perf-tensor-parallel: graph @step already has perf.pipeline_parallel; the layout passes compose as tensor (or expert), then pipeline, then data parallelism: run --perf-tensor-parallel first
// DPPP: error: --perf-pipeline-parallel: graph @step already has perf.data_parallel; the layout passes compose as tensor (or expert), then pipeline, then data parallelism: run --perf-pipeline-parallel first
// TWICE: error: --perf-tensor-parallel: graph @step already has perf.tensor_parallel = 2 : i64; give the pass once, with every device
perf.graph @step attributes {target = #perf.gpu<"A100">, phase = "training"} {
  %x = perf.op "aten::linear" {perf.autograd_pair = 0 : i64, perf.params = 1048576 : i64} : () -> tensor<256x1024xf32> {
    perf.gemm {m = 256, n = 1024, k = 1024, trans_b}
  }
  %y = perf.op "aten::linear"(%x) {perf.autograd_pair = 1 : i64, perf.params = 1048576 : i64} : (tensor<256x1024xf32>) -> tensor<256x1024xf32> {
    perf.gemm {m = 256, n = 1024, k = 1024, trans_b}
  }
  %dy:2 = perf.op "aten::linear.backward"(%y, %x) {perf.autograd_pair = 1 : i64, perf.grad_bytes = 4194304 : i64} : (tensor<256x1024xf32>, tensor<256x1024xf32>) -> (tensor<256x1024xf32>, tensor<1048576xf32>) {
    perf.gemm {m = 256, n = 1024, k = 1024, pass = #perf.pass<dgrad>}
    perf.gemm {m = 1024, n = 1024, k = 256, pass = #perf.pass<wgrad>}
  }
  %dx = perf.op "aten::linear.backward"(%dy#0) {perf.autograd_pair = 0 : i64, perf.grad_bytes = 4194304 : i64} : (tensor<256x1024xf32>) -> tensor<1048576xf32> {
    perf.gemm {m = 1024, n = 1024, k = 256, pass = #perf.pass<wgrad>}
  }
}
