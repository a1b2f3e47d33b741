//===- PerfOps.cpp - perf dialect op verifiers and kernel descriptions ----===//

#include "perf/Dialect/PerfOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace perf;
using namespace mlir;

//===----------------------------------------------------------------------===//
// Graph and framework ops
//===----------------------------------------------------------------------===//

void GraphOp::build(OpBuilder &builder, OperationState &state, StringRef name) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  Region *body = state.addRegion();
  body->push_back(new Block());
}

LogicalResult GraphOp::verify() {
  if (getPhase() != "inference" && getPhase() != "training" &&
      getPhase() != "decode")
    return emitOpError("phase must be \"inference\", \"training\" or "
                       "\"decode\", got \"")
           << getPhase() << "\"";
  if (Attribute target = getTargetAttr())
    if (!isa<GpuAttr>(target) && !isa<SymbolRefAttr, StringAttr>(target) &&
        target.getDialect().getNamespace() != "perf")
      return emitOpError("target must be a #perf.gpu or #perf.system");
  // A step's inputs are the ops that make them (perf.op "input").
  if (getBodyBlock().getNumArguments() != 0)
    return emitOpError("body must take no arguments; make a step's inputs "
                       "with ops (perf.op \"input\")");
  // Kernels check that they are not directly in the body
  // (verifyKernelOp): a million-op body is not walked twice.
  return success();
}

void RepeatOp::build(OpBuilder &builder, OperationState &state, int64_t count,
                     ValueRange inits) {
  state.addAttribute(getCountAttrName(state.name),
                     builder.getI64IntegerAttr(count));
  state.addOperands(inits);
  state.addTypes(inits.getTypes());
  Region *body = state.addRegion();
  auto *block = new Block();
  body->push_back(block);
  for (Value init : inits)
    block->addArgument(init.getType(), init.getLoc());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(block);
  YieldOp::create(builder, state.location, block->getArguments());
}

OperandRange RepeatOp::getYielded() {
  return getBodyBlock().getTerminator()->getOperands();
}

int64_t RepeatOp::getUnrolledOpCount() {
  int64_t perCopy = 0;
  for (Operation &op : getBodyBlock()) {
    auto nested = dyn_cast<RepeatOp>(op);
    perCopy += nested ? nested.getUnrolledOpCount() : 1;
    perCopy = std::min(perCopy, kMaxUnrolledOps.max + 1);
  }
  auto count = static_cast<int64_t>(getCount());
  if (perCopy > 0 && count > (kMaxUnrolledOps.max + 1) / perCopy)
    return kMaxUnrolledOps.max + 1;
  return perCopy * count;
}

LogicalResult RepeatOp::verify() {
  Block &body = getBodyBlock();
  TypeRange inits = getInits().getTypes();
  if (body.getArgumentTypes() != inits)
    return emitOpError("body arguments must have the types of the initial "
                       "values (")
           << inits << "), got (" << body.getArgumentTypes() << ")";
  if (getYielded().getTypes() != inits)
    return emitOpError("must yield the types of the initial values (")
           << inits << "), got (" << getYielded().getTypes() << ")";
  if (getResultTypes() != inits)
    return emitOpError("results must have the types of the initial values (")
           << inits << "), got (" << getResultTypes() << ")";
  // The outermost repeat checks the whole nest once.
  if (isa<GraphOp>((*this)->getParentOp())) {
    int64_t unrolled = getUnrolledOpCount();
    if (!withinLimit(unrolled, kMaxUnrolledOps))
      return emitOpError("stands for more host ops once unrolled than the "
                         "limit ")
             << kMaxUnrolledOps.name << " (" << kMaxUnrolledOps.max << ")";
  }
  return success();
}

Block &FrameworkOp::getOrCreateBodyBlock() {
  if (getBody().empty())
    getBody().push_back(new Block());
  return getBody().front();
}

/// Whether `id` is a device or stream number: from 0 to max-devices.
static LogicalResult verifyPlacement(Operation *op, StringRef name,
                                     int64_t id) {
  if (id >= 0 && withinLimit(id, kMaxDevices))
    return success();
  return op->emitOpError("'")
         << name << "' must be from 0 to " << kMaxDevices.max << " (limit "
         << kMaxDevices.name << "), got " << id;
}

