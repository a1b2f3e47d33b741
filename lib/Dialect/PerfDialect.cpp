//===- PerfDialect.cpp - perf dialect registration ------------------------===//

#include "perf/Dialect/PerfDialect.h"
#include "mlir/Bytecode/BytecodeImplementation.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Dialect/WorkSchema.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

using namespace perf;

#include "perf/Dialect/PerfOpsDialect.cpp.inc"

namespace {
/// What a declared discardable attribute must hold.
struct DeclaredAttribute {
  bool (*hasType)(Attribute);
  StringRef expected;
};

template <typename T> StringRef describe();
// The times: a number (checked below to be finite and non-negative).
template <> StringRef describe<Attribute>() {
  return "a number of microseconds";
}
template <> StringRef describe<StringAttr>() { return "a string"; }
template <> StringRef describe<IntegerAttr>() { return "an integer"; }
template <> StringRef describe<FloatAttr>() { return "a float"; }
template <> StringRef describe<UnitAttr>() {
  return "a unit attribute (present or absent, no value)";
}
template <> StringRef describe<DictionaryAttr>() { return "a dictionary"; }
template <> StringRef describe<ArrayAttr>() { return "an array"; }
template <> StringRef describe<DenseI64ArrayAttr>() {
  return "an array<i64: ...>";
}
template <> StringRef describe<DenseF64ArrayAttr>() {
  return "an array<f64: ...>";
}
template <> StringRef describe<GpuAttr>() { return "a #perf.gpu<...>"; }

/// The type a generated helper reads its attribute as.
template <typename Helper>
using HelperAttr = decltype(std::declval<Helper &>().getAttr(nullptr));

/// `T` is the helper's type unless given (a dialect attribute, which the
/// generated helper cannot name).
template <typename Helper, typename T = HelperAttr<Helper>>
std::pair<StringRef, DeclaredAttribute> declared() {
  bool (*hasType)(Attribute) = [](Attribute a) {
    if constexpr (std::is_same_v<T, Attribute>)
      return isa<FloatAttr, IntegerAttr>(a);
    else
      return isa<T>(a);
  };
  return {Helper::getNameStr(), {hasType, describe<T>()}};
}

/// Every name of PerfDialect.td's discardableAttrs, by its helper.
const llvm::StringMap<DeclaredAttribute> &declaredAttributes() {
  static const llvm::StringMap<DeclaredAttribute> table = {
      declared<PerfDialect::LatencyUsAttrHelper>(),
      declared<PerfDialect::CostModelAttrHelper>(),
      declared<PerfDialect::StartUsAttrHelper>(),
      declared<PerfDialect::EndUsAttrHelper>(),
      declared<PerfDialect::OverheadUsAttrHelper>(),
      declared<PerfDialect::EnteredRegionAttrHelper>(),
      declared<PerfDialect::LaunchUsAttrHelper>(),
      declared<PerfDialect::LaunchCallAttrHelper>(),
      declared<PerfDialect::EstimateAttrHelper>(),
      declared<PerfDialect::DbMissesAttrHelper>(),
      declared<PerfDialect::MeasuredOnAttrHelper, GpuAttr>(),
      declared<PerfDialect::MeasuredLatencyUsAttrHelper>(),
      declared<PerfDialect::MeasuredStartUsAttrHelper>(),
      declared<PerfDialect::MeasuredUsAttrHelper>(),
      declared<PerfDialect::MeasuredIterationAttrHelper>(),
      declared<PerfDialect::RetargetAttrHelper>(),
      declared<PerfDialect::TraceDeviceAttrHelper>(),
      declared<PerfDialect::BaselineUsAttrHelper>(),
      declared<PerfDialect::TransformsAttrHelper>(),
      declared<PerfDialect::LaunchQueueDepthAttrHelper>(),
      declared<PerfDialect::HostTailUsAttrHelper>(),
      declared<PerfDialect::HostTableAttrHelper>(),
      declared<PerfDialect::CopyInCallAttrHelper>(),
      declared<PerfDialect::LayerAttrHelper>(),
      declared<PerfDialect::AutogradPairAttrHelper>(),
      declared<PerfDialect::ExpertAttrHelper>(),
      declared<PerfDialect::RouterAttrHelper>(),
      declared<PerfDialect::ParamsAttrHelper>(),
      declared<PerfDialect::ParametersAttrHelper>(),
      declared<PerfDialect::GradBytesAttrHelper>(),
      declared<PerfDialect::TrainingDropoutAttrHelper>(),
      declared<PerfDialect::KvCacheAttrHelper>(),
      declared<PerfDialect::ModelConfigAttrHelper>(),
      declared<PerfDialect::BatchAttrHelper>(),
      declared<PerfDialect::BranchesAttrHelper>(),
      declared<PerfDialect::FusedAttrHelper>(),
      declared<PerfDialect::FusedOpsAttrHelper>(),
      declared<PerfDialect::FusedElementwiseAttrHelper>(),
      declared<PerfDialect::FusedConvBiasActAttrHelper>(),
      declared<PerfDialect::LatencyScaleAttrHelper>(),
      declared<PerfDialect::DataParallelAttrHelper>(),
      declared<PerfDialect::TensorParallelAttrHelper>(),
      declared<PerfDialect::SequenceParallelAttrHelper>(),
      declared<PerfDialect::TpAllReducesAttrHelper>(),
      declared<PerfDialect::TpSplitAttrHelper>(),
      declared<PerfDialect::PipelineParallelAttrHelper>(),
      declared<PerfDialect::StageAttrHelper>(),
      declared<PerfDialect::ChunkAttrHelper>(),
      declared<PerfDialect::MicrobatchAttrHelper>(),
      declared<PerfDialect::BucketAttrHelper>(),
      declared<PerfDialect::ZeroAttrHelper>(),
      declared<PerfDialect::ExpertParallelAttrHelper>(),
      declared<PerfDialect::ExpertExchangeAttrHelper>(),
      declared<PerfDialect::RecomputeAttrHelper>(),
      declared<PerfDialect::RecomputedAttrHelper>(),
      declared<PerfDialect::ShardAttrHelper>(),
      declared<PerfDialect::EmbeddingShardsAttrHelper>(),
      declared<PerfDialect::AlgorithmAttrHelper>(),
      declared<PerfDialect::ProtocolAttrHelper>(),
      declared<PerfDialect::HostLinkShareAttrHelper>(),
      declared<PerfDialect::PaiAttrHelper>(),
      declared<PerfDialect::PaiArchitectureAttrHelper>(),
      declared<PerfDialect::CudaGraphAttrHelper>(),
  };
  return table;
}

/// The declared name closest to a misspelt one, if any is close.
StringRef closestDeclared(StringRef name) {
  StringRef best;
  unsigned bestDistance = 4;
  for (const auto &entry : declaredAttributes()) {
    unsigned d = name.edit_distance(entry.getKey(), true, bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = entry.getKey();
    }
  }
  return best;
}
} // namespace

