//===- FuseEmbeddings.cpp - --perf-fuse-embeddings ----------------------===//
//
// Table-batched embedding (Figure 11 of Lin et al.; FBGEMM's batched
// lookup): one kernel and one host op instead of one per table, which saves
// the per-op host overheads T1-T5 and the per-kernel launch T4, and gives
// the GPU one large launch instead of many small ones.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/EstimateBaseline.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/MapVector.h"
#include <cmath>
#include <tuple>

namespace perf {
#define GEN_PASS_DEF_FUSEEMBEDDINGS
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
/// The one embedding lookup a framework op launches, if that is all it does.
EmbeddingBagWork soleLookup(FrameworkOp op) {
  if (op.getNumWork() != 1)
    return nullptr;
  return dyn_cast<EmbeddingBagWork>(op.getWork(0));
}

/// Lookups that can share one batched kernel.
using GroupKey =
    std::tuple<TrainingPass, int64_t, int64_t, Type, int64_t, int64_t, int64_t>;

GroupKey keyOf(EmbeddingBagWork k) {
  return {k.getPass(),
          k.getDim(),
          k.getBatch(),
          k.getDtype(),
          k.getDeviceId(),
          k.getStreamId(),
          int64_t(k.getTensorCores())};
}

struct FuseEmbeddingsPass : perf::impl::FuseEmbeddingsBase<FuseEmbeddingsPass> {
  using FuseEmbeddingsBase::FuseEmbeddingsBase;

  // Options are checked before any graph runs.
  LogicalResult initialize(MLIRContext *context) override {
    if (minGroup < 2)
      return emitError(UnknownLoc::get(context),
                       "min-group must be at least 2");
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (fuseGraph(getOperation()))
      recordBaseline(getOperation(), "perf-fuse-embeddings");
  }

  /// Whether every use of `member`'s results lies after `point`.
  static bool usedOnlyAfter(FrameworkOp member, Operation *point) {
    for (Value result : member->getResults())
      for (Operation *user : result.getUsers()) {
        Operation *top = point->getBlock()->findAncestorOpInBlock(*user);
        if (!top || !point->isBeforeInBlock(top))
          return false;
      }
    return true;
  }

  unsigned fuseGraph(GraphOp graph) {
    // Open groups by key; a group closes when a new member would move the
    // insertion point past a use of an earlier member's result.
    llvm::MapVector<GroupKey, SmallVector<FrameworkOp>> open;
    SmallVector<SmallVector<FrameworkOp>> groups;
    for (Operation &op : graph.getBodyBlock()) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw)
        continue;
      EmbeddingBagWork lookup = soleLookup(fw);
      if (!lookup)
        continue;
      SmallVector<FrameworkOp> &group = open[keyOf(lookup)];
      bool fits = llvm::all_of(
          group, [&](FrameworkOp m) { return usedOnlyAfter(m, fw); });
      if (!fits) {
        groups.push_back(std::move(group));
        group.clear();
      }
      group.push_back(fw);
    }
    for (auto &entry : open)
      groups.push_back(std::move(entry.second));

    unsigned fusedGroups = 0;
    for (SmallVector<FrameworkOp> &group : groups) {
      if (static_cast<int64_t>(group.size()) < minGroup)
        continue;
      fuseGroup(group);
      ++fusedGroups;
    }
    return fusedGroups;
  }

  void fuseGroup(ArrayRef<FrameworkOp> group) {
    FrameworkOp last = group.back();
    OpBuilder b(last);
    SmallVector<Value> operands;
    SmallVector<Type> resultTypes;
    SmallVector<Location> locs;
    int64_t tables = 0;
    double rowsSum = 0, poolingSum = 0;
    for (FrameworkOp member : group) {
      for (Value v : member.getInputs())
        if (!llvm::is_contained(operands, v))
          operands.push_back(v);
      llvm::append_range(resultTypes, member->getResultTypes());
      locs.push_back(member.getLoc());
      EmbeddingBagWork k = soleLookup(member);
      int64_t memberTables = k.getTables();
      tables += memberTables;
      rowsSum += double(k.getRows()) * memberTables;
      poolingSum += double(k.getPooling()) * memberTables;
    }
    EmbeddingBagWork first = soleLookup(group.front());
    auto fused =
        FrameworkOp::create(b, b.getFusedLoc(locs), resultTypes,
                            b.getStringAttr("batched_embedding_bag"), operands,
                            b.getI64IntegerAttr(last.getDevice()));
    fused->setAttr(kFusedOpsAttr, b.getI64IntegerAttr(group.size()));
    // The first lookup widened to all tables, so dtype, placement and pass
    // carry over. Latency, measured or not, must be priced again.
    int64_t pooling = std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(poolingSum / tables)));
    EmbeddingBagWork widened =
        cast<EmbeddingBagWork>(first.withKernelName(""))
            .withTables(tables)
            .withRows(static_cast<int64_t>(std::llround(rowsSum / tables)))
            .withPooling(pooling);
    fused.appendWork(widened.with([&](NamedAttrList &attrs) {
      for (StringRef stale :
           {StringRef(kLatencyAttr), StringRef(kCostModelAttr),
            StringRef(kMeasuredLatencyAttr), StringRef(kMeasuredStartAttr),
            StringRef(kStartAttr), StringRef(kEndAttr), StringRef(kLaunchAttr)})
        attrs.erase(stale);
    }));
    unsigned next = 0;
    for (FrameworkOp member : group) {
      for (Value result : member->getResults())
        result.replaceAllUsesWith(fused->getResult(next++));
      member->erase();
    }
  }
};
} // namespace
