//===- AssignStreams.cpp - --perf-assign-streams --------------------------===//
//
// Frameworks launch everything on one stream, so the branches of an
// Inception module or a ResNet projection shortcut run one after the other.
// Giving each branch its own stream lets the critical path overlap them
// (the DLRM paper's stream parallelization, Benanza's parallel mode). A
// branch continues through an op's first consumer; every further consumer
// of a tensor starts a new branch on the next stream, round-robin.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/RepeatedAttrs.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace perf {
#define GEN_PASS_DEF_ASSIGNSTREAMS
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct AssignStreamsPass : perf::impl::AssignStreamsBase<AssignStreamsPass> {
  using AssignStreamsBase::AssignStreamsBase;

  // Options are checked before any graph runs.
  LogicalResult initialize(MLIRContext *context) override {
    if (streams < 1)
      return emitError(UnknownLoc::get(context),
                       "--perf-assign-streams: streams must be at least 1, "
                       "got ")
             << static_cast<int64_t>(streams);
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    Builder b(&getContext());
    GraphOp graph = getOperation();
    llvm::DenseMap<Operation *, int64_t> streamOf;
    // Producers whose branch has already been continued by a consumer.
    llvm::DenseSet<Operation *> continued;
    int64_t next = 0, branches = 1;
    RepeatedWorkUpdater<int64_t> onStream(&getContext());
    for (Operation &op : graph.getBodyBlock()) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw)
        continue;
      // Follow the first producer (in operand order) whose branch is still
      // open; a join keeps the stream of its first operand's branch.
      std::optional<int64_t> stream;
      for (Value in : fw.getInputs()) {
        Operation *producer = in.getDefiningOp<FrameworkOp>();
        if (!producer || !streamOf.count(producer))
          continue;
        if (continued.insert(producer).second) {
          stream = streamOf[producer];
          break;
        }
      }
      if (!stream) {
        bool hasProducer = llvm::any_of(fw.getInputs(), [](Value v) {
          return v.getDefiningOp<FrameworkOp>() != nullptr;
        });
        if (hasProducer) {
          // A further consumer of a fork: a new branch.
          next = (next + 1) % streams;
          ++branches;
        }
        stream = hasProducer ? next : 0;
      }
      streamOf[fw] = *stream;
      // Every op of a branch gives its kernels one stream: each distinct
      // work list is rewritten once per stream.
      onStream.rewrite(fw, *stream, [&](WorkAttr w) {
        return w.isKernel() ? w.withStream(*stream) : w;
      });
    }
    graph->setAttr(kBranchesAttr, b.getI64IntegerAttr(branches));
  }
};
} // namespace
