//===- HostOverhead.cpp - --perf-host-overhead ----------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Analysis/HostOverheadTable.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"

namespace perf {
#define GEN_PASS_DEF_HOSTOVERHEAD
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct HostOverheadPass : perf::impl::HostOverheadBase<HostOverheadPass> {
  using HostOverheadBase::HostOverheadBase;

  void runOnOperation() override {
    HostOverheadTable overheads;
    if (!table.empty()) {
      llvm::Expected<HostOverheadTable> loaded =
          HostOverheadTable::load(table);
      if (!loaded) {
        emitInputError(getOperation().getLoc(), loaded.takeError());
        return signalPassFailure();
      }
      overheads = std::move(*loaded);
    }
    Builder builder(&getContext());
    auto attach = [&](Operation *op, StringRef name) {
      double t[4] = {overheads.get(name, Overhead::T1),
                     overheads.get(name, Overhead::T2),
                     overheads.get(name, Overhead::T3),
                     overheads.get(name, Overhead::T5)};
      op->setAttr(PerfDialect::kOverheadAttr, builder.getDenseF64ArrayAttr(t));
    };
    getOperation().walk([&](Operation *op) {
      if (auto fw = dyn_cast<FrameworkOp>(op)) {
        attach(op, fw.getOpName());
      } else if (isa<SyncOp>(op)) {
        attach(op, "cudaDeviceSynchronize");
      } else if (isa<KernelOpInterface>(op) || isCollective(op)) {
        StringRef call =
            isa<MemcpyOp>(op) ? "cudaMemcpyAsync" : "cudaLaunchKernel";
        op->setAttr(PerfDialect::kLaunchAttr,
                    builder.getF64FloatAttr(overheads.runtimeCall(call)));
      }
    });
  }
};
} // namespace
