//===- KernelCost.cpp - --perf-kernel-cost --------------------------------===//

#include "perf/CostModel/KernelCostModel.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/GraphTarget.h"
#include "perf/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

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
      getOperation().emitError(llvm::toString(stack.takeError()));
      return signalPassFailure();
    }

    Builder builder(&getContext());
    WalkResult result = getOperation().walk([&](GraphOp graph) {
      FailureOr<GpuSpec> gpu = getGraphGpu(graph);
      if (failed(gpu))
        return WalkResult::interrupt();
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
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
