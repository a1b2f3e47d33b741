//===- SetTarget.cpp - --perf-set-target ----------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"

namespace perf {
#define GEN_PASS_DEF_SETTARGET
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct SetTargetPass : perf::impl::SetTargetBase<SetTargetPass> {
  using SetTargetBase::SetTargetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (device.empty() == deviceFile.empty()) {
      module.emitError("perf-set-target needs exactly one of device= and "
                       "device-file=");
      return signalPassFailure();
    }
    llvm::Expected<GpuSpec> spec =
        device.empty() ? loadGpuSpecFile(deviceFile) : lookupGpuOrError(device);
    if (!spec) {
      emitInputError(module.getLoc(), spec.takeError());
      return signalPassFailure();
    }
    GpuAttr target = GpuAttr::get(&getContext(), *spec);
    for (GraphOp graph : module.getOps<GraphOp>())
      graph.setTargetAttr(target);
  }
};
} // namespace
