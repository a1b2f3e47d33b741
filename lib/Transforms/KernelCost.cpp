//===- KernelCost.cpp - --perf-kernel-cost --------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/GraphTarget.h"
#include "perf/Transforms/Passes.h"

namespace perf {
#define GEN_PASS_DEF_KERNELCOST
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct KernelCostPass : perf::impl::KernelCostBase<KernelCostPass> {
  using KernelCostBase::KernelCostBase;

  void runOnOperation() override {
    CostModelOptions options;
    options.computeEfficiency = computeEfficiency;
    options.memoryEfficiency = memoryEfficiency;
    options.databasePath = database;
    options.mlModelDir = mlModelDir;
    if (computeEfficiency <= 0 || computeEfficiency > 1 ||
        memoryEfficiency <= 0 || memoryEfficiency > 1) {
      getOperation().emitError(
          "compute-efficiency and memory-efficiency must be in (0, 1]");
      return signalPassFailure();
    }
    std::string order = model.empty() ? std::string(models) : model;
    llvm::Expected<KernelCostStack> stack =
        createKernelCostStack(order, options);
    if (!stack) {
      emitInputError(getOperation().getLoc(), stack.takeError());
      return signalPassFailure();
    }

    Builder builder(&getContext());
    WalkResult result = getOperation().walk([&](GraphOp graph) {
      FailureOr<GpuSpec> gpu = getGraphGpu(graph);
      if (failed(gpu))
        return WalkResult::interrupt();
      size_t missesBefore = stack->misses().size();
      graph.walk([&](KernelOpInterface kernel) {
        // A latency measured on the hardware (imported traces) beats any
        // model.
        if (hasMeasuredLatency(kernel))
          return;
        KernelCost cost = stack->estimate(kernel.getKernelDesc(), *gpu);
        kernel->setAttr(PerfDialect::kLatencyAttr,
                        builder.getF64FloatAttr(cost.latencyUs));
        kernel->setAttr(PerfDialect::kCostModelAttr,
                        builder.getStringAttr(cost.model));
      });
      // Kernels the database does not have, each once, on the first graph
      // that asked for it: what perf-bench --from should measure.
      std::vector<KernelCostMiss> misses = stack->misses();
      SmallVector<Attribute> missAttrs;
      for (size_t i = missesBefore; i < misses.size(); ++i)
        missAttrs.push_back(builder.getDictionaryAttr({
            builder.getNamedAttr("device",
                                 builder.getStringAttr(misses[i].device)),
            builder.getNamedAttr("dtype",
                                 builder.getStringAttr(misses[i].dtype)),
            builder.getNamedAttr("kind", builder.getStringAttr(misses[i].kind)),
            builder.getNamedAttr("signature",
                                 builder.getStringAttr(misses[i].signature)),
        }));
      if (missAttrs.empty())
        graph->removeAttr(PerfDialect::kDbMissesAttr);
      else
        graph->setAttr(PerfDialect::kDbMissesAttr,
                       builder.getArrayAttr(missAttrs));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
