//===- KernelBuilder.cpp - Device work from descriptions -----------------===//
//
// The inverse of WorkAttr::getKernelDesc. Importers, the linalg conversion
// and the training synthesis describe device work as a KernelDesc and build
// it here, so a kind's attributes are spelt in one place (WorkSchema.cpp)
// and read back by one function (getKernelDesc).
//
//===----------------------------------------------------------------------===//

#include "perf/Dialect/PerfOps.h"

using namespace perf;
using namespace mlir;

namespace {
/// The attributes of one piece of work, in the order they are added.
class WorkAttrs {
public:
  WorkAttrs(MLIRContext *context, function_ref<InFlightDiagnostic()> emitError)
      : b(context), emitError(emitError) {}

  void i64(StringRef name, int64_t value) {
    attrs.append(name, b.getI64IntegerAttr(value));
  }
  /// Omitted when it is the kind's default.
  void i64(StringRef name, int64_t value, int64_t dflt) {
    if (value != dflt)
      i64(name, value);
  }
  void f64(StringRef name, double value) {
    attrs.append(name, b.getF64FloatAttr(value));
  }
  void str(StringRef name, StringRef value) {
    if (!value.empty())
      attrs.append(name, b.getStringAttr(value));
  }
  void flag(StringRef name, bool set) {
    if (set)
      attrs.append(name, b.getUnitAttr());
  }
  void pair(StringRef name, int64_t first, int64_t second) {
    attrs.append(name, b.getDenseI64ArrayAttr({first, second}));
  }
  void attr(StringRef name, Attribute value) { attrs.append(name, value); }

  /// Failure when the attributes break the kind's schema (a size above
  /// max-extent), which is reported: sizes come from files perf did not
  /// write, and an unchecked get would assert or make invalid IR.
  FailureOr<WorkAttr> build(WorkKind kind) {
    MLIRContext *context = b.getContext();
    auto atUnknown = [context] {
      return mlir::emitError(UnknownLoc::get(context));
    };
    function_ref<InFlightDiagnostic()> emit =
        emitError ? emitError : function_ref<InFlightDiagnostic()>(atUnknown);
    if (WorkAttr work = WorkAttr::getChecked(emit, context, kind,
                                             attrs.getDictionary(context)))
      return work;
    return failure();
  }

  Builder b;
  NamedAttrList attrs;
  function_ref<InFlightDiagnostic()> emitError;
};

void commonKernelAttrs(WorkAttrs &w, const KernelDesc &d) {
  MLIRContext *context = w.b.getContext();
  w.attr("dtype", TypeAttr::get(getElementType(context, d.dtype)));
  if (d.pass != KernelPass::Forward)
    w.attr("pass", TrainingPassAttr::get(
                       context, *symbolizeTrainingPass(
                                    kernelPassAttrName(d.kind, d.pass))));
  w.flag("tensor_cores", d.tensorCores);
  w.str("kernel_name", d.name);
}

void window(WorkAttrs &w, const KernelDesc &d) {
  w.i64("n", d.batch);
  w.i64("c", d.c);
  w.i64("h", d.h);
  w.i64("w", d.w);
  w.i64("r", d.r);
  w.i64("s", d.s);
  w.pair("stride", d.strideH, d.strideW);
  w.pair("pad", d.padH, d.padW);
}
} // namespace

