//===- ResizeBatch.cpp - --perf-resize-batch ----------------------------===//
//
// What-if on the batch size: the batch appears in tensor shapes and in
// kernel sizes, sometimes folded with another dimension (batch x sequence
// rows of a GEMM, batch x pooling lookups). A size scales when it equals
// the old batch or is a multiple of it; sizes of parameters (optimizer
// updates, gradient all_reduces) do not depend on the batch.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/Limits.h"
#include "perf/Transforms/EstimateBaseline.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ResizeExtent.h"
#include "perf/Transforms/UnrolledWalk.h"
#include <map>

namespace perf {
#define GEN_PASS_DEF_RESIZEBATCH
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
/// The most common leading dimension (> 1) of the ranked tensors the graph's
/// ops produce.
int64_t inferBatch(GraphOp graph) {
  std::map<int64_t, unsigned> counts;
  graph.walk([&](FrameworkOp op) {
    for (Type t : op->getResultTypes())
      if (auto ranked = dyn_cast<RankedTensorType>(t))
        if (ranked.getRank() >= 2 && !ranked.isDynamicDim(0) &&
            ranked.getDimSize(0) > 1)
          ++counts[ranked.getDimSize(0)];
  });
  int64_t best = 0;
  unsigned bestCount = 0;
  for (auto [dim, n] : counts)
    if (n > bestCount) {
      best = dim;
      bestCount = n;
    }
  return best;
}

struct ResizeBatchPass : perf::impl::ResizeBatchBase<ResizeBatchPass> {
  using ResizeBatchBase::ResizeBatchBase;

  /// `--perf-resize-batch=N` is the short form of
  /// `--perf-resize-batch=batch=N`.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    int64_t value;
    std::string rewritten;
    if (!options.trim().empty() && !options.trim().getAsInteger(10, value)) {
      rewritten = ("batch=" + options.trim()).str();
      options = rewritten;
    }
    return ResizeBatchBase::initializeOptions(options, errorHandler);
  }

  // Options are checked before any graph runs.
  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    if (batch <= 0)
      return emitError(loc, "perf-resize-batch needs a positive batch "
                            "(--perf-resize-batch=N)");
    if (!withinLimit(batch, kMaxExtent) || !withinLimit(from, kMaxExtent))
      return emitError(loc, "--perf-resize-batch: ") << limitExceeded(
                 withinLimit(batch, kMaxExtent) ? "from" : "batch",
                 withinLimit(batch, kMaxExtent) ? from : batch, kMaxExtent);
    return success();
  }

  void runOnOperation() override {
    GraphOp graph = getOperation();
    if (failed(requireUnrolled(graph, getArgument())))
      return signalPassFailure();
    int64_t old = from;
    if (old <= 0)
      if (auto attr = graph->getAttrOfType<IntegerAttr>(kBatchAttr))
        old = attr.getInt();
    if (old <= 0)
      old = inferBatch(graph);
    if (old <= 0) {
      graph.emitError("cannot tell the batch size of the graph; give "
                      "--perf-resize-batch=\"batch=N from=M\"");
      return signalPassFailure();
    }
    Builder b(graph.getContext());
    graph->setAttr(kBatchAttr, b.getI64IntegerAttr(batch));
    if (old == batch)
      return;
    if (failed(resizeGraph(graph, ExtentScaler{old, batch})))
      return signalPassFailure();
    recordBaseline(graph, ("perf-resize-batch " + std::to_string(old) + "->" +
                           std::to_string(batch)));
  }

  LogicalResult resizeGraph(GraphOp graph, const ExtentScaler &s) {
    bool tooLarge = false;
    graph.walk([&](Operation *op) {
      if (tooLarge)
        return;
      if (auto fw = dyn_cast<FrameworkOp>(op))
        if (failed(resizeWorkExtent(fw, s, "--perf-resize-batch"))) {
          tooLarge = true;
          return;
        }
      for (OpResult r : op->getResults())
        r.setType(resizeType(r.getType(), s));
    });
    return failure(tooLarge);
  }
};
} // namespace
