//===- ResizeExtent.cpp - Scale one extent through kernels and types ------===//

#include "perf/Transforms/ResizeExtent.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/Limits.h"
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

LogicalResult perf::resizeKernelExtent(Operation *op, const ExtentScaler &s,
                                       StringRef pass) {
  Builder b(op->getContext());
  bool changed = false, tooLarge = false;
  // Scales the integer attribute `name` when it holds the extent.
  auto scaleAttr = [&](StringRef name) {
    auto attr = op->getAttrOfType<IntegerAttr>(name);
    if (!attr || !s.holds(attr.getInt()))
      return false;
    std::optional<int64_t> scaled = s.scale(attr.getInt());
    if (!scaled) {
      op->emitOpError() << pass << ": '" << name << "' of " << attr.getInt()
                        << " scaled by " << s.to << "/" << s.from
                        << " is above the limit " << kMaxExtent.name << " ("
                        << kMaxExtent.max << ")";
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
    if (getTrainingPass(op) == TrainingPass::Update)
      return success();
    scaleAttr("elements");
  } else if (isa<MemcpyOp, AllToAllOp, AllGatherOp, SendOp, RecvOp>(op)) {
    scaleAttr("bytes");
  } else if (auto generic = dyn_cast<GenericKernelOp>(op)) {
    // No shapes: FLOPs, bytes and a measured latency scale linearly.
    double ratio = double(s.to) / double(s.from);
    generic.setFlopsAttr(
        b.getF64FloatAttr(generic.getFlops().convertToDouble() * ratio));
    generic.setBytesAttr(
        b.getF64FloatAttr(generic.getBytes().convertToDouble() * ratio));
    for (StringRef latency : {kLatencyAttr, kMeasuredLatencyAttr})
      if (auto lat = op->getAttrOfType<FloatAttr>(latency)) {
        op->setAttr(latency, b.getF64FloatAttr(lat.getValueAsDouble() * ratio));
        op->setAttr(kLatencyScaleAttr, b.getF64FloatAttr(ratio));
      }
    // The scaled kernel is not the one the trace timed where it ran.
    op->removeAttr(kMeasuredStartAttr);
    return success();
  }
  if (changed)
    for (StringRef stale : {kLatencyAttr, kCostModelAttr, kMeasuredLatencyAttr,
                            kMeasuredStartAttr})
      op->removeAttr(stale);
  return failure(tooLarge);
}