FailureOr<WorkAttr>
perf::buildKernelWork(MLIRContext *context, const KernelDesc &d,
                      function_ref<InFlightDiagnostic()> emitError) {
  if (!d.hasValidSizes())
    return WorkAttr();
  WorkAttrs w(context, emitError);
  commonKernelAttrs(w, d);
  KernelKind kind = d.hasWorkOverride() ? KernelKind::Generic : d.kind;
  switch (kind) {
  case KernelKind::Gemm:
    w.i64("batch", d.batch, 1);
    w.i64("m", d.m);
    w.i64("n", d.n);
    w.i64("k", d.k);
    w.flag("trans_a", d.transA);
    w.flag("trans_b", d.transB);
    return w.build(WorkKind::Gemm);
  case KernelKind::Conv2d:
    window(w, d);
    w.i64("k", d.outChannels);
    if (d.dilationH != 1 || d.dilationW != 1)
      w.pair("dilation", d.dilationH, d.dilationW);
    w.i64("groups", d.groups, 1);
    return w.build(WorkKind::Conv2d);
  case KernelKind::Pooling:
    window(w, d);
    return w.build(WorkKind::Pooling);
  case KernelKind::Elementwise:
    w.i64("elements", d.numElements);
    w.i64("inputs", d.numInputs, 1);
    if (d.flopsPerElement != 1.0)
      w.f64("flops_per_element", d.flopsPerElement);
    w.str("fn", d.op);
    return w.build(WorkKind::Elementwise);
  case KernelKind::Reduce:
  case KernelKind::Softmax:
  case KernelKind::LayerNorm:
    w.i64("rows", d.rows);
    w.i64("cols", d.cols);
    return w.build(kind == KernelKind::Reduce    ? WorkKind::Reduce
                   : kind == KernelKind::Softmax ? WorkKind::Softmax
                                                 : WorkKind::LayerNorm);
  case KernelKind::EmbeddingBag:
    w.i64("tables", d.numTables, 1);
    w.i64("rows", d.tableRows);
    w.i64("dim", d.dim);
    w.i64("batch", d.batch);
    w.i64("pooling", d.pooling, 1);
    return w.build(WorkKind::EmbeddingBag);
  case KernelKind::Memcpy:
    w.i64("bytes", static_cast<int64_t>(d.bytes));
    if (d.copyKind != MemcpyKind::DeviceToDevice)
      w.attr("kind",
             CopyDirectionAttr::get(
                 context, *symbolizeCopyDirection(memcpyKindName(d.copyKind))));
    return w.build(WorkKind::Memcpy);
  case KernelKind::Transpose:
  case KernelKind::Concat:
    w.i64("elements", d.numElements);
    return w.build(kind == KernelKind::Transpose ? WorkKind::Transpose
                                                 : WorkKind::Concat);
  case KernelKind::BatchNorm:
    w.i64("elements", d.numElements);
    w.i64("channels", d.c);
    return w.build(WorkKind::BatchNorm);
  case KernelKind::Attention:
    w.i64("batch", d.batch);
    w.i64("heads", d.heads);
    w.i64("seq", d.m);
    w.i64("head_dim", d.k);
    if (d.n > 0 && d.n != d.m)
      w.i64("kv_seq", d.n);
    return w.build(WorkKind::Attention);
  case KernelKind::Optimizer: {
    std::optional<OptimizerAlgorithm> algorithm =
        d.op.empty() ? OptimizerAlgorithm::SGD
                     : symbolizeOptimizerAlgorithm(d.op);
    if (!algorithm)
      return WorkAttr();
    w.i64("elements", d.numElements);
    if (*algorithm != OptimizerAlgorithm::SGD)
      w.attr("algorithm", OptimizerAlgorithmAttr::get(context, *algorithm));
    return w.build(WorkKind::Optimizer);
  }
  case KernelKind::Generic:
    w.f64("flops", d.totalFlops());
    w.f64("bytes", d.totalBytes());
    w.str("fn", d.op);
    return w.build(WorkKind::Kernel);
  }
  return WorkAttr();
}

FailureOr<WorkAttr>
perf::buildCollectiveWork(MLIRContext *context, const CollectiveDesc &d,
                          ArrayRef<int64_t> group,
                          function_ref<InFlightDiagnostic()> emitError) {
  if (d.bytes <= 0 || group.empty())
    return WorkAttr();
  WorkKind kind = WorkKind::AllReduce;
  switch (d.kind) {
  case CollectiveKind::AllReduce:
    kind = WorkKind::AllReduce;
    break;
  case CollectiveKind::AllGather:
    kind = WorkKind::AllGather;
    break;
  case CollectiveKind::ReduceScatter:
    kind = WorkKind::ReduceScatter;
    break;
  case CollectiveKind::AllToAll:
    kind = WorkKind::AllToAll;
    break;
  case CollectiveKind::Broadcast:
  case CollectiveKind::SendRecv:
    return WorkAttr();
  }
  WorkAttrs w(context, emitError);
  w.i64("bytes", d.bytes);
  w.attr("group", w.b.getDenseI64ArrayAttr(group));
  w.attr("dtype", TypeAttr::get(getElementType(context, d.dtype)));
  return w.build(kind);
}
