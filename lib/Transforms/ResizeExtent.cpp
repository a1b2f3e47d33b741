//===- ResizeExtent.cpp - Scale one extent through kernels and types ------===//

#include "perf/Transforms/ResizeExtent.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/Limits.h"
#include "perf/Transforms/DistributedUtils.h"
#include "llvm/Support/MathExtras.h"
#include <functional>

using namespace perf;
using namespace mlir;

std::optional<int64_t> ExtentScaler::scale(int64_t v) const {
  int64_t scaled;
  if (llvm::MulOverflow(v / from, to, scaled) ||
      !withinLimit(scaled, kMaxExtent))
    return std::nullopt;
  return scaled;
}

Type perf::resizeType(Type type, const ExtentScaler &s, bool exactOnly) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return type;
  SmallVector<int64_t> dims(ranked.getShape());
  // Prefer a dimension that is exactly the extent; else the leading one when
  // it folds the extent with another dimension.
  for (int64_t &d : dims)
    if (d == s.from) {
      d = s.to;
      return RankedTensorType::get(dims, ranked.getElementType(),
                                   ranked.getEncoding());
    }
  if (!exactOnly && !dims.empty() && dims[0] != ShapedType::kDynamic &&
      s.holds(dims[0])) {
    // A dimension past the limits keeps its size; the kernels that hold it
    // report the limit.
    dims[0] = s.scale(dims[0]).value_or(dims[0]);
    return RankedTensorType::get(dims, ranked.getElementType(),
                                 ranked.getEncoding());
  }
  return type;
}

namespace {
/// One size of a piece of work: its attribute's name (for errors), its
/// value and how the work reads with another value.
struct Extent {
  StringRef name;
  int64_t value;
  std::function<WorkAttr(int64_t)> with;
};

/// Scales the sizes of one piece of work that hold the extent.
class WorkResizer {
public:
  WorkResizer(FrameworkOp op, WorkAttr work, const ExtentScaler &s,
              StringRef pass)
      : op(op), work(work), s(s), pass(pass) {}

  /// `work` with its sizes that hold the extent scaled; fails, after an
  /// error on `op`, when one is past max-extent.
  FailureOr<WorkAttr> resize();

private:
  /// Scales `e` when it holds the extent; whether it did.
  bool scale(const Extent &e);
  /// The first of `extents` that is exactly the extent, else the first
  /// that is a multiple of it.
  void scaleExactThenMultiple(ArrayRef<Extent> extents);

  FrameworkOp op;
  WorkAttr work;
  const ExtentScaler &s;
  StringRef pass;
  WorkAttr resized;
  bool tooLarge = false;
};
} // namespace

bool WorkResizer::scale(const Extent &e) {
  if (!s.holds(e.value))
    return false;
  std::optional<int64_t> scaled = s.scale(e.value);
  if (!scaled) {
    op.emitWorkError(work) << pass << ": '" << e.name << "' of " << e.value
                           << " scaled by " << s.to << "/" << s.from
                           << " is above the limit " << kMaxExtent.name << " ("
                           << kMaxExtent.max << ")";
    tooLarge = true;
    return true;
  }
  resized = e.with(*scaled);
  return true;
}

void WorkResizer::scaleExactThenMultiple(ArrayRef<Extent> extents) {
  for (const Extent &e : extents)
    if (e.value == s.from)
      return (void)scale(e);
  for (const Extent &e : extents)
    if (scale(e))
      return;
}

