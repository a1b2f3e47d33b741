//===- PerfAttrs.cpp - #perf.gpu and friends ------------------------------===//

#include "perf/Dialect/PerfAttrs.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/WorkSchema.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Format.h"

using namespace perf;
using namespace mlir;

bool perf::operator==(const GpuSpec &a, const GpuSpec &b) {
  return a.name == b.name && a.source == b.source &&
         gpuSpecFields(a) == gpuSpecFields(b);
}

llvm::hash_code perf::hash_value(const GpuSpec &spec) {
  llvm::hash_code h = llvm::hash_value(spec.name);
  for (auto [key, value] : gpuSpecFields(spec))
    h = llvm::hash_combine(h, key, llvm::bit_cast<uint64_t>(value));
  return h;
}

#include "perf/Dialect/PerfEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "perf/Dialect/PerfAttrs.cpp.inc"

WorkAttr WorkAttr::getUnverified(MLIRContext *context, WorkKind kind,
                                 DictionaryAttr attrs) {
  return mlir::detail::AttributeUniquer::get<WorkAttr>(context, kind, attrs);
}

void PerfDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "perf/Dialect/PerfAttrs.cpp.inc"
      >();
}

// #perf.gpu<"name" (, key = value)*>. A catalog name supplies every figure
// not given; the keys and units are those of the device JSON, so both
// spellings are checked by one parser.
Attribute GpuAttr::parse(AsmParser &parser, Type) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  // The figures go through the device JSON reader: its strings must be
  // UTF-8 (a string literal may hold any byte).
  auto utf8 = [&](llvm::StringRef text) {
    if (llvm::json::isUTF8(text))
      return true;
    parser.emitError(loc, "device strings must be valid UTF-8");
    return false;
  };
  if (!utf8(name))
    return {};
  llvm::json::Object object;
  object["name"] = name;
  bool hasBase = false;
  while (succeeded(parser.parseOptionalComma())) {
    std::string key;
    if (parser.parseKeywordOrString(&key) || !utf8(key) ||
        parser.parseEqual())
      return {};
    if (key == "base" || key == "source") {
      std::string value;
      if (parser.parseString(&value) || !utf8(value))
        return {};
      object[key] = value;
      hasBase |= key == "base";
      continue;
    }
    // Figures print as integers when they are whole, so accept both.
    double value;
    int64_t whole = 0;
    OptionalParseResult isInteger = parser.parseOptionalInteger(whole);
    if (isInteger.has_value()) {
      if (failed(*isInteger))
        return {};
      value = static_cast<double>(whole);
    } else if (parser.parseFloat(value)) {
      return {};
    }
    object[key] = value;
  }
  if (parser.parseGreater())
    return {};
  // A bare catalog name takes the catalog's figures and canonical name.
  if (!hasBase)
    if (const GpuSpec *known = lookupGpu(name)) {
      object["base"] = name;
      object["name"] = known->name;
    }
  llvm::Expected<GpuSpec> spec =
      parseGpuSpec(llvm::json::Value(std::move(object)));
  if (!spec) {
    std::string message = llvm::toString(spec.takeError());
    llvm::StringRef msg(message);
    msg.consume_front("device JSON: ");
    if (!lookupGpu(name) && msg.contains("must be positive"))
      parser.emitError(loc)
          << "unknown GPU '" << name
          << "': name a catalog GPU or give its figures (" << msg << ")";
    else
      parser.emitError(loc) << "invalid #perf.gpu: " << msg;
    return {};
  }
  return GpuAttr::getChecked([&] { return parser.emitError(loc); },
                             parser.getContext(), *spec);
}

void GpuAttr::print(AsmPrinter &printer) const {
  const GpuSpec &spec = getSpec();
  printer << "<\"" << spec.name << "\"";
  for (auto [key, value] : gpuSpecFields(spec))
    printer << ", " << key << " = " << llvm::format("%.10g", value);
  printer << ">";
}

LogicalResult GpuAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              GpuSpec spec) {
  if (llvm::Error e = spec.validate())
    return emitError() << llvm::toString(std::move(e));
  return success();
}