LogicalResult SyncOp::verify() {
  if (failed(
          verifyPlacement(*this, "device", static_cast<int64_t>(getDevice()))))
    return failure();
  if (std::optional<uint64_t> stream = getStream())
    return verifyPlacement(*this, "stream", static_cast<int64_t>(*stream));
  return success();
}

LogicalResult FrameworkOp::verify() {
  if (getOpName().empty())
    return emitOpError("needs a non-empty op name");
  if (failed(
          verifyPlacement(*this, "device", static_cast<int64_t>(getDevice()))))
    return failure();
  if (Block *body = getBodyBlockOrNull())
    for (Operation &op : *body)
      if (!isa<KernelOpInterface, CollectiveOpInterface>(op))
        return op.emitOpError("is not device work; only kernels, copies and "
                              "collectives may appear in a perf.op");
  return success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace {
/// Device work takes its own attributes and dialect-prefixed ones written
/// by passes (perf.latency_us); anything else is a misspelling that would
/// otherwise be ignored without a word.
LogicalResult verifyNoUnknownAttributes(Operation *op) {
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    if (attr.getName().getValue().contains('.'))
      continue;
    InFlightDiagnostic diag = op->emitOpError("has no attribute '")
                              << attr.getName().getValue() << "'; it takes";
    llvm::interleave(
        op->getName().getAttributeNames(),
        [&](StringAttr known) { diag << " '" << known.getValue() << "'"; },
        [&] { diag << ","; });
    return diag;
  }
  return success();
}

/// A training pass a kernel kind does not have (conv has no "bwd", an
/// embedding lookup no "dgrad").
LogicalResult verifyPassIn(Operation *op, TrainingPass pass,
                           ArrayRef<TrainingPass> allowed) {
  if (llvm::is_contained(allowed, pass))
    return success();
  InFlightDiagnostic diag = op->emitOpError() << "'pass' must be one of";
  for (TrainingPass a : allowed)
    diag << " " << stringifyTrainingPass(a);
  return diag << ", got " << stringifyTrainingPass(pass);
}

template <typename KernelT> KernelDesc commonDesc(KernelT op, KernelKind kind) {
  KernelDesc d;
  d.kind = kind;
  d.dtype = op.getDtype() ? getDType(*op.getDtype()) : DType::F32;
  d.pass = parseKernelPass(stringifyTrainingPass(op.getPass()))
               .value_or(KernelPass::Forward);
  d.tensorCores = op.getTensorCores();
  if (std::optional<StringRef> name = op.getKernelName())
    d.name = name->str();
  return d;
}

std::pair<int64_t, int64_t> pairOr(std::optional<ArrayRef<int64_t>> values,
                                   int64_t dflt) {
  if (!values || values->size() != 2)
    return {dflt, dflt};
  return {(*values)[0], (*values)[1]};
}
} // namespace

// ODS has checked the sizes, the [h, w] pairs, the dtype and the enums before
// this runs; what is left is what ODS cannot say.
LogicalResult perf::detail::verifyKernelOp(Operation *op) {
  if (failed(verifyNoUnknownAttributes(op)))
    return failure();
  // A step's or a repeat's body holds host ops, which launch the kernels.
  if (isa_and_nonnull<GraphOp, RepeatOp>(op->getParentOp()))
    return op->emitOpError("kernels must be launched from a perf.op");
  auto kernel = cast<KernelOpInterface>(op);
  if (failed(verifyPlacement(op, "device", kernel.getDeviceId())) ||
      failed(verifyPlacement(op, "stream", kernel.getStreamId())))
    return failure();
  return success();
}

StringRef perf::defaultLaunchCall(Operation *op) {
  return isa<MemcpyOp>(op) ? "cudaMemcpyAsync" : "cudaLaunchKernel";
}

KernelDesc GemmOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::Gemm);
  d.batch = getBatch();
  d.m = getM();
  d.n = getN();
  d.k = getK();
  d.transA = getTransA();
  d.transB = getTransB();
  return d;
}

LogicalResult Conv2dOp::verify() {
  if (getC() % getGroups() != 0 || getK() % getGroups() != 0)
    return emitOpError("'groups' (") << getGroups() << ") must divide c and k";
  if (failed(verifyPassIn(
          *this, getPass(),
          {TrainingPass::Fwd, TrainingPass::Dgrad, TrainingPass::Wgrad})))
    return failure();
  KernelDesc d = getKernelDesc();
  if (d.outH() <= 0 || d.outW() <= 0)
    return emitOpError("output is empty: filter larger than padded input");
  return success();
}

