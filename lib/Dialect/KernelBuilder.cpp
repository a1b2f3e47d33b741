//===- KernelBuilder.cpp - Kernel and collective ops from descriptions ----===//
//
// The inverse of getKernelDesc. Importers, the linalg conversion and the
// training synthesis describe device work as a KernelDesc and build it here,
// so a kernel kind's attributes are spelt in one place (PerfOps.td) and read
// back by one function per op.
//
//===----------------------------------------------------------------------===//

#include "perf/Dialect/PerfOps.h"

using namespace perf;
using namespace mlir;

namespace {

/// Sets the attributes every kernel shares, leaving defaults unset so that
/// printed IR stays minimal.
template <typename OpT>
OpT createKernel(OpBuilder &b, Location loc, const KernelDesc &d) {
  auto op = OpT::create(b, loc, TypeRange(), ValueRange(),
                        ArrayRef<NamedAttribute>());
  op.setDtypeAttr(TypeAttr::get(getElementType(b.getContext(), d.dtype)));
  if (d.pass != KernelPass::Forward)
    op.setPass(*symbolizeTrainingPass(kernelPassAttrName(d.kind, d.pass)));
  if (d.tensorCores)
    op.setTensorCoresAttr(b.getUnitAttr());
  if (!d.name.empty())
    op.setKernelNameAttr(b.getStringAttr(d.name));
  return op;
}

DenseI64ArrayAttr pair(OpBuilder &b, int64_t first, int64_t second) {
  return b.getDenseI64ArrayAttr({first, second});
}

/// The input and window of a conv or pooling kernel.
template <typename OpT>
void setWindow(OpBuilder &b, OpT op, const KernelDesc &d) {
  op.setNAttr(b.getI64IntegerAttr(d.batch));
  op.setCAttr(b.getI64IntegerAttr(d.c));
  op.setHAttr(b.getI64IntegerAttr(d.h));
  op.setWAttr(b.getI64IntegerAttr(d.w));
  op.setRAttr(b.getI64IntegerAttr(d.r));
  op.setSAttr(b.getI64IntegerAttr(d.s));
  op.setStrideAttr(pair(b, d.strideH, d.strideW));
  op.setPadAttr(pair(b, d.padH, d.padW));
}

template <typename OpT>
OpT createRowsCols(OpBuilder &b, Location loc, const KernelDesc &d) {
  auto op = createKernel<OpT>(b, loc, d);
  op.setRowsAttr(b.getI64IntegerAttr(d.rows));
  op.setColsAttr(b.getI64IntegerAttr(d.cols));
  return op;
}

template <typename OpT>
OpT createElements(OpBuilder &b, Location loc, const KernelDesc &d) {
  auto op = createKernel<OpT>(b, loc, d);
  op.setElementsAttr(b.getI64IntegerAttr(d.numElements));
  return op;
}

} // namespace

