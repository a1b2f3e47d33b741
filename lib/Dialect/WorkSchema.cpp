//===- WorkSchema.cpp - The attributes of each kind of device work -------===//
//
// WorkKinds.td defines each kernel, copy and collective once; perf-tblgen
// writes its row of the attribute table, its typed view and its KernelDesc
// conversion, included below. Here is what holds for every kind: how an
// attribute of each type is checked, the verifier and the error messages
// that read the table, and the readers the views are written in.
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
LogicalResult verifyPassIn(function_ref<InFlightDiagnostic()> error,
                           KernelWork work, ArrayRef<TrainingPass> allowed) {
  TrainingPass pass = work.getPass();
  if (llvm::is_contained(allowed, pass))
    return success();
  InFlightDiagnostic diag = error() << "'pass' must be one of";
  for (TrainingPass a : allowed)
    diag << " " << stringifyTrainingPass(a);
  return diag << ", got " << stringifyTrainingPass(pass);
}

/// The devices of a collective: distinct, in range, a pair for send/recv.
LogicalResult verifyGroup(function_ref<InFlightDiagnostic()> error,
                          CollectiveWork work) {
  ArrayRef<int64_t> group = work.getGroup();
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
  return success();
}

/// An uneven all-to-all: what each device sends to each, the most one
/// sends being `bytes`.
LogicalResult verifySplitBytes(function_ref<InFlightDiagnostic()> error,
                               AllToAllWork work) {
  ArrayRef<int64_t> splits = work.getSplitBytes();
  if (splits.empty())
    return success();
  size_t n = work.getGroup().size();
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
  if (most != work.getBytes())
    return error() << "'bytes' must be the most a device sends in "
                      "'split_bytes' ("
                   << most << ")";
  return success();
}

MemcpyKind toMemcpyKind(CopyDirection direction) {
  switch (direction) {
  case CopyDirection::H2D:
    return MemcpyKind::HostToDevice;
  case CopyDirection::D2H:
    return MemcpyKind::DeviceToHost;
  case CopyDirection::D2D:
    return MemcpyKind::DeviceToDevice;
  }
  return MemcpyKind::DeviceToDevice;
}

CopyDirection toCopyDirection(MemcpyKind kind) {
  switch (kind) {
  case MemcpyKind::HostToDevice:
    return CopyDirection::H2D;
  case MemcpyKind::DeviceToHost:
    return CopyDirection::D2H;
  case MemcpyKind::DeviceToDevice:
    return CopyDirection::D2D;
  }
  return CopyDirection::D2D;
}
} // namespace

#define GEN_WORK_SCHEMA
#include "perf/Dialect/WorkKinds.cpp.inc"

#define GEN_WORK_KIND_ENUM
#include "perf/Dialect/WorkKinds.cpp.inc"

#define GEN_WORK_VIEWS
#include "perf/Dialect/WorkKinds.cpp.inc"

#define GEN_WORK_DESC
#include "perf/Dialect/WorkKinds.cpp.inc"

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

const WorkSchema &perf::getWorkSchema(WorkKind kind) {
  return kWorkSchemas[static_cast<size_t>(kind)];
}

