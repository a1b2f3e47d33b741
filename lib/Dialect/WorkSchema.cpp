//===- WorkSchema.cpp - The attributes of each kind of device work -------===//
//
// One table says which attributes each kernel, copy and collective takes and
// what each must be; the verifier, the error messages and the docs' lists
// read it. Work is an attribute (#perf.work) rather than an op, so the table
// stands where ODS would otherwise say it: a kind is a row here plus how it
// reads as a KernelDesc (getKernelDesc) and how one is built (KernelBuilder).
//
//===----------------------------------------------------------------------===//

#include "perf/Dialect/WorkSchema.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace perf;
using namespace mlir;

namespace {
using F = WorkFieldType;

constexpr WorkField kKernelCommon[] = {
    {"dtype", F::ElementType, false},
    {"device", F::Placement, false, 0},
    {"stream", F::Placement, false, 0},
    {"kernel_name", F::String, false},
    {"pass", F::Pass, false, double(TrainingPass::Fwd)},
    {"tensor_cores", F::Unit, false},
};
constexpr WorkField kCollectiveCommon[] = {
    {"bytes", F::Count, true},          {"group", F::DeviceList, true},
    {"dtype", F::ElementType, false},   {"device", F::Placement, false, 0},
    {"stream", F::Placement, false, 0}, {"algorithm", F::NcclAlgorithm, false},
};

constexpr WorkField kGemm[] = {
    {"batch", F::Size, false, 1}, {"m", F::Size, true},
    {"n", F::Size, true},         {"k", F::Size, true},
    {"trans_a", F::Unit, false},  {"trans_b", F::Unit, false},
};
constexpr WorkField kConv2d[] = {
    {"n", F::Size, true},
    {"c", F::Size, true},
    {"h", F::Size, true},
    {"w", F::Size, true},
    {"k", F::Size, true},
    {"r", F::Size, true},
    {"s", F::Size, true},
    {"stride", F::PositivePair, false},
    {"pad", F::NonNegativePair, false},
    {"dilation", F::PositivePair, false},
    {"groups", F::Size, false, 1},
};
constexpr WorkField kElementwise[] = {
    {"elements", F::Size, true},
    {"inputs", F::Count, false, 1},
    {"flops_per_element", F::Float, false, 1.0},
    {"fn", F::String, false},
};
constexpr WorkField kRowsCols[] = {{"rows", F::Size, true},
                                   {"cols", F::Size, true}};
constexpr WorkField kEmbeddingBag[] = {
    {"tables", F::Size, false, 1},  {"rows", F::Size, true},
    {"dim", F::Size, true},         {"batch", F::Size, true},
    {"pooling", F::Size, false, 1},
};
constexpr WorkField kMemcpy[] = {
    {"bytes", F::Size, true},
    {"kind", F::CopyDirection, false, double(CopyDirection::D2D)}};
constexpr WorkField kElements[] = {{"elements", F::Size, true}};
constexpr WorkField kPooling[] = {
    {"n", F::Size, true},
    {"c", F::Size, true},
    {"h", F::Size, true},
    {"w", F::Size, true},
    {"r", F::Size, true},
    {"s", F::Size, true},
    {"stride", F::PositivePair, false},
    {"pad", F::NonNegativePair, false},
};
constexpr WorkField kBatchNorm[] = {{"elements", F::Size, true},
                                    {"channels", F::Size, true}};
constexpr WorkField kAttention[] = {
    {"batch", F::Size, true},   {"heads", F::Size, true},
    {"seq", F::Size, true},     {"head_dim", F::Size, true},
    {"kv_seq", F::Size, false},
};
constexpr WorkField kOptimizer[] = {
    {"elements", F::Size, true},
    {"algorithm", F::OptimizerAlgorithm, false,
     double(OptimizerAlgorithm::SGD)},
    {"master_weights", F::Unit, false},
};
constexpr WorkField kGenericKernel[] = {
    {"flops", F::Float, true},
    {"bytes", F::Float, true},
    {"fn", F::String, false},
};
constexpr WorkField kAllToAll[] = {{"split_bytes", F::I64Array, false}};

const WorkSchema kSchemas[] = {
    {WorkKind::Gemm, "Batched matrix multiply: batch x (m x k) * (k x n)",
     kGemm},
    {WorkKind::Conv2d, "2-D convolution, NCHW input n x c x h x w, KCRS filter",
     kConv2d},
    {WorkKind::Elementwise, "Element-wise kernel over `elements` outputs",
     kElementwise},
    {WorkKind::Reduce, "Row reduction over rows x cols", kRowsCols},
    {WorkKind::Softmax, "Softmax over rows x cols", kRowsCols},
    {WorkKind::LayerNorm, "Layer normalization over rows x cols", kRowsCols},
    {WorkKind::EmbeddingBag, "Pooled embedding lookups over one or more tables",
     kEmbeddingBag},
    {WorkKind::Memcpy, "Copy of `bytes`; kind is h2d, d2h or d2d", kMemcpy},
    {WorkKind::Transpose, "Layout change moving `elements` elements",
     kElements},
    {WorkKind::Concat, "Concatenation writing `elements` elements", kElements},
    {WorkKind::Pooling, "Max or average pooling over r x s windows", kPooling},
    {WorkKind::BatchNorm, "Batch normalization over `elements` values",
     kBatchNorm},
    {WorkKind::Attention, "Fused scaled-dot-product attention", kAttention},
    {WorkKind::Optimizer,
     "Parameter update (sgd or adam) over `elements` parameters", kOptimizer},
    {WorkKind::Kernel, "Any other kernel, described by its FLOPs and bytes",
     kGenericKernel},
    {WorkKind::AllReduce, "All-reduce of `bytes` per device over `group`", {}},
    {WorkKind::AllGather,
     "All-gather; `bytes` is the gathered size per device",
     {}},
    {WorkKind::ReduceScatter,
     "Reduce-scatter; `bytes` is the input size per device",
     {}},
    {WorkKind::AllToAll,
     "All-to-all; `bytes` is what each device sends in total", kAllToAll},
    {WorkKind::Send,
     "Point-to-point send; `group` is [source, destination]",
     {}},
    {WorkKind::Recv,
     "Point-to-point receive; `group` is [source, destination]",
     {}},
};

bool isCollectiveKind(WorkKind kind) { return kind >= WorkKind::AllReduce; }

/// What a field's value must be, as the error messages say it.
StringRef describeField(WorkFieldType type) {
  switch (type) {
  case F::Size:
    return "a positive 64-bit integer at most max-extent (2^40)";
  case F::Count:
    return "a non-negative 64-bit integer at most max-extent (2^40)";
  case F::Placement:
    return "a 64-bit integer";
  case F::Float:
    return "a 64-bit float";
  case F::String:
    return "a string";
  case F::Unit:
    return "a unit attribute (present or absent, no value)";
  case F::PositivePair:
    return "a pair [h, w] of positive integers at most max-extent, "
           "array<i64: h, w>";
  case F::NonNegativePair:
    return "a pair [h, w] of non-negative integers at most max-extent, "
           "array<i64: h, w>";
  case F::ElementType:
    return "an integer or float element type";
  case F::Pass:
    return "the training pass of a kernel, "
           "#perf.pass<fwd|bwd|dgrad|wgrad|update>";
  case F::CopyDirection:
    return "the direction of a copy, #perf.copy<h2d|d2h|d2d>";
  case F::OptimizerAlgorithm:
    return "the update rule of an optimizer, #perf.optimizer<sgd|adam>";
  case F::NcclAlgorithm:
    return "the NCCL algorithm of a collective, #perf.nccl<tree|ring|"
           "collnet_direct|collnet_chain|nvls|nvls_tree|pat|auto>";
  case F::DeviceList:
  case F::I64Array:
    return "an array<i64: ...>";
  }
  return "";
}

bool isI64(Attribute value) {
  auto i = dyn_cast<IntegerAttr>(value);
  return i && i.getType().isSignlessInteger(64);
}

bool pairWithin(Attribute value, int64_t min) {
  auto pair = dyn_cast<DenseI64ArrayAttr>(value);
  return pair && pair.size() == 2 &&
         llvm::all_of(pair.asArrayRef(), [&](int64_t v) {
           return v >= min && withinLimit(v, kMaxExtent);
         });
}

bool hasFieldType(WorkFieldType type, Attribute value) {
  switch (type) {
  case F::Size:
  case F::Count: {
    if (!isI64(value))
      return false;
    int64_t v = cast<IntegerAttr>(value).getInt();
    return v >= (type == F::Size ? 1 : 0) && withinLimit(v, kMaxExtent);
  }
  case F::Placement:
    return isI64(value);
  case F::Float: {
    auto f = dyn_cast<FloatAttr>(value);
    return f && f.getType().isF64();
  }
  case F::String:
    return isa<StringAttr>(value);
  case F::Unit:
    return isa<UnitAttr>(value);
  case F::PositivePair:
    return pairWithin(value, 1);
  case F::NonNegativePair:
    return pairWithin(value, 0);
  case F::ElementType: {
    auto t = dyn_cast<TypeAttr>(value);
    return t && isa<IntegerType, FloatType>(t.getValue());
  }
  case F::Pass:
    return isa<TrainingPassAttr>(value);
  case F::CopyDirection:
    return isa<CopyDirectionAttr>(value);
  case F::OptimizerAlgorithm:
    return isa<OptimizerAlgorithmAttr>(value);
  case F::NcclAlgorithm:
    return isa<NcclAlgorithmAttr>(value);
  case F::DeviceList:
  case F::I64Array:
    return isa<DenseI64ArrayAttr>(value);
  }
  return false;
}

/// Whether `id` is a device or stream number: from 0 to max-devices.
LogicalResult verifyPlacement(function_ref<InFlightDiagnostic()> emitError,
                              StringRef mnemonic, StringRef name, int64_t id) {
  if (id >= 0 && withinLimit(id, kMaxDevices))
    return success();
  return emitError() << "'perf." << mnemonic << "' '" << name
                     << "' must be from 0 to " << kMaxDevices.max << " (limit "
                     << kMaxDevices.name << "), got " << id;
}

/// A training pass a kernel kind does not have (conv has no "bwd", an
/// embedding lookup no "dgrad").
LogicalResult verifyPassIn(function_ref<InFlightDiagnostic()> emitError,
                           WorkAttr work, ArrayRef<TrainingPass> allowed) {
  TrainingPass pass = work.getTrainingPass();
  if (llvm::is_contained(allowed, pass))
    return success();
  InFlightDiagnostic diag = emitError() << "'perf." << work.getKindName()
                                        << "' 'pass' must be one of";
  for (TrainingPass a : allowed)
    diag << " " << stringifyTrainingPass(a);
  return diag << ", got " << stringifyTrainingPass(pass);
}

/// What the table cannot say: relations between a kind's attributes.
LogicalResult verifyKind(function_ref<InFlightDiagnostic()> emitError,
                         WorkAttr work) {
  StringRef mnemonic = work.getKindName();
  auto error = [&]() -> InFlightDiagnostic {
    return emitError() << "'perf." << mnemonic << "' ";
  };
  switch (work.getKind()) {
  case WorkKind::Conv2d: {
    int64_t groups = work.getInt("groups", 1);
    if (work.getInt("c") % groups != 0 || work.getInt("k") % groups != 0)
      return error() << "'groups' (" << groups << ") must divide c and k";
    if (failed(verifyPassIn(
            emitError, work,
            {TrainingPass::Fwd, TrainingPass::Dgrad, TrainingPass::Wgrad})))
      return failure();
    KernelDesc d = work.getKernelDesc();
    if (d.outH() <= 0 || d.outW() <= 0)
      return error() << "output is empty: filter larger than padded input";
    return success();
  }
  case WorkKind::Elementwise:
    if (!isFiniteAtLeast(work.getFloat("flops_per_element", 1), 0))
      return error() << "'flops_per_element' must be finite and non-negative";
    return success();
  case WorkKind::EmbeddingBag:
    return verifyPassIn(emitError, work,
                        {TrainingPass::Fwd, TrainingPass::Bwd});
  case WorkKind::Kernel:
    if (!isFiniteAtLeast(work.getFloat("flops"), 0) ||
        !isFiniteAtLeast(work.getFloat("bytes"), 0))
      return error() << "'flops' and 'bytes' must be finite and non-negative";
    return success();
  default:
    break;
  }
  if (!work.isCollective())
    return success();
  ArrayRef<int64_t> group = work.getGroupIds();
  if (group.empty())
    return error() << "'group' must list at least one device";
  bool pointToPoint =
      work.getKind() == WorkKind::Send || work.getKind() == WorkKind::Recv;
  if (pointToPoint && group.size() != 2)
    return error() << "'group' must be [source, destination]";
  llvm::SmallDenseSet<int64_t> seen;
  for (int64_t d : group) {
    if (d < 0)
      return error() << "device ids in 'group' must be non-negative";
    if (!withinLimit(d, kMaxDevices))
      return error() << limitExceeded("device id", d, kMaxDevices);
    if (!seen.insert(d).second)
      return error() << "device " << d << " appears twice in 'group'";
  }
  auto splitsAttr = work.getAs<DenseI64ArrayAttr>("split_bytes");
  if (!splitsAttr)
    return success();
  ArrayRef<int64_t> splits = splitsAttr.asArrayRef();
  size_t n = group.size();
  if (splits.size() != n * n)
    return error() << "'split_bytes' must have " << n * n
                   << " entries (group size squared), not " << splits.size();
  int64_t most = 0;
  for (size_t i = 0; i < n; ++i) {
    int64_t sent = 0;
    for (size_t j = 0; j < n; ++j) {
      int64_t b = splits[i * n + j];
      if (b < 0)
        return error() << "'split_bytes' must be non-negative";
      if (i != j)
        sent += b;
    }
    most = std::max(most, sent);
  }
  if (most != work.getCollectiveBytes())
    return error() << "'bytes' must be the most a device sends in "
                      "'split_bytes' ("
                   << most << ")";
  return success();
}

std::pair<int64_t, int64_t> pairOr(WorkAttr work, StringRef name,
                                   int64_t otherwise) {
  auto pair = work.getAs<DenseI64ArrayAttr>(name);
  if (!pair || pair.size() != 2)
    return {otherwise, otherwise};
  return {pair[0], pair[1]};
}
} // namespace

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

