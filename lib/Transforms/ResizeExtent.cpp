//===- ResizeExtent.cpp - Scale one extent through kernels and types ------===//

#include "perf/Transforms/ResizeExtent.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/Limits.h"
#include "perf/Transforms/DistributedUtils.h"
#include "llvm/Support/MathExtras.h"

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

/// `work` with its sizes that hold the extent scaled; fails, after an error
/// on `op`, when one is past max-extent.
static FailureOr<WorkAttr> resizeWork(FrameworkOp op, WorkAttr work,
                                      const ExtentScaler &s, StringRef pass) {
  Builder b(op.getContext());
  NamedAttrList attrs(work.getAttrs());
  bool changed = false, tooLarge = false;
  auto intAttr = [&](StringRef name) {
    return dyn_cast_if_present<IntegerAttr>(attrs.get(name));
  };
  // Scales the integer attribute `name` when it holds the extent.
  auto scaleAttr = [&](StringRef name) {
    IntegerAttr attr = intAttr(name);
    if (!attr || !s.holds(attr.getInt()))
      return false;
    std::optional<int64_t> scaled = s.scale(attr.getInt());
    if (!scaled) {
      op.emitWorkError(work)
          << pass << ": '" << name << "' of " << attr.getInt() << " scaled by "
          << s.to << "/" << s.from << " is above the limit " << kMaxExtent.name
          << " (" << kMaxExtent.max << ")";
      tooLarge = true;
      return true;
    }
    // A GEMM's batch of 1, its default, is left out by WorkAttr::get.
    attrs.set(name, b.getI64IntegerAttr(*scaled));
    changed = true;
    return true;
  };
  auto exactThenMultiple = [&](ArrayRef<StringRef> names) {
    for (StringRef n : names)
      if (IntegerAttr a = intAttr(n))
        if (a.getInt() == s.from)
          return (void)scaleAttr(n);
    for (StringRef n : names)
      if (scaleAttr(n))
        return;
  };
  switch (work.getKind()) {
  case WorkKind::Gemm: {
    int64_t gemmBatch = work.getInt("batch", 1);
    if (gemmBatch > 1 && s.holds(gemmBatch))
      scaleAttr("batch");
    else
      exactThenMultiple({"m", "n", "k"});
    break;
  }
  case WorkKind::EmbeddingBag:
  case WorkKind::Attention:
    scaleAttr("batch");
    break;
  case WorkKind::Conv2d:
  case WorkKind::Pooling:
    scaleAttr("n");
    break;
  case WorkKind::Reduce:
  case WorkKind::Softmax:
  case WorkKind::LayerNorm:
    exactThenMultiple({"rows", "cols"});
    break;
  case WorkKind::Elementwise:
  case WorkKind::Concat:
  case WorkKind::Transpose:
  case WorkKind::BatchNorm:
    if (work.getTrainingPass() == TrainingPass::Update)
      return work;
    scaleAttr("elements");
    break;
  case WorkKind::Memcpy:
  case WorkKind::AllToAll:
  case WorkKind::AllGather:
  case WorkKind::Send:
  case WorkKind::Recv:
    scaleAttr("bytes");
    break;
  case WorkKind::Kernel: {
    // No shapes: FLOPs, bytes and a measured latency scale linearly.
    double ratio = double(s.to) / double(s.from);
    attrs.set("flops", b.getF64FloatAttr(work.getFloat("flops") * ratio));
    attrs.set("bytes", b.getF64FloatAttr(work.getFloat("bytes") * ratio));
    for (StringRef latency : {kLatencyAttr, kMeasuredLatencyAttr})
      if (auto lat = work.getAs<FloatAttr>(latency)) {
        attrs.set(latency, b.getF64FloatAttr(lat.getValueAsDouble() * ratio));
        attrs.set(kLatencyScaleAttr, b.getF64FloatAttr(ratio));
      }
    // The scaled kernel is not the one the trace timed where it ran.
    attrs.erase(kMeasuredStartAttr);
    return WorkAttr::get(op.getContext(), work.getKind(),
                         attrs.getDictionary(op.getContext()));
  }
  default:
    break;
  }
  if (tooLarge)
    return failure();
  if (!changed)
    return work;
  for (StringRef stale :
       {kLatencyAttr, kCostModelAttr, kMeasuredLatencyAttr, kMeasuredStartAttr})
    attrs.erase(stale);
  return WorkAttr::get(op.getContext(), work.getKind(),
                       attrs.getDictionary(op.getContext()));
}

LogicalResult perf::resizeWorkExtent(FrameworkOp op, const ExtentScaler &s,
                                     StringRef pass) {
  if (!op.hasWork())
    return success();
  SmallVector<WorkAttr> work(op.getWorkList());
  for (WorkAttr &w : work) {
    FailureOr<WorkAttr> resized = resizeWork(op, w, s, pass);
    if (failed(resized))
      return failure();
    w = *resized;
  }
  op.setWorkList(work);
  return success();
}