ArrayRef<WorkField> perf::getCommonWorkFields(WorkKind kind) {
  if (isCollectiveKind(kind))
    return kCollectiveCommonFields;
  return kKernelCommonFields;
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
  if (auto pair = dyn_cast<DenseI64ArrayAttr>(value))
    return pair.size() == 2 && double(pair[0]) == dflt &&
           double(pair[1]) == dflt;
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
// Building work
//===----------------------------------------------------------------------===//

Attribute perf::detail::intFieldValue(MLIRContext *context, int64_t value) {
  return IntegerAttr::get(IntegerType::get(context, 64), value);
}

Attribute perf::detail::floatFieldValue(MLIRContext *context, double value) {
  return FloatAttr::get(Float64Type::get(context), value);
}

Attribute perf::detail::stringFieldValue(MLIRContext *context,
                                         StringRef value) {
  return value.empty() ? Attribute() : StringAttr::get(context, value);
}

Attribute perf::detail::flagFieldValue(MLIRContext *context, bool value) {
  return value ? UnitAttr::get(context) : Attribute();
}

Attribute
perf::detail::pairFieldValue(MLIRContext *context,
                             const std::pair<int64_t, int64_t> &value) {
  return DenseI64ArrayAttr::get(context, {value.first, value.second});
}

Attribute perf::detail::typeFieldValue(Type value) {
  return value ? TypeAttr::get(value) : Attribute();
}

Attribute perf::detail::arrayFieldValue(MLIRContext *context,
                                        ArrayRef<int64_t> value) {
  return DenseI64ArrayAttr::get(context, value);
}

void perf::detail::WorkFields::set(StringRef name, Attribute value) {
  if (value)
    attrs.set(name, value);
}

FailureOr<WorkAttr> perf::detail::WorkFields::build(WorkKind kind) {
  auto atUnknown = [this] { return mlir::emitError(UnknownLoc::get(ctx)); };
  function_ref<InFlightDiagnostic()> emit =
      emitError ? emitError : function_ref<InFlightDiagnostic()>(atUnknown);
  if (WorkAttr work =
          WorkAttr::getChecked(emit, ctx, kind, attrs.getDictionary(ctx)))
    return work;
  return failure();
}

FailureOr<WorkAttr>
perf::buildKernelWork(MLIRContext *context, const KernelDesc &d,
                      function_ref<InFlightDiagnostic()> emitError) {
  if (!d.hasValidSizes())
    return WorkAttr();
  detail::WorkFields fields(context, emitError);
  KernelKind kind = d.hasWorkOverride() ? KernelKind::Generic : d.kind;
  fields.set("dtype", TypeAttr::get(getElementType(context, d.dtype)));
  if (d.pass != KernelPass::Forward)
    fields.set("pass", TrainingPassAttr::get(
                           context, *symbolizeTrainingPass(
                                        kernelPassAttrName(d.kind, d.pass))));
  fields.set("tensor_cores", detail::flagFieldValue(context, d.tensorCores));
  fields.set("kernel_name", detail::stringFieldValue(context, d.name));
  return buildKindWork(kind, d, fields);
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
  detail::WorkFields fields(context, emitError);
  fields.set("bytes", detail::intFieldValue(context, d.bytes));
  fields.set("group", detail::arrayFieldValue(context, group));
  fields.set("dtype", TypeAttr::get(getElementType(context, d.dtype)));
  return fields.build(kind);
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
  WorkAttr work = WorkAttr::getUnverified(attrs.getContext(), kind, attrs);
  if (auto collective = dyn_cast<CollectiveWork>(work))
    if (failed(verifyGroup(error, collective)))
      return failure();
  return verifyKindAttributes(error, work);
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

std::optional<int64_t> WorkAttr::readInt(StringRef name) const {
  if (auto value = getAs<IntegerAttr>(name))
    return value.getInt();
  return std::nullopt;
}

std::optional<double> WorkAttr::readFloat(StringRef name) const {
  if (auto value = getAs<FloatAttr>(name))
    return value.getValueAsDouble();
  if (auto value = getAs<IntegerAttr>(name))
    return value.getValue().signedRoundToDouble();
  return std::nullopt;
}

StringRef WorkAttr::readString(StringRef name) const {
  auto value = getAs<StringAttr>(name);
  return value ? value.getValue() : StringRef();
}

std::optional<std::pair<int64_t, int64_t>>
WorkAttr::readPair(StringRef name) const {
  auto pair = getAs<DenseI64ArrayAttr>(name);
  if (!pair || pair.size() != 2)
    return std::nullopt;
  return std::make_pair(pair[0], pair[1]);
}

Type WorkAttr::readType(StringRef name) const {
  auto type = getAs<TypeAttr>(name);
  return type ? type.getValue() : Type();
}

ArrayRef<int64_t> WorkAttr::readArray(StringRef name) const {
  auto array = getAs<DenseI64ArrayAttr>(name);
  return array ? array.asArrayRef() : ArrayRef<int64_t>();
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

WorkAttr WorkAttr::withDevice(int64_t device) const {
  return with("device", detail::intFieldValue(getContext(), device));
}

WorkAttr WorkAttr::withStream(int64_t stream) const {
  return with("stream", detail::intFieldValue(getContext(), stream));
}

TrainingPass WorkAttr::getTrainingPass() const {
  if (auto kernel = dyn_cast<KernelWork>(*this))
    return kernel.getPass();
  return TrainingPass::Fwd;
}

ArrayRef<int64_t> WorkAttr::getGroupIds() const {
  if (auto collective = dyn_cast<CollectiveWork>(*this))
    return collective.getGroup();
  return {};
}

int64_t WorkAttr::getCollectiveBytes() const {
  if (auto collective = dyn_cast<CollectiveWork>(*this))
    return collective.getBytes();
  return 0;
}

KernelDesc WorkAttr::getKernelDesc() const {
  assert(isKernel() && "a collective has no KernelDesc");
  auto kernel = cast<KernelWork>(*this);
  KernelDesc d;
  Type dtype = getDtype();
  d.dtype = dtype ? perf::getDType(dtype) : DType::F32;
  d.pass = parseKernelPass(stringifyTrainingPass(kernel.getPass()))
               .value_or(KernelPass::Forward);
  d.name = kernel.getKernelName().str();
  readKindDesc(*this, d);
  // The libraries run a GEMM, a convolution or fused attention in TF32,
  // FP16, BF16 or FP8 on tensor cores whether the IR says so or not.
  d.tensorCores = kernel.getTensorCores() || runsOnTensorCores(d.kind, d.dtype);
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