const WorkSchema &perf::getWorkSchema(WorkKind kind) {
  return kSchemas[static_cast<size_t>(kind)];
}

ArrayRef<WorkField> perf::getCommonWorkFields(WorkKind kind) {
  if (isCollectiveKind(kind))
    return kCollectiveCommon;
  return kKernelCommon;
}

const WorkField *perf::findWorkField(WorkKind kind, StringRef name) {
  for (ArrayRef<WorkField> fields :
       {getWorkSchema(kind).fields, getCommonWorkFields(kind)})
    for (const WorkField &field : fields)
      if (field.name == name)
        return &field;
  return nullptr;
}

/// Whether `value` is `field`'s default.
static bool isDefault(const WorkField &field, Attribute value) {
  if (!field.dflt)
    return false;
  double dflt = *field.dflt;
  if (auto i = dyn_cast<IntegerAttr>(value))
    return i.getType().isSignlessInteger(64) && double(i.getInt()) == dflt;
  if (auto f = dyn_cast<FloatAttr>(value))
    return f.getType().isF64() && f.getValueAsDouble() == dflt;
  if (auto pass = dyn_cast<TrainingPassAttr>(value))
    return double(pass.getValue()) == dflt;
  if (auto copy = dyn_cast<CopyDirectionAttr>(value))
    return double(copy.getValue()) == dflt;
  if (auto algorithm = dyn_cast<OptimizerAlgorithmAttr>(value))
    return double(algorithm.getValue()) == dflt;
  return false;
}