KernelOpInterface perf::buildKernelOp(OpBuilder &b, Location loc,
                                      const KernelDesc &d) {
  if (!d.hasValidSizes())
    return nullptr;
  auto i64 = [&](int64_t v) { return b.getI64IntegerAttr(v); };
  KernelKind kind = d.hasWorkOverride() ? KernelKind::Generic : d.kind;
  switch (kind) {
  case KernelKind::Gemm: {
    auto op = createKernel<GemmOp>(b, loc, d);
    if (d.batch != 1)
      op.setBatchAttr(i64(d.batch));
    op.setMAttr(i64(d.m));
    op.setNAttr(i64(d.n));
    op.setKAttr(i64(d.k));
    if (d.transA)
      op.setTransAAttr(b.getUnitAttr());
    if (d.transB)
      op.setTransBAttr(b.getUnitAttr());
    return op;
  }
  case KernelKind::Conv2d: {
    auto op = createKernel<Conv2dOp>(b, loc, d);
    setWindow(b, op, d);
    op.setKAttr(i64(d.outChannels));
    if (d.dilationH != 1 || d.dilationW != 1)
      op.setDilationAttr(pair(b, d.dilationH, d.dilationW));
    if (d.groups != 1)
      op.setGroupsAttr(i64(d.groups));
    return op;
  }
  case KernelKind::Pooling: {
    auto op = createKernel<PoolingOp>(b, loc, d);
    setWindow(b, op, d);
    return op;
  }
  case KernelKind::Elementwise: {
    auto op = createElements<ElementwiseOp>(b, loc, d);
    if (d.numInputs != 1)
      op.setInputsAttr(i64(d.numInputs));
    if (d.flopsPerElement != 1.0)
      op.setFlopsPerElementAttr(b.getF64FloatAttr(d.flopsPerElement));
    if (!d.op.empty())
      op.setFnAttr(b.getStringAttr(d.op));
    return op;
  }
  case KernelKind::Reduce:
    return createRowsCols<ReduceOp>(b, loc, d);
  case KernelKind::Softmax:
    return createRowsCols<SoftmaxOp>(b, loc, d);
  case KernelKind::LayerNorm:
    return createRowsCols<LayerNormOp>(b, loc, d);
  case KernelKind::EmbeddingBag: {
    auto op = createKernel<EmbeddingBagOp>(b, loc, d);
    if (d.numTables != 1)
      op.setTablesAttr(i64(d.numTables));
    op.setRowsAttr(i64(d.tableRows));
    op.setDimAttr(i64(d.dim));
    op.setBatchAttr(i64(d.batch));
    if (d.pooling != 1)
      op.setPoolingAttr(i64(d.pooling));
    return op;
  }
  case KernelKind::Memcpy: {
    auto op = createKernel<MemcpyOp>(b, loc, d);
    op.setBytesAttr(i64(static_cast<int64_t>(d.bytes)));
    if (d.copyKind != MemcpyKind::DeviceToDevice)
      op.setKind(*symbolizeCopyDirection(memcpyKindName(d.copyKind)));
    return op;
  }
  case KernelKind::Transpose:
    return createElements<TransposeOp>(b, loc, d);
  case KernelKind::Concat:
    return createElements<ConcatOp>(b, loc, d);
  case KernelKind::BatchNorm: {
    auto op = createElements<BatchNormOp>(b, loc, d);
    op.setChannelsAttr(i64(d.c));
    return op;
  }
  case KernelKind::Attention: {
    auto op = createKernel<AttentionOp>(b, loc, d);
    op.setBatchAttr(i64(d.batch));
    op.setHeadsAttr(i64(d.heads));
    op.setSeqAttr(i64(d.m));
    op.setHeadDimAttr(i64(d.k));
    if (d.n > 0 && d.n != d.m)
      op.setKvSeqAttr(i64(d.n));
    return op;
  }
  case KernelKind::Optimizer: {
    std::optional<OptimizerAlgorithm> algorithm =
        d.op.empty() ? OptimizerAlgorithm::SGD
                     : symbolizeOptimizerAlgorithm(d.op);
    if (!algorithm)
      return nullptr;
    auto op = createElements<OptimizerOp>(b, loc, d);
    if (*algorithm != OptimizerAlgorithm::SGD)
      op.setAlgorithm(*algorithm);
    return op;
  }
  case KernelKind::Generic: {
    auto op = createKernel<GenericKernelOp>(b, loc, d);
    op.setFlopsAttr(b.getF64FloatAttr(d.totalFlops()));
    op.setBytesAttr(b.getF64FloatAttr(d.totalBytes()));
    if (!d.op.empty())
      op.setFnAttr(b.getStringAttr(d.op));
    return op;
  }
  }
  return nullptr;
}

namespace {
template <typename OpT>
Operation *createCollective(OpBuilder &b, Location loc,
                            const CollectiveDesc &d, ArrayRef<int64_t> group) {
  auto op = OpT::create(b, loc, TypeRange(), ValueRange(),
                        ArrayRef<NamedAttribute>());
  op.setBytesAttr(b.getI64IntegerAttr(d.bytes));
  op.setGroupAttr(b.getDenseI64ArrayAttr(group));
  op.setDtypeAttr(TypeAttr::get(getElementType(b.getContext(), d.dtype)));
  return op;
}
} // namespace

Operation *perf::buildCollectiveOp(OpBuilder &b, Location loc,
                                   const CollectiveDesc &d,
                                   ArrayRef<int64_t> group) {
  if (d.bytes <= 0 || group.empty())
    return nullptr;
  switch (d.kind) {
  case CollectiveKind::AllReduce:
    return createCollective<AllReduceOp>(b, loc, d, group);
  case CollectiveKind::AllGather:
    return createCollective<AllGatherOp>(b, loc, d, group);
  case CollectiveKind::ReduceScatter:
    return createCollective<ReduceScatterOp>(b, loc, d, group);
  case CollectiveKind::AllToAll:
    return createCollective<AllToAllOp>(b, loc, d, group);
  case CollectiveKind::Broadcast:
  case CollectiveKind::SendRecv:
    return nullptr;
  }
  return nullptr;
}
