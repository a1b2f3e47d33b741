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

  // The GPU is read once, before any pass runs: a bad name or file is
  // reported first, and every graph gets the same attribute.
  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    if (device.empty() == deviceFile.empty())
      return emitError(loc, "perf-set-target needs exactly one of device= "
                            "and device-file=");
    llvm::Expected<GpuSpec> spec =
        device.empty() ? loadGpuSpecFile(deviceFile) : lookupGpuOrError(device);
    if (!spec) {
      emitInputError(loc, spec.takeError());
      return failure();
    }
    target = GpuAttr::get(context, *spec);
    return success();
  }

  GpuAttr target;

  void runOnOperation() override { getOperation().setTargetAttr(target); }
};
} // namespace
