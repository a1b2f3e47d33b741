//===- Recompute.cpp - --perf-recompute -----------------------------------===//
//
// Activation recomputation per transformer block: the block's forward ops
// (all of them, or its core attention) run again right before its backward
// pass, which reads the recomputed tensors instead of the stored ones.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/MapVector.h"

namespace perf {
#define GEN_PASS_DEF_RECOMPUTE
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {

/// A GEMM between two activations (attention's Q x K^T and scores x V): a
/// GEMM kernel in an op that declares no weights.
bool isWeightFreeGemm(FrameworkOp op) {
  std::optional<int64_t> params = declaredParameters(op);
  if (!params || *params != 0)
    return false;
  return llvm::any_of(op.getWorkList(),
                      [](WorkAttr w) { return w.getKind() == WorkKind::Gemm; });
}

/// Megatron's selective recomputation: the ops from the first weight-free
/// GEMM to the second, inclusive; none without such a pair.
SmallVector<FrameworkOp> coreAttention(ArrayRef<FrameworkOp> block) {
  auto first = llvm::find_if(block, isWeightFreeGemm);
  if (first == block.end())
    return {};
  auto second = std::find_if(first + 1, block.end(), isWeightFreeGemm);
  if (second == block.end())
    return {};
  return SmallVector<FrameworkOp>(first, second + 1);
}

struct RecomputePass : perf::impl::RecomputeBase<RecomputePass> {
  using RecomputeBase::RecomputeBase;

  LogicalResult initialize(MLIRContext *context) override {
    if (granularity != "full" && granularity != "selective")
      return emitError(UnknownLoc::get(context),
                       "--perf-recompute: granularity must be full or "
                       "selective, got '")
             << granularity << "'";
    return success();
  }

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (failed(runOnGraph(getOperation())))
      signalPassFailure();
  }

  LogicalResult runOnGraph(GraphOp graph) {
    if (graph.getPhase() != "training")
      return graph.emitError()
             << "--perf-recompute: graph @" << graph.getSymName()
             << " is not a training step (phase = \"" << graph.getPhase()
             << "\")";
    if (graph->hasAttr(kPipelineParallelAttr) ||
        graph->hasAttr(kDataParallelAttr) ||
        graph->hasAttr(kTensorParallelAttr))
      return graph.emitError()
             << "--perf-recompute: graph @" << graph.getSymName()
             << " is already parallel; recompute the single-device step, "
                "then apply the parallelism passes";
    // Forward ops per block (up to the first backward op), and each block's
    // first backward op.
    llvm::MapVector<int64_t, SmallVector<FrameworkOp>> forward;
    llvm::DenseMap<int64_t, FrameworkOp> firstBackward;
    bool inBackward = false;
    for (FrameworkOp fw : graph.getBodyBlock().getOps<FrameworkOp>()) {
      if (isOptimizerOp(fw))
        continue;
      bool isForward = isForwardOp(fw);
      inBackward = inBackward || !isForward;
      std::optional<int64_t> layer = layerOf(fw);
      if (!layer)
        continue;
      if (!inBackward)
        forward[*layer].push_back(fw);
      else if (!isForward)
        firstBackward.try_emplace(*layer, fw);
    }
    if (forward.empty())
      return graph.emitError()
             << "--perf-recompute: graph @" << graph.getSymName()
             << " marks no transformer block (perf.layer); the model-config "
                "and fx importers write it";

    OpBuilder b(&getContext());
    for (auto &[layer, ops] : forward) {
      FrameworkOp before = firstBackward.lookup(layer);
      if (!before)
        continue;
      SmallVector<FrameworkOp> recomputed =
          granularity == "full" ? ops : coreAttention(ops);
      IRMapping clones;
      b.setInsertionPoint(before);
      for (FrameworkOp op : recomputed) {
        Operation *clone = b.clone(*op, clones);
        clone->setAttr(kRecomputedAttr, b.getUnitAttr());
      }
      // From the block's backward pass on, ops read the recomputed tensors.
      for (FrameworkOp op : recomputed)
        for (Value result : op->getResults())
          result.replaceUsesWithIf(clones.lookup(result), [&](OpOperand &use) {
            Operation *user = use.getOwner();
            return user == before || before->isBeforeInBlock(user);
          });
    }
    graph->setAttr(kRecomputeAttr, b.getStringAttr(granularity));
    return success();
  }
};
} // namespace