DictionaryAttr perf::withoutDefaults(WorkKind kind, DictionaryAttr attrs) {
  if (!attrs)
    return attrs;
  auto holdsDefault = [&](NamedAttribute attr) {
    const WorkField *field = findWorkField(kind, attr.getName().getValue());
    return field && isDefault(*field, attr.getValue());
  };
  if (llvm::none_of(attrs, holdsDefault))
    return attrs;
  SmallVector<NamedAttribute> kept;
  for (NamedAttribute attr : attrs)
    if (!holdsDefault(attr))
      kept.push_back(attr);
  // Still sorted: a subset of a sorted dictionary.
  return DictionaryAttr::getWithSorted(attrs.getContext(), kept);
}

std::optional<WorkKind> perf::parseWorkMnemonic(StringRef name) {
  if (!name.consume_front("perf."))
    return std::nullopt;
  return symbolizeWorkKind(name);
}

//===----------------------------------------------------------------------===//
// WorkAttr
//===----------------------------------------------------------------------===//

LogicalResult WorkAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               WorkKind kind, DictionaryAttr attrs) {
  StringRef mnemonic = stringifyWorkKind(kind);
  auto error = [&]() -> InFlightDiagnostic {
    return emitError() << "'perf." << mnemonic << "' ";
  };
  if (!attrs)
    return error() << "needs its attributes";
  for (NamedAttribute attr : attrs) {
    StringRef name = attr.getName().getValue();
    // Facts passes write (perf.latency_us) are checked as they are on ops;
    // another dialect's (trace.kernel_name) are that dialect's business.
    if (name.contains('.')) {
      if (!name.starts_with("perf."))
        continue;
      if (failed(verifyPerfFact([&]() { return error(); }, name,
                                attr.getValue(), kind == WorkKind::Memcpy)))
        return failure();
      continue;
    }
    const WorkField *field = findWorkField(kind, name);
    if (!field) {
      SmallVector<StringRef> known;
      for (ArrayRef<WorkField> fields :
           {getWorkSchema(kind).fields, getCommonWorkFields(kind)})
        for (const WorkField &field : fields)
          known.push_back(field.name);
      llvm::sort(known);
      InFlightDiagnostic diag = error() << "has no attribute '" << name
                                        << "'; it takes";
      llvm::interleave(
          known, [&](StringRef field) { diag << " '" << field << "'"; },
          [&] { diag << ","; });
      return diag;
    }
    if (!hasFieldType(field->type, attr.getValue()))
      return error() << "attribute '" << name
                     << "' failed to satisfy constraint: "
                     << describeField(field->type);
    if (field->type == F::Placement &&
        failed(verifyPlacement(emitError, mnemonic, name,
                               cast<IntegerAttr>(attr.getValue()).getInt())))
      return failure();
  }
  for (ArrayRef<WorkField> fields :
       {getWorkSchema(kind).fields, getCommonWorkFields(kind)})
    for (const WorkField &field : fields)
      if (field.required && !attrs.get(field.name))
        return error() << "requires attribute '" << field.name << "'";
  return verifyKind(emitError,
                    WorkAttr::getUnverified(attrs.getContext(), kind, attrs));
}

