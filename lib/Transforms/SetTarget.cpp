//===- SetTarget.cpp - --perf-set-target ----------------------------------===//

#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"

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
    GpuSpec spec;
    if (!device.empty()) {
      const GpuSpec *known = lookupGpu(device);
      if (!known) {
        std::string names;
        for (const GpuSpec &g : gpuCatalog())
          names += (names.empty() ? "" : ", ") + g.name;
        module.emitError() << "unknown device '" << device
                           << "'; known: " << names
                           << "; or give --perf-device-file=<json>";
        return signalPassFailure();
      }
      spec = *known;
    } else {
      llvm::Expected<GpuSpec> loaded = loadGpuSpecFile(deviceFile);
      if (!loaded) {
        module.emitError(llvm::toString(loaded.takeError()));
        return signalPassFailure();
      }
      spec = *loaded;
    }
    GpuAttr target = GpuAttr::get(&getContext(), spec);
    module.walk([&](GraphOp graph) { graph.setTargetAttr(target); });
  }
};
} // namespace