FailureOr<WorkAttr> WorkResizer::resize() {
  if (work.getTrainingPass() == TrainingPass::Update &&
      isa<ElementwiseWork, ConcatWork, TransposeWork, BatchNormWork>(work))
    return work;
  if (auto gemm = dyn_cast<GemmWork>(work)) {
    if (gemm.getBatch() > 1 && s.holds(gemm.getBatch()))
      scale({"batch", gemm.getBatch(),
             [&](int64_t v) { return gemm.withBatch(v); }});
    else
      scaleExactThenMultiple(
          {{"m", gemm.getM(), [&](int64_t v) { return gemm.withM(v); }},
           {"n", gemm.getN(), [&](int64_t v) { return gemm.withN(v); }},
           {"k", gemm.getK(), [&](int64_t v) { return gemm.withK(v); }}});
  } else if (auto lookup = dyn_cast<EmbeddingBagWork>(work)) {
    scale({"batch", lookup.getBatch(),
           [&](int64_t v) { return lookup.withBatch(v); }});
  } else if (auto attention = dyn_cast<AttentionWork>(work)) {
    scale({"batch", attention.getBatch(),
           [&](int64_t v) { return attention.withBatch(v); }});
  } else if (auto conv = dyn_cast<Conv2dWork>(work)) {
    scale({"n", conv.getN(), [&](int64_t v) { return conv.withN(v); }});
  } else if (auto pooling = dyn_cast<PoolingWork>(work)) {
    scale({"n", pooling.getN(), [&](int64_t v) { return pooling.withN(v); }});
  } else if (auto row = dyn_cast<ReduceWork>(work)) {
    scaleExactThenMultiple(
        {{"rows", row.getRows(), [&](int64_t v) { return row.withRows(v); }},
         {"cols", row.getCols(), [&](int64_t v) { return row.withCols(v); }}});
  } else if (auto row = dyn_cast<SoftmaxWork>(work)) {
    scaleExactThenMultiple(
        {{"rows", row.getRows(), [&](int64_t v) { return row.withRows(v); }},
         {"cols", row.getCols(), [&](int64_t v) { return row.withCols(v); }}});
  } else if (auto row = dyn_cast<LayerNormWork>(work)) {
    scaleExactThenMultiple(
        {{"rows", row.getRows(), [&](int64_t v) { return row.withRows(v); }},
         {"cols", row.getCols(), [&](int64_t v) { return row.withCols(v); }}});
  } else if (auto elementwise = dyn_cast<ElementwiseWork>(work)) {
    scale({"elements", elementwise.getElements(),
           [&](int64_t v) { return elementwise.withElements(v); }});
  } else if (auto concat = dyn_cast<ConcatWork>(work)) {
    scale({"elements", concat.getElements(),
           [&](int64_t v) { return concat.withElements(v); }});
  } else if (auto transpose = dyn_cast<TransposeWork>(work)) {
    scale({"elements", transpose.getElements(),
           [&](int64_t v) { return transpose.withElements(v); }});
  } else if (auto norm = dyn_cast<BatchNormWork>(work)) {
    scale({"elements", norm.getElements(),
           [&](int64_t v) { return norm.withElements(v); }});
  } else if (auto copy = dyn_cast<MemcpyWork>(work)) {
    scale({"bytes", copy.getBytes(),
           [&](int64_t v) { return copy.withBytes(v); }});
  } else if (isa<AllToAllWork, AllGatherWork, SendWork, RecvWork>(work)) {
    auto collective = cast<CollectiveWork>(work);
    scale({"bytes", collective.getBytes(),
           [&](int64_t v) { return collective.withBytes(v); }});
  } else if (auto generic = dyn_cast<GenericWork>(work)) {
    // No shapes: FLOPs, bytes and a measured latency scale linearly.
    double ratio = double(s.to) / double(s.from);
    Builder b(op.getContext());
    return generic.withFlops(generic.getFlops() * ratio)
        .withBytes(generic.getBytes() * ratio)
        .with([&](NamedAttrList &attrs) {
          for (StringRef latency : {kLatencyAttr, kMeasuredLatencyAttr})
            if (auto lat = work.getAs<FloatAttr>(latency)) {
              attrs.set(latency,
                        b.getF64FloatAttr(lat.getValueAsDouble() * ratio));
              attrs.set(kLatencyScaleAttr, b.getF64FloatAttr(ratio));
            }
          // The scaled kernel is not the one the trace timed where it ran.
          attrs.erase(kMeasuredStartAttr);
        });
  }
  if (tooLarge)
    return failure();
  if (!resized)
    return work;
  return resized.with([](NamedAttrList &attrs) {
    for (StringRef stale : {kLatencyAttr, kCostModelAttr, kMeasuredLatencyAttr,
                            kMeasuredStartAttr})
      attrs.erase(stale);
  });
}

LogicalResult perf::resizeWorkExtent(FrameworkOp op, const ExtentScaler &s,
                                     StringRef pass) {
  if (!op.hasWork())
    return success();
  SmallVector<WorkAttr> work(op.getWorkList());
  for (WorkAttr &w : work) {
    FailureOr<WorkAttr> resized = WorkResizer(op, w, s, pass).resize();
    if (failed(resized))
      return failure();
    w = *resized;
  }
  op.setWorkList(work);
  return success();
}
