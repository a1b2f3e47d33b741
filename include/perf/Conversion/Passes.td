//===- Passes.td - Conversions into the perf dialect -------*- tablegen -*-===//

#ifndef PERF_CONVERSION_PASSES_TD
#define PERF_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinalgToPerf : Pass<"perf-convert-linalg", "::mlir::ModuleOp"> {
  let summary = "Turns functions of linalg ops on tensors into perf graphs";
  let description = [{
    Lets any MLIR compiler reuse the cost model: every `func.func` becomes a
    `perf.graph` of the same name with one `perf.op` per linalg op, each
    holding the kernel it is: contractions (matmul, batch_matmul, any
    linalg.generic that is one) become `perf.gemm`, convolutions
    `perf.conv2d`, pooling `perf.pooling`, all-parallel ops
    `perf.elementwise`, ops with reductions `perf.reduce`, `linalg.softmax`
    `perf.softmax`, `linalg.transpose` `perf.transpose` and `linalg.copy`
    `perf.memcpy`. Dimensions come from the ops' static loop ranges; a
    dynamic shape is an error naming the op. Tensor SSA values become the
    data dependencies; reshapes pass them through.
  }];
  let dependentDialects = ["::perf::PerfDialect"];
  let options = [
    Option<"phase", "phase", "std::string", "\"inference\"",
           "Phase of the graphs: inference or training">,
  ];
}

#endif // PERF_CONVERSION_PASSES_TD