KernelDesc Conv2dOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::Conv2d);
  d.batch = getN();
  d.c = getC();
  d.h = getH();
  d.w = getW();
  d.outChannels = getK();
  d.r = getR();
  d.s = getS();
  std::tie(d.strideH, d.strideW) = pairOr(getStride(), 1);
  std::tie(d.padH, d.padW) = pairOr(getPad(), 0);
  std::tie(d.dilationH, d.dilationW) = pairOr(getDilation(), 1);
  d.groups = getGroups();
  return d;
}

LogicalResult ElementwiseOp::verify() {
  if (!isFiniteAtLeast(getFlopsPerElement().convertToDouble(), 0))
    return emitOpError("'flops_per_element' must be finite and non-negative");
  return success();
}

KernelDesc ElementwiseOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::Elementwise);
  d.numElements = getElements();
  d.numInputs = getInputs();
  d.flopsPerElement = getFlopsPerElement().convertToDouble();
  if (std::optional<StringRef> fn = getFn())
    d.op = fn->str();
  return d;
}

#define PERF_ROWS_COLS_KERNEL(OpT, Kind)                                       \
  KernelDesc OpT::getKernelDesc() {                                            \
    KernelDesc d = commonDesc(*this, Kind);                                    \
    d.rows = getRows();                                                        \
    d.cols = getCols();                                                        \
    return d;                                                                  \
  }
PERF_ROWS_COLS_KERNEL(ReduceOp, KernelKind::Reduce)
PERF_ROWS_COLS_KERNEL(SoftmaxOp, KernelKind::Softmax)
PERF_ROWS_COLS_KERNEL(LayerNormOp, KernelKind::LayerNorm)
#undef PERF_ROWS_COLS_KERNEL

LogicalResult EmbeddingBagOp::verify() {
  return verifyPassIn(*this, getPass(), {TrainingPass::Fwd, TrainingPass::Bwd});
}

KernelDesc EmbeddingBagOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::EmbeddingBag);
  d.numTables = getTables();
  d.tableRows = getRows();
  d.dim = getDim();
  d.batch = getBatch();
  d.pooling = getPooling();
  return d;
}

KernelDesc MemcpyOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::Memcpy);
  d.bytes = static_cast<double>(getBytes());
  d.copyKind = parseMemcpyKind(stringifyCopyDirection(getKind()))
                   .value_or(MemcpyKind::DeviceToDevice);
  return d;
}

#define PERF_ELEMENTS_KERNEL(OpT, Kind)                                        \
  KernelDesc OpT::getKernelDesc() {                                            \
    KernelDesc d = commonDesc(*this, Kind);                                    \
    d.numElements = getElements();                                             \
    return d;                                                                  \
  }
PERF_ELEMENTS_KERNEL(TransposeOp, KernelKind::Transpose)
PERF_ELEMENTS_KERNEL(ConcatOp, KernelKind::Concat)
#undef PERF_ELEMENTS_KERNEL

KernelDesc PoolingOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::Pooling);
  d.batch = getN();
  d.c = getC();
  d.h = getH();
  d.w = getW();
  d.r = getR();
  d.s = getS();
  std::tie(d.strideH, d.strideW) = pairOr(getStride(), 1);
  std::tie(d.padH, d.padW) = pairOr(getPad(), 0);
  return d;
}

KernelDesc BatchNormOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::BatchNorm);
  d.numElements = getElements();
  d.c = getChannels();
  // Mean, variance, normalize, scale and shift.
  d.flopsPerElement = 5;
  return d;
}

KernelDesc AttentionOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::Attention);
  d.batch = getBatch();
  d.heads = getHeads();
  d.m = getSeq();
  d.k = getHeadDim();
  d.n = getKvSeq().value_or(0);
  return d;
}

KernelDesc OptimizerOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::Optimizer);
  d.numElements = getElements();
  d.op = stringifyOptimizerAlgorithm(getAlgorithm()).str();
  bool adam = getAlgorithm() == OptimizerAlgorithm::Adam;
  // SGD with momentum reads param, grad, momentum; Adam also two moments.
  d.numInputs = adam ? 4 : 3;
  d.flopsPerElement = adam ? 12 : 3;
  return d;
}