Attribute WorkAttr::parse(AsmParser &parser, Type) {
  // #perf.work<gemm {m = 1, n = 2, k = 3}>
  SMLoc at = parser.getCurrentLocation();
  StringRef mnemonic;
  NamedAttrList attrs;
  if (parser.parseLess() || parser.parseKeyword(&mnemonic) ||
      parser.parseOptionalAttrDict(attrs) || parser.parseGreater())
    return {};
  std::optional<WorkKind> kind = symbolizeWorkKind(mnemonic);
  if (!kind) {
    parser.emitError(at) << "unknown device work '" << mnemonic << "'";
    return {};
  }
  return getChecked([&]() { return parser.emitError(at); }, parser.getContext(),
                    *kind, attrs.getDictionary(parser.getContext()));
}

void WorkAttr::print(AsmPrinter &printer) const {
  printer << "<" << getKindName() << " ";
  printer.printAttributeWithoutType(getAttrs());
  printer << ">";
}

StringRef WorkAttr::getKindName() const { return stringifyWorkKind(getKind()); }

Attribute WorkAttr::get(StringRef name) const { return getAttrs().get(name); }

int64_t WorkAttr::getInt(StringRef name, int64_t otherwise) const {
  auto value = getAs<IntegerAttr>(name);
  return value ? value.getInt() : otherwise;
}

