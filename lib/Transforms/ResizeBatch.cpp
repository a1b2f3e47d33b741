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
#include "llvm/Support/MathExtras.h"
#include <map>

namespace perf {
#define GEN_PASS_DEF_RESIZEBATCH
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct Scaler {
  int64_t from, to;
  /// Whether `v` holds the batch (equal to it or a multiple of it).
  bool holds(int64_t v) const { return v >= from && v % from == 0; }
  /// `v` with the new batch; nullopt above max-extent (or an int64).
  std::optional<int64_t> scale(int64_t v) const {
    int64_t scaled;
    if (llvm::MulOverflow(v / from, to, scaled) ||
        !withinLimit(scaled, kMaxExtent))
      return std::nullopt;
    return scaled;
  }
};

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

Type resizeType(Type type, const Scaler &s) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return type;
  SmallVector<int64_t> dims(ranked.getShape());
  // Prefer a dimension that is exactly the batch; else the leading one when
  // it folds the batch with another dimension.
  for (int64_t &d : dims)
    if (d == s.from) {
      d = s.to;
      return RankedTensorType::get(dims, ranked.getElementType(),
                                   ranked.getEncoding());
    }
  if (!dims.empty() && dims[0] != ShapedType::kDynamic && s.holds(dims[0])) {
    // A dimension past the limits keeps its size; the kernels that hold it
    // report the limit.
    dims[0] = s.scale(dims[0]).value_or(dims[0]);
    return RankedTensorType::get(dims, ranked.getElementType(),
                                 ranked.getEncoding());
  }
  return type;
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

  void runOnOperation() override {
    if (batch <= 0) {
      getOperation().emitError(
          "perf-resize-batch needs a positive batch (--perf-resize-batch=N)");
      return signalPassFailure();
    }
    if (!withinLimit(batch, kMaxExtent) || !withinLimit(from, kMaxExtent)) {
      getOperation().emitError("--perf-resize-batch: ") << limitExceeded(
          withinLimit(batch, kMaxExtent) ? "from" : "batch",
          withinLimit(batch, kMaxExtent) ? from : batch, kMaxExtent);
      return signalPassFailure();
    }
    WalkResult result = getOperation().walk([&](GraphOp graph) {
      int64_t old = from;
      if (old <= 0)
        if (auto attr = graph->getAttrOfType<IntegerAttr>("perf.batch"))
          old = attr.getInt();
      if (old <= 0)
        old = inferBatch(graph);
      if (old <= 0) {
        graph.emitError("cannot tell the batch size of the graph; give "
                        "--perf-resize-batch=\"batch=N from=M\"");
        return WalkResult::interrupt();
      }
      Builder b(graph.getContext());
      graph->setAttr("perf.batch", b.getI64IntegerAttr(batch));
      if (old == batch)
        return WalkResult::advance();
      if (failed(resizeGraph(graph, Scaler{old, batch})))
        return WalkResult::interrupt();
      recordBaseline(graph, ("perf-resize-batch " + std::to_string(old) + "->" +
                             std::to_string(batch)));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult resizeGraph(GraphOp graph, const Scaler &s) {
    Builder b(graph.getContext());
    double ratio = double(s.to) / s.from;
    bool tooLarge = false;
    graph.walk([&](Operation *op) {
      if (tooLarge)
        return;
      for (OpResult r : op->getResults())
        r.setType(resizeType(r.getType(), s));
      if (isa<GraphOp, FrameworkOp, SyncOp>(op))
        return;
      bool changed = false;
      // Scales the integer attribute `name` when it holds the batch.
      auto scaleAttr = [&](StringRef name) {
        auto attr = op->getAttrOfType<IntegerAttr>(name);
        if (!attr || !s.holds(attr.getInt()))
          return false;
        std::optional<int64_t> scaled = s.scale(attr.getInt());
        if (!scaled) {
          op->emitOpError("--perf-resize-batch: '")
              << name << "' of " << attr.getInt() << " scaled by " << s.to
              << "/" << s.from << " is above the limit " << kMaxExtent.name
              << " (" << kMaxExtent.max << ")";
          tooLarge = true;
          return true;
        }
        op->setAttr(name, b.getI64IntegerAttr(*scaled));
        changed = true;
        return true;
      };
      auto exactThenMultiple = [&](ArrayRef<StringRef> names) {
        for (StringRef n : names)
          if (auto a = op->getAttrOfType<IntegerAttr>(n))
            if (a.getInt() == s.from)
              return (void)scaleAttr(n);
        for (StringRef n : names)
          if (scaleAttr(n))
            return;
      };
      if (auto gemm = dyn_cast<GemmOp>(op)) {
        // batch is a default-valued attribute: materialize it to scale it.
        int64_t gemmBatch = static_cast<int64_t>(gemm.getBatch());
        if (gemmBatch > 1 && s.holds(gemmBatch)) {
          // Materialized, then scaled (with its limit) like the others.
          gemm->setAttr("batch", b.getI64IntegerAttr(gemmBatch));
          scaleAttr("batch");
        } else {
          exactThenMultiple({"m", "n", "k"});
        }
      } else if (isa<EmbeddingBagOp, AttentionOp>(op)) {
        scaleAttr("batch");
      } else if (isa<Conv2dOp, PoolingOp>(op)) {
        scaleAttr("n");
      } else if (isa<ReduceOp, SoftmaxOp, LayerNormOp>(op)) {
        exactThenMultiple({"rows", "cols"});
      } else if (isa<ElementwiseOp, ConcatOp, TransposeOp, BatchNormOp>(op)) {
        auto pass = op->getAttrOfType<StringAttr>("pass");
        if (pass && pass.getValue() == "update")
          return;
        scaleAttr("elements");
      } else if (isa<MemcpyOp, AllToAllOp, AllGatherOp, SendOp, RecvOp>(op)) {
        scaleAttr("bytes");
      } else if (isa<GenericKernelOp>(op)) {
        // No shapes: FLOPs, bytes and a measured latency scale linearly.
        auto generic = cast<GenericKernelOp>(op);
        generic.setFlopsAttr(
            b.getF64FloatAttr(generic.getFlops().convertToDouble() * ratio));
        generic.setBytesAttr(
            b.getF64FloatAttr(generic.getBytes().convertToDouble() * ratio));
        for (StringRef latency :
             {PerfDialect::kLatencyAttr, PerfDialect::kMeasuredLatencyAttr})
          if (auto lat = op->getAttrOfType<FloatAttr>(latency)) {
            op->setAttr(latency,
                        b.getF64FloatAttr(lat.getValueAsDouble() * ratio));
            op->setAttr("perf.latency_scale", b.getF64FloatAttr(ratio));
          }
        return;
      }
      if (changed)
        for (StringRef stale :
             {PerfDialect::kLatencyAttr, PerfDialect::kCostModelAttr,
              PerfDialect::kMeasuredLatencyAttr})
          op->removeAttr(stale);
    });
    return failure(tooLarge);
  }
};
} // namespace
