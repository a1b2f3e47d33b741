// RUN: not perf-opt %s --perf-data-parallel=devices=2 --perf-tensor-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=DPTP
// RUN: not perf-opt %s --perf-pipeline-parallel=devices=2 --perf-tensor-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=PPTP
// RUN: not perf-opt %s --perf-data-parallel=devices=2 --perf-pipeline-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=DPPP
// RUN: not perf-opt %s --perf-tensor-parallel=devices=2 --perf-tensor-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not perf-opt %s --pass-pipeline="builtin.module(perf.graph(perf-zero{stage=1},perf-data-parallel{devices=2}))" 2>&1 | FileCheck %s --check-prefix=ZERODP
// RUN: perf-opt %s --perf-tensor-parallel=devices=2 --perf-pipeline-parallel=devices=2 --perf-data-parallel=devices=2 -o /dev/null
// A graph an earlier run already laid out is refused by the pass itself.
// RUN: perf-opt %s --perf-data-parallel=devices=2 -o %t.dp.mlir
// RUN: not perf-opt %t.dp.mlir --perf-tensor-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=LAIDOUT
// RUN: not perf-opt %t.dp.mlir --perf-data-parallel=devices=2 2>&1 | FileCheck %s --check-prefix=AGAIN

// The layout passes compose as expert, tensor, pipeline and data
// parallelism, then ZeRO, the order Megatron-LM builds its process groups
// in; another order would rewrite a layout the earlier pass already placed
// and price a step nobody runs, so the pipeline is refused as it is built,
// naming the order.
// DPTP: perf-opt: error: --perf-tensor-parallel comes after --perf-data-parallel; the layout passes compose as expert, tensor, pipeline and data parallelism, then ZeRO: give --perf-tensor-parallel first
// PPTP: perf-opt: error: --perf-tensor-parallel comes after --perf-pipeline-parallel; the layout passes compose as expert, tensor, pipeline and data parallelism, then ZeRO: give --perf-tensor-parallel first
// DPPP: perf-opt: error: --perf-pipeline-parallel comes after --perf-data-parallel; the layout passes compose as expert, tensor, pipeline and data parallelism, then ZeRO: give --perf-pipeline-parallel first
// TWICE: perf-opt: error: --perf-tensor-parallel is given twice; give it once, with every device
// ZERODP: perf-opt: error: --perf-data-parallel comes after --perf-zero; the layout passes compose as expert, tensor, pipeline and data parallelism, then ZeRO: give --perf-data-parallel first
// LAIDOUT: error: --perf-tensor-parallel: graph @step already has perf.data_parallel; the layout passes compose as tensor (or expert), then pipeline, then data parallelism: run --perf-tensor-parallel first
// AGAIN: error: --perf-data-parallel: graph @step already has perf.data_parallel = 2 : i64
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