double WorkAttr::getFloat(StringRef name, double otherwise) const {
  if (auto value = getAs<FloatAttr>(name))
    return value.getValueAsDouble();
  if (auto value = getAs<IntegerAttr>(name))
    return value.getValue().signedRoundToDouble();
  return otherwise;
}

StringRef WorkAttr::getString(StringRef name) const {
  auto value = getAs<StringAttr>(name);
  return value ? value.getValue() : StringRef();
}

WorkAttr WorkAttr::with(StringRef name, Attribute value) const {
  return with([&](NamedAttrList &attrs) {
    if (value)
      attrs.set(name, value);
    else
      attrs.erase(name);
  });
}

WorkAttr WorkAttr::with(function_ref<void(NamedAttrList &)> update) const {
  NamedAttrList attrs(getAttrs());
  update(attrs);
  return WorkAttr::get(getContext(), getKind(),
                       attrs.getDictionary(getContext()));
}

WorkAttr WorkAttr::withKind(WorkKind kind) const {
  return WorkAttr::get(getContext(), kind, getAttrs());
}

Type WorkAttr::getDtype() const {
  auto type = getAs<TypeAttr>("dtype");
  return type ? type.getValue() : Type();
}

TrainingPass WorkAttr::getTrainingPass() const {
  auto pass = getAs<TrainingPassAttr>("pass");
  return pass ? pass.getValue() : TrainingPass::Fwd;
}