/// A perf.* attribute is one PerfDialect.td declares, of its type (a
/// misspelt one, perf.latency_uss on a measured kernel, would otherwise be
/// ignored and the kernel priced by a model). Every time is a finite
/// non-negative number: a NaN, infinite or negative one would flow into the
/// estimate unnoticed.
LogicalResult perf::verifyPerfFact(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef name, Attribute value,
                                   bool onMemcpy) {
  auto it = declaredAttributes().find(name);
  if (it == declaredAttributes().end()) {
    InFlightDiagnostic diag = emitError()
                              << "has no attribute '" << name << "'";
    if (StringRef close = closestDeclared(name); !close.empty())
      diag << "; did you mean '" << close << "'?";
    return diag;
  }
  if (!it->second.hasType(value))
    return emitError() << "'" << name << "' must be " << it->second.expected
                       << ", got " << value;
  if (name == PerfDialect::CopyInCallAttrHelper::getNameStr() && !onMemcpy)
    return emitError() << "'" << name
                       << "' is for a perf.memcpy (a copy that runs inside "
                          "its runtime call)";
  if (name == PerfDialect::LaunchQueueDepthAttrHelper::getNameStr()) {
    int64_t depth = cast<IntegerAttr>(value).getInt();
    if (depth < 0 || depth > UINT32_MAX)
      return emitError() << "'" << name
                         << "' must be a number of kernels from 0 (no limit) "
                            "to "
                         << UINT32_MAX << ", got " << depth;
    return success();
  }
  if (!name.ends_with("_us")) {
    // Every integer fact counts or indexes something (parameters, bytes,
    // a degree, a layer): a negative one (perf.params = -5) was read as
    // none, silently.
    auto count = dyn_cast<IntegerAttr>(value);
    if (!count || count.getType().isInteger(1))
      return success();
    const APInt &v = count.getValue();
    if (!v.isNegative() && v.getActiveBits() <= 63 &&
        withinLimit(v.getSExtValue(), kMaxCount))
      return success();
    SmallString<24> text;
    v.toStringSigned(text);
    return emitError() << "'" << name << "' must be an integer from 0 to "
                       << "2^53 (" << kMaxCount.name << "), got " << text;
  }
  auto check = [&](double v) -> LogicalResult {
    if (isFiniteAtLeast(v, 0))
      return success();
    return emitError() << "'" << name
                       << "' must be a finite non-negative number of "
                          "microseconds, got "
                       << v;
  };
  if (auto f = dyn_cast<FloatAttr>(value))
    return check(f.getValueAsDouble());
  if (auto i = dyn_cast<IntegerAttr>(value))
    return check(i.getValue().signedRoundToDouble());
  if (auto times = dyn_cast<DenseF64ArrayAttr>(value))
    for (double t : times.asArrayRef())
      if (failed(check(t)))
        return failure();
  return success();
}