LogicalResult GenericKernelOp::verify() {
  if (!isFiniteAtLeast(getFlops().convertToDouble(), 0) ||
      !isFiniteAtLeast(getBytes().convertToDouble(), 0))
    return emitOpError("'flops' and 'bytes' must be finite and non-negative");
  return success();
}

KernelDesc GenericKernelOp::getKernelDesc() {
  KernelDesc d = commonDesc(*this, KernelKind::Generic);
  d.flops = getFlops().convertToDouble();
  d.bytes = getBytes().convertToDouble();
  if (std::optional<StringRef> fn = getFn())
    d.op = fn->str();
  return d;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

DType perf::getDType(Type t) {
  if (t.isF64())
    return DType::F64;
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isTF32())
    return DType::TF32;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return DType::F8;
  if (t.isInteger(64))
    return DType::I64;
  if (t.isInteger(32))
    return DType::I32;
  if (t.isInteger(8))
    return DType::I8;
  if (t.isInteger(1))
    return DType::Bool;
  return DType::F32;
}

Type perf::getElementType(MLIRContext *context, DType dtype) {
  Builder b(context);
  switch (dtype) {
  case DType::F64:
    return b.getF64Type();
  case DType::F32:
    return b.getF32Type();
  case DType::TF32:
    return b.getTF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::F8:
    return b.getType<Float8E4M3FNType>();
  case DType::I64:
    return b.getI64Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I8:
    return b.getI8Type();
  case DType::Bool:
    return b.getI1Type();
  }
  return b.getF32Type();
}

bool perf::hasMeasuredLatency(Operation *op) {
  if (hasDiscardable(op, kMeasuredLatencyAttr))
    return true;
  auto model = getDiscardable<StringAttr>(op, kCostModelAttr);
  return model && model.getValue() == "measured" &&
         hasDiscardable(op, kLatencyAttr);
}

TrainingPass perf::getTrainingPass(Operation *op) {
  if (auto pass = op->getAttrOfType<TrainingPassAttr>("pass"))
    return pass.getValue();
  return TrainingPass::Fwd;
}

template <typename CollectiveT>
static LogicalResult verifyCollective(CollectiveT op, bool pointToPoint) {
  if (failed(verifyNoUnknownAttributes(op)))
    return failure();
  if (failed(verifyPlacement(op, "device",
                             static_cast<int64_t>(op.getDevice()))) ||
      failed(
          verifyPlacement(op, "stream", static_cast<int64_t>(op.getStream()))))
    return failure();
  ArrayRef<int64_t> group = op.getGroup();
  if (group.empty())
    return op.emitOpError("'group' must list at least one device");
  if (pointToPoint && group.size() != 2)
    return op.emitOpError("'group' must be [source, destination]");
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t d : group) {
    if (d < 0)
      return op.emitOpError("device ids in 'group' must be non-negative");
    if (!withinLimit(d, kMaxDevices))
      return op.emitOpError(limitExceeded("device id", d, kMaxDevices));
    if (!seen.insert(d).second)
      return op.emitOpError("device ") << d << " appears twice in 'group'";
  }
  return success();
}

LogicalResult AllReduceOp::verify() { return verifyCollective(*this, false); }
LogicalResult AllGatherOp::verify() { return verifyCollective(*this, false); }
LogicalResult ReduceScatterOp::verify() {
  return verifyCollective(*this, false);
}
LogicalResult AllToAllOp::verify() {
  if (failed(verifyCollective(*this, false)))
    return failure();
  std::optional<ArrayRef<int64_t>> splits = getSplitBytes();
  if (!splits)
    return success();
  size_t n = getGroup().size();
  if (splits->size() != n * n)
    return emitOpError("'split_bytes' must have ")
           << n * n << " entries (group size squared), not " << splits->size();
  int64_t most = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t sent = 0;
    for (size_t j = 0; j < n; ++j) {
      int64_t b = (*splits)[i * n + j];
      if (b < 0)
        return emitOpError("'split_bytes' must be non-negative");
      if (i != j)
        sent += b;
    }
    most = std::max(most, sent);
  }
  if (most != static_cast<int64_t>(getBytes()))
    return emitOpError("'bytes' must be the most a device sends in "
                       "'split_bytes' (")
           << most << ")";
  return success();
}
LogicalResult SendOp::verify() { return verifyCollective(*this, true); }
LogicalResult RecvOp::verify() { return verifyCollective(*this, true); }

#define GET_OP_CLASSES
#include "perf/Dialect/PerfOps.cpp.inc"