KernelDesc WorkAttr::getKernelDesc() const {
  assert(isKernel() && "a collective has no KernelDesc");
  KernelDesc d;
  Type dtype = getDtype();
  d.dtype = dtype ? perf::getDType(dtype) : DType::F32;
  d.pass = parseKernelPass(stringifyTrainingPass(getTrainingPass()))
               .value_or(KernelPass::Forward);
  d.tensorCores = has("tensor_cores");
  d.name = getString("kernel_name").str();
  switch (getKind()) {
  case WorkKind::Gemm:
    d.kind = KernelKind::Gemm;
    d.batch = getInt("batch", 1);
    d.m = getInt("m");
    d.n = getInt("n");
    d.k = getInt("k");
    d.transA = has("trans_a");
    d.transB = has("trans_b");
    break;
  case WorkKind::Conv2d:
  case WorkKind::Pooling:
    d.kind = getKind() == WorkKind::Conv2d ? KernelKind::Conv2d
                                           : KernelKind::Pooling;
    d.batch = getInt("n");
    d.c = getInt("c");
    d.h = getInt("h");
    d.w = getInt("w");
    d.r = getInt("r");
    d.s = getInt("s");
    std::tie(d.strideH, d.strideW) = pairOr(*this, "stride", 1);
    std::tie(d.padH, d.padW) = pairOr(*this, "pad", 0);
    if (getKind() == WorkKind::Conv2d) {
      d.outChannels = getInt("k");
      std::tie(d.dilationH, d.dilationW) = pairOr(*this, "dilation", 1);
      d.groups = getInt("groups", 1);
    }
    break;
  case WorkKind::Elementwise:
    d.kind = KernelKind::Elementwise;
    d.numElements = getInt("elements");
    d.numInputs = getInt("inputs", 1);
    d.flopsPerElement = getFloat("flops_per_element", 1);
    d.op = getString("fn").str();
    break;
  case WorkKind::Reduce:
  case WorkKind::Softmax:
  case WorkKind::LayerNorm:
    d.kind = getKind() == WorkKind::Reduce    ? KernelKind::Reduce
             : getKind() == WorkKind::Softmax ? KernelKind::Softmax
                                              : KernelKind::LayerNorm;
    d.rows = getInt("rows");
    d.cols = getInt("cols");
    break;
  case WorkKind::EmbeddingBag:
    d.kind = KernelKind::EmbeddingBag;
    d.numTables = getInt("tables", 1);
    d.tableRows = getInt("rows");
    d.dim = getInt("dim");
    d.batch = getInt("batch");
    d.pooling = getInt("pooling", 1);
    break;
  case WorkKind::Memcpy: {
    d.kind = KernelKind::Memcpy;
    d.bytes = static_cast<double>(getInt("bytes"));
    auto kind = getAs<CopyDirectionAttr>("kind");
    d.copyKind = kind ? parseMemcpyKind(stringifyCopyDirection(kind.getValue()))
                            .value_or(MemcpyKind::DeviceToDevice)
                      : MemcpyKind::DeviceToDevice;
    break;
  }
  case WorkKind::Transpose:
  case WorkKind::Concat:
    d.kind = getKind() == WorkKind::Transpose ? KernelKind::Transpose
                                              : KernelKind::Concat;
    d.numElements = getInt("elements");
    break;
  case WorkKind::BatchNorm:
    d.kind = KernelKind::BatchNorm;
    d.numElements = getInt("elements");
    d.c = getInt("channels");
    // Mean, variance, normalize, scale and shift.
    d.flopsPerElement = 5;
    break;
  case WorkKind::Attention:
    d.kind = KernelKind::Attention;
    d.batch = getInt("batch");
    d.heads = getInt("heads");
    d.m = getInt("seq");
    d.k = getInt("head_dim");
    d.n = getInt("kv_seq", 0);
    break;
  case WorkKind::Optimizer: {
    d.kind = KernelKind::Optimizer;
    d.numElements = getInt("elements");
    auto algorithm = getAs<OptimizerAlgorithmAttr>("algorithm");
    bool adam = algorithm && algorithm.getValue() == OptimizerAlgorithm::Adam;
    d.op = adam ? "adam" : "sgd";
    // SGD with momentum reads param, grad, momentum; Adam also two moments.
    d.numInputs = adam ? 4 : 3;
    d.flopsPerElement = adam ? 12 : 3;
    break;
  }
  case WorkKind::Kernel:
    d.kind = KernelKind::Generic;
    d.flops = getFloat("flops");
    d.bytes = getFloat("bytes");
    d.op = getString("fn").str();
    break;
  default:
    break;
  }
  return d;
}

CollectiveKind WorkAttr::getCollectiveKind() const {
  switch (getKind()) {
  case WorkKind::AllReduce:
    return CollectiveKind::AllReduce;
  case WorkKind::AllGather:
    return CollectiveKind::AllGather;
  case WorkKind::ReduceScatter:
    return CollectiveKind::ReduceScatter;
  case WorkKind::AllToAll:
    return CollectiveKind::AllToAll;
  default:
    return CollectiveKind::SendRecv;
  }
}

CollectiveDesc WorkAttr::getCollectiveDesc() const {
  assert(isCollective() && "a kernel has no CollectiveDesc");
  CollectiveDesc desc;
  desc.kind = getCollectiveKind();
  if (Type dtype = getDtype())
    desc.dtype = perf::getDType(dtype);
  desc.bytes = getCollectiveBytes();
  desc.groupSize = static_cast<int64_t>(getGroupIds().size());
  return desc;
}

ArrayRef<int64_t> WorkAttr::getGroupIds() const {
  auto group = getAs<DenseI64ArrayAttr>("group");
  return group ? group.asArrayRef() : ArrayRef<int64_t>();
}