LogicalResult PerfDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  return verifyPerfFact([&]() { return op->emitOpError(); },
                        attr.getName().getValue(), attr.getValue(),
                        /*onMemcpy=*/false);
}

namespace {
/// Device work in bytecode: its kind and its attribute dictionary, so that
/// reading a step does not parse each distinct piece of work as text.
struct PerfBytecodeInterface : public BytecodeDialectInterface {
  explicit PerfBytecodeInterface(Dialect *dialect)
      : BytecodeDialectInterface(dialect) {}

  /// The codes of the attributes written here (others are written as text).
  enum AttrCode : uint64_t { kWork = 1 };

  Attribute readAttribute(DialectBytecodeReader &reader) const override {
    uint64_t code, kind;
    if (failed(reader.readVarInt(code)))
      return {};
    if (code != kWork) {
      reader.emitError() << "unknown perf attribute code " << code;
      return {};
    }
    DictionaryAttr attrs;
    if (failed(reader.readVarInt(kind)) || failed(reader.readAttribute(attrs)))
      return {};
    std::optional<WorkKind> workKind =
        symbolizeWorkKind(static_cast<uint32_t>(kind));
    if (!workKind) {
      reader.emitError() << "unknown device work kind " << kind;
      return {};
    }
    return WorkAttr::getChecked([&]() { return reader.emitError(); },
                                getContext(), *workKind, attrs);
  }

  LogicalResult writeAttribute(Attribute attr,
                               DialectBytecodeWriter &writer) const override {
    auto work = dyn_cast<WorkAttr>(attr);
    if (!work)
      return failure();
    writer.writeVarInt(kWork);
    writer.writeVarInt(static_cast<uint64_t>(work.getKind()));
    writer.writeAttribute(work.getAttrs());
    return success();
  }
};
} // namespace

/// Device work written where an op belongs.
static ParseResult refuseWorkAsOp(OpAsmParser &parser, OperationState &state) {
  return parser.emitError(parser.getNameLoc())
         << "'" << state.name.getStringRef()
         << "' is device work, not an op: list it in the braces of the "
            "perf.op that launches it";
}

std::optional<Dialect::ParseOpHook>
PerfDialect::getParseOperationHook(StringRef opName) const {
  if (!parseWorkMnemonic(opName))
    return std::nullopt;
  return ParseOpHook(refuseWorkAsOp);
}

void PerfDialect::initialize() {
  registerAttributes();
  addInterfaces<PerfBytecodeInterface>();
  addOperations<
#define GET_OP_LIST
#include "perf/Dialect/PerfOps.cpp.inc"
      >();
}
