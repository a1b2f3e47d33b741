//===- WorkKindsGen.cpp - Everything a kind of device work needs ----------===//
//
// Reads the kinds of include/perf/Dialect/WorkKinds.td and writes the code
// each kind used to be spelt out in by hand: the enums, the verifier's
// attribute table, a typed view per kind, the KernelDesc conversions, the
// FLOP and byte counts, the database signature, the C API enum and the
// reference page.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <string>
#include <vector>

using namespace llvm;

namespace {

/// `trans_a` -> `TransA`.
std::string upperCamel(StringRef name) {
  return convertToCamelFromSnakeCase(name, /*capitalizeFirst=*/true);
}
/// `trans_a` -> `transA`.
std::string lowerCamel(StringRef name) {
  return convertToCamelFromSnakeCase(name, /*capitalizeFirst=*/false);
}

/// One attribute of a kind, as WorkKindBase.td's WorkField says it.
struct Field {
  std::string name;
  std::string accessor;
  std::string fieldType;
  std::string cppType;
  std::string defaultValue;
  bool required = false;
  /// The KernelDesc member; empty: none.
  std::string descMember;

  bool isPair() const {
    return fieldType == "PositivePair" || fieldType == "NonNegativePair";
  }
  bool isEnum() const {
    return fieldType == "Pass" || fieldType == "CopyDirection" ||
           fieldType == "OptimizerAlgorithm" || fieldType == "NcclAlgorithm";
  }
  bool isScalar() const {
    return fieldType == "Size" || fieldType == "Count" ||
           fieldType == "Placement" || fieldType == "Float";
  }
  /// Whether an absent attribute reads as std::nullopt.
  bool isOptional() const {
    return !required && defaultValue.empty() &&
           (isScalar() || isEnum() || isPair());
  }
  /// The getter's type.
  std::string valueType() const {
    return isOptional() ? "std::optional<" + cppType + ">" : cppType;
  }
  /// The enum attribute class of an enum field (TrainingPassAttr).
  std::string enumAttr() const { return cppType + "Attr"; }
};

struct SigKey {
  std::string key, member, shape, fallback;
};

struct Kind {
  const Record *def = nullptr;
  std::string mnemonic, cppName, summary, verify;
  bool isKernel = false;
  std::vector<Field> fields;
  // Kernels.
  std::string dbName, toDesc, fromDesc, flops, bytes, validSizes,
      signatureParsed;
  bool tensorCores = false;
  std::vector<SigKey> signature;

  std::string view() const { return cppName + "Work"; }
};

std::vector<Field> readFields(const DagInit *dag, const Record *owner) {
  std::vector<Field> fields;
  if (!dag)
    return fields;
  for (unsigned i = 0, e = dag->getNumArgs(); i < e; ++i) {
    const auto *defInit = dyn_cast<DefInit>(dag->getArg(i));
    if (!defInit || !defInit->getDef()->isSubClassOf("WorkField"))
      PrintFatalError(owner, "field " + Twine(i) + " is not a WorkField");
    const Record *f = defInit->getDef();
    Field field;
    field.name = dag->getArgNameStr(i).str();
    if (field.name.empty())
      PrintFatalError(owner, "field " + Twine(i) + " has no $name");
    field.fieldType = f->getValueAsString("fieldType").str();
    field.cppType = f->getValueAsString("cppType").str();
    field.defaultValue = f->getValueAsString("defaultValue").str();
    field.required = f->getValueAsBit("required");
    StringRef accessor = f->getValueAsString("accessor");
    field.accessor = accessor.empty() ? upperCamel(field.name) : accessor.str();
    StringRef member = f->getValueAsString("descMember");
    field.descMember = member == "-"    ? std::string()
                       : member.empty() ? lowerCamel(field.name)
                                        : member.str();
    fields.push_back(std::move(field));
  }
  return fields;
}

/// The kinds in the order they are defined: their numbering.
std::vector<Kind> readKinds(const RecordKeeper &records) {
  std::vector<const Record *> defs(
      records.getAllDerivedDefinitions("WorkKind"));
  llvm::sort(defs, LessRecordByID());
  std::vector<Kind> kinds;
  for (const Record *def : defs) {
    Kind kind;
    kind.def = def;
    kind.mnemonic = def->getValueAsString("mnemonic").str();
    kind.cppName = def->getValueAsString("cppName").str();
    kind.summary = def->getValueAsString("summary").str();
    kind.verify = def->getValueAsString("verify").str();
    kind.isKernel = def->isSubClassOf("KernelKind");
    kind.fields = readFields(def->getValueAsDag("fields"), def);
    if (kind.isKernel) {
      kind.dbName = def->getValueAsString("dbName").str();
      kind.toDesc = def->getValueAsString("toDesc").str();
      kind.fromDesc = def->getValueAsString("fromDesc").str();
      kind.flops = def->getValueAsString("flops").str();
      kind.bytes = def->getValueAsString("bytes").str();
      kind.validSizes = def->getValueAsString("validSizes").str();
      kind.signatureParsed = def->getValueAsString("signatureParsed").str();
      kind.tensorCores = def->getValueAsBit("tensorCores");
      for (const Record *key : def->getValueAsListOfDefs("signature"))
        kind.signature.push_back({key->getValueAsString("key").str(),
                                  key->getValueAsString("member").str(),
                                  key->getValueAsString("shape").str(),
                                  key->getValueAsString("fallback").str()});
    } else if (!def->isSubClassOf("CollectiveKind")) {
      PrintFatalError(def, "a kind is a KernelKind or a CollectiveKind");
    }
    kinds.push_back(std::move(kind));
  }
  StringSet<> seen;
  for (const Kind &kind : kinds)
    if (!seen.insert(kind.mnemonic).second)
      PrintFatalError(kind.def, "two kinds named '" + kind.mnemonic + "'");
  return kinds;
}

std::vector<Field> commonFields(const RecordKeeper &records, StringRef name) {
  const Record *def = records.getDef(name);
  if (!def)
    PrintFatalError("WorkKinds.td must define " + name);
  return readFields(def->getValueAsDag("fields"), def);
}

/// The fields WorkAttr reads itself (WorkAttrOwned).
StringSet<> workAttrOwned(const RecordKeeper &records) {
  StringSet<> names;
  if (const Record *def = records.getDef("WorkAttrOwned"))
    for (StringRef name : def->getValueAsListOfStrings("names"))
      names.insert(name);
  return names;
}

std::vector<const Kind *> kernels(const std::vector<Kind> &kinds) {
  std::vector<const Kind *> out;
  for (const Kind &kind : kinds)
    if (kind.isKernel)
      out.push_back(&kind);
  return out;
}

/// `s` indented by `indent`, its own leading and trailing blank lines
/// dropped (a [{ }] block's text).
std::string codeBlock(StringRef s, StringRef indent) {
  SmallVector<StringRef> lines;
  s.split(lines, '\n');
  while (!lines.empty() && lines.front().trim().empty())
    lines.erase(lines.begin());
  while (!lines.empty() && lines.back().trim().empty())
    lines.pop_back();
  // The block's own indentation, that of its least indented line.
  size_t strip = std::string::npos;
  for (StringRef line : lines)
    if (!line.trim().empty())
      strip = std::min(strip, line.size() - line.ltrim().size());
  std::string out;
  for (StringRef line : lines) {
    if (line.trim().empty()) {
      out += "\n";
      continue;
    }
    out += indent.str() + line.drop_front(strip).rtrim().str() + "\n";
  }
  return out;
}

//===----------------------------------------------------------------------===//
// KernelKind (MLIR-free)
//===----------------------------------------------------------------------===//

void emitKernelKindDecls(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("The kernel kinds of WorkKinds.td", os, records);
  std::vector<Kind> kinds = readKinds(records);
  // Included inside namespace perf (KernelDesc.h).
  os << "/// A kernel or copy, as the cost models see it; numbered in the "
        "order\n/// WorkKinds.td defines them.\n";
  os << "enum class KernelKind {\n";
  for (const Kind *kind : kernels(kinds))
    os << "  " << kind->cppName << ", // " << kind->summary << "\n";
  os << "};\n\n";
  os << "inline constexpr int kNumKernelKinds = " << kernels(kinds).size()
     << ";\n";
}

/// The expression that writes key `key` of `d`'s signature.
void emitSignatureWrite(raw_ostream &os, const SigKey &key, bool first) {
  if (key.shape == "SetFlag") {
    if (first)
      PrintFatalError("a SetFlag key cannot open a signature");
    os << "    if (d." << key.member << ")\n      os << \" " << key.key
       << "=1\";\n";
    return;
  }
  os << "    os << \"" << (first ? "" : " ") << key.key << "=\" << ";
  if (key.shape == "Int")
    os << "d." << key.member;
  else if (key.shape == "Flag")
    os << "(d." << key.member << " ? 1 : 0)";
  else if (key.shape == "Pass")
    os << "kernelPassName(d)";
  else if (key.shape == "Op")
    os << "(d.op.empty() ? \"" << key.fallback << "\" : d.op)";
  else if (key.shape == "Dir")
    os << "memcpyKindName(d.copyKind)";
  else if (key.shape == "Bytes")
    os << "static_cast<int64_t>(d." << key.member << ")";
  else if (key.shape == "Flops")
    os << "llvm::format(\"%.0f\", d.totalFlops())";
  else if (key.shape == "TotalBytes")
    os << "llvm::format(\"%.0f\", d.totalBytes())";
  else
    PrintFatalError("unknown signature key shape '" + key.shape + "'");
  os << ";\n";
}

/// The statement that reads `value` into the member of `key`.
void emitSignatureRead(raw_ostream &os, const SigKey &key) {
  os << "    if (key == \"" << key.key << "\")\n      return ";
  if (key.shape == "Int")
    os << "readInt(value, d." << key.member << ")";
  else if (key.shape == "Flag" || key.shape == "SetFlag")
    os << "readFlag(value, d." << key.member << ")";
  else if (key.shape == "Pass")
    os << "readPass(value, d)";
  else if (key.shape == "Op")
    os << "readText(value, d.op)";
  else if (key.shape == "Dir")
    os << "readDirection(value, d.copyKind)";
  else
    os << "readNumber(value, d." << key.member << ")";
  os << ";\n";
}

void emitKernelKindDefs(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("The kernel kinds of WorkKinds.td", os, records);
  std::vector<Kind> kinds = readKinds(records);
  std::vector<const Kind *> list = kernels(kinds);

  os << "#ifdef GEN_KERNEL_KIND_COUNTS\n#undef GEN_KERNEL_KIND_COUNTS\n\n";
  os << "static constexpr llvm::StringLiteral kKernelKindNames[] = {\n";
  for (const Kind *kind : list)
    os << "    \"" << kind->dbName << "\",\n";
  os << "};\n\n";
  os << "/// Whether the libraries run `kind` on tensor cores (in TF32, FP16, "
        "BF16).\n";
  os << "static bool kindRunsOnTensorCores(KernelKind kind) {\n";
  os << "  switch (kind) {\n";
  for (const Kind *kind : list)
    if (kind->tensorCores)
      os << "  case KernelKind::" << kind->cppName << ":\n";
  os << "    return true;\n  default:\n    return false;\n  }\n}\n\n";
  auto emitSwitch = [&](StringRef signature, StringRef what, auto codeOf) {
    os << signature << " {\n";
    os << "  [[maybe_unused]] double b = static_cast<double>(d.batch);\n";
    os << "  [[maybe_unused]] double e = dtypeBytes(d.dtype);\n";
    os << "  [[maybe_unused]] auto positive = "
          "[](std::initializer_list<int64_t> values) {\n"
          "    return llvm::all_of(values, [](int64_t v) { return v > 0; "
          "});\n  };\n";
    os << "  switch (d.kind) {\n";
    for (const Kind *kind : list) {
      os << "  case KernelKind::" << kind->cppName << ": {\n";
      os << codeBlock(codeOf(*kind), "    ");
      os << "  }\n";
    }
    os << "  }\n  llvm_unreachable(\"every kind has its " << what
       << "\");\n}\n\n";
  };
  emitSwitch("static double kindFlops(const KernelDesc &d)", "FLOPs",
             [](const Kind &k) { return k.flops; });
  emitSwitch("static double kindBytes(const KernelDesc &d)", "bytes",
             [](const Kind &k) { return k.bytes; });
  emitSwitch("static bool kindHasValidSizes(const KernelDesc &d)", "sizes",
             [](const Kind &k) { return k.validSizes; });
  os << "#endif // GEN_KERNEL_KIND_COUNTS\n\n";

  os << "#ifdef GEN_KERNEL_SIGNATURES\n#undef GEN_KERNEL_SIGNATURES\n\n";
  os << "/// Writes the signature of `d` (docs/perf-db.md) to `os`.\n";
  os << "static void writeKindSignature(llvm::raw_ostream &os, "
        "const KernelDesc &d) {\n";
  os << "  switch (d.kind) {\n";
  for (const Kind *kind : list) {
    os << "  case KernelKind::" << kind->cppName << ":\n";
    for (auto [i, key] : llvm::enumerate(kind->signature))
      emitSignatureWrite(os, key, i == 0);
    os << "    return;\n";
  }
  os << "  }\n}\n\n";
  os << "/// Reads `key=value` of a signature of `d`'s kind into `d`; "
        "failure for a\n/// key the kind's signature has not, or a value "
        "of the wrong form.\n";
  os << "static SignatureKeyRead readKindSignatureKey(KernelDesc &d, "
        "llvm::StringRef key,\n"
        "                                              llvm::StringRef value) "
        "{\n";
  os << "  switch (d.kind) {\n";
  for (const Kind *kind : list) {
    os << "  case KernelKind::" << kind->cppName << ":\n";
    for (const SigKey &key : kind->signature)
      emitSignatureRead(os, key);
    os << "    break;\n";
  }
  os << "  }\n  return SignatureKeyRead::UnknownKey;\n}\n\n";
  os << "/// What follows from a parsed signature of `d`'s kind.\n";
  os << "static void completeKindSignature(KernelDesc &d) {\n";
  os << "  switch (d.kind) {\n";
  for (const Kind *kind : list) {
    if (kind->signatureParsed.empty())
      continue;
    os << "  case KernelKind::" << kind->cppName << ":\n";
    os << codeBlock(kind->signatureParsed, "    ");
    os << "    return;\n";
  }
  os << "  default:\n    return;\n  }\n}\n\n";
  os << "#endif // GEN_KERNEL_SIGNATURES\n\n";

  os << "#ifdef GEN_SIGNATURE_FIELDS\n#undef GEN_SIGNATURE_FIELDS\n\n";
  for (const Kind *kind : list) {
    os << "    {\"" << kind->dbName << "\", \"";
    llvm::interleave(
        kind->signature, os, [&](const SigKey &key) { os << key.key; }, " ");
    os << "\"},\n";
  }
  os << "\n#endif // GEN_SIGNATURE_FIELDS\n";
}

//===----------------------------------------------------------------------===//
// The C API's enum
//===----------------------------------------------------------------------===//

void emitCApiKinds(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("The kernel kinds of the perf C API", os, records);
  std::vector<Kind> kinds = readKinds(records);
  os << "#ifndef PERF_C_KERNELKINDS_H\n#define PERF_C_KERNELKINDS_H\n\n";
  os << "/// Kernel kinds, in the order of perf::KernelKind.\n";
  os << "typedef enum {\n";
  for (auto [i, kind] : llvm::enumerate(kernels(kinds)))
    os << "  PerfKernel" << kind->cppName << " = " << i << ",\n";
  os << "} PerfKernelKind;\n\n#endif // PERF_C_KERNELKINDS_H\n";
}

//===----------------------------------------------------------------------===//
// WorkKind, the schema and the views (MLIR)
//===----------------------------------------------------------------------===//

/// How a getter reads field `f` (a WorkAttr read* helper).
std::string readExpr(const Field &f) {
  std::string n = "\"" + f.name + "\"";
  std::string dflt = f.defaultValue;
  auto orDefault = [&](std::string read) {
    if (f.isOptional())
      return read;
    if (dflt.empty())
      return read + ".value_or(" + f.cppType + "())";
    return read + ".value_or(" + f.cppType + "(" + dflt + "))";
  };
  if (f.fieldType == "Size" || f.fieldType == "Count" ||
      f.fieldType == "Placement")
    return orDefault("readInt(" + n + ")");
  if (f.fieldType == "Float")
    return orDefault("readFloat(" + n + ")");
  if (f.isPair())
    return orDefault("readPair(" + n + ")");
  if (f.isEnum())
    return orDefault("readEnum<" + f.enumAttr() + ">(" + n + ")");
  if (f.fieldType == "String")
    return "readString(" + n + ")";
  if (f.fieldType == "Unit")
    return "readFlag(" + n + ")";
  if (f.fieldType == "ElementType")
    return "readType(" + n + ")";
  if (f.fieldType == "DeviceList" || f.fieldType == "I64Array")
    return "readArray(" + n + ")";
  PrintFatalError("unknown field type '" + f.fieldType + "'");
}

/// The attribute a value `v` of field `f` is written as (null: absent),
/// in a context `ctx`.
std::string valueExpr(const Field &f, StringRef v, StringRef ctx) {
  std::string value = v.str();
  std::string attr;
  if (f.isOptional())
    value = "*" + value;
  if (f.fieldType == "Size" || f.fieldType == "Count" ||
      f.fieldType == "Placement")
    attr = "::perf::detail::intFieldValue(" + ctx.str() + ", " + value + ")";
  else if (f.fieldType == "Float")
    attr = "::perf::detail::floatFieldValue(" + ctx.str() + ", " + value + ")";
  else if (f.isPair())
    attr = "::perf::detail::pairFieldValue(" + ctx.str() + ", " + value + ")";
  else if (f.isEnum())
    attr = f.enumAttr() + "::get(" + ctx.str() + ", " + value + ")";
  else if (f.fieldType == "String")
    attr = "::perf::detail::stringFieldValue(" + ctx.str() + ", " + value + ")";
  else if (f.fieldType == "Unit")
    attr = "::perf::detail::flagFieldValue(" + ctx.str() + ", " + value + ")";
  else if (f.fieldType == "ElementType")
    attr = "::perf::detail::typeFieldValue(" + value + ")";
  else
    attr = "::perf::detail::arrayFieldValue(" + ctx.str() + ", " + value + ")";
  if (f.isOptional())
    return "(" + v.str() + " ? ::mlir::Attribute(" + attr +
           ") : ::mlir::Attribute())";
  return attr;
}

/// The parameter type of a setter of `f`.
std::string paramType(const Field &f) {
  std::string t = f.valueType();
  if (f.isPair() && !f.isOptional())
    return "const " + t + " &";
  return t;
}

/// The default a field's schema row records (as a double), if any: a
/// pair's is its two equal halves' value.
std::string schemaDefault(const Field &f) {
  if (f.defaultValue.empty())
    return "";
  if (f.isPair()) {
    SmallVector<StringRef> halves;
    StringRef(f.defaultValue).split(halves, ',');
    if (halves.size() != 2 || halves[0].trim() != halves[1].trim())
      PrintFatalError("the default of pair '" + f.name +
                      "' must be two equal values");
    return halves[0].trim().str();
  }
  if (f.isEnum())
    return "double(" + f.defaultValue + ")";
  return f.defaultValue;
}

void emitFieldTable(raw_ostream &os, StringRef name,
                    const std::vector<Field> &fields) {
  if (fields.empty())
    return;
  os << "static constexpr WorkField " << name << "[] = {\n";
  for (const Field &f : fields) {
    os << "    {\"" << f.name << "\", WorkFieldType::" << f.fieldType << ", "
       << (f.required ? "true" : "false");
    std::string dflt = schemaDefault(f);
    if (!dflt.empty())
      os << ", " << dflt;
    os << "},\n";
  }
  os << "};\n";
}

void emitViewDecl(raw_ostream &os, StringRef view, StringRef base,
                  StringRef classofDoc, const std::vector<Field> &fields,
                  const StringSet<> &skip, StringRef summary) {
  os << "/// " << summary << "\n";
  os << "class " << view << " : public " << base << " {\n";
  os << "public:\n";
  os << "  " << view << "() = default;\n";
  os << "  " << view << "(const ::mlir::Attribute::ImplType *impl) : " << base
     << "(impl) {}\n";
  os << "  /// " << classofDoc << "\n";
  os << "  static bool classof(::mlir::Attribute attr);\n";
  for (const Field &f : fields) {
    if (skip.contains(f.name))
      continue;
    os << "  /// `" << f.name << "`";
    if (!f.defaultValue.empty())
      os << " (" << f.defaultValue << " when absent)";
    os << ".\n";
    os << "  " << f.valueType() << " get" << f.accessor << "() const;\n";
    os << "  " << view << " with" << f.accessor << "(" << paramType(f)
       << " value) const;\n";
  }
  os << "};\n\n";
}

void emitViewDefs(raw_ostream &os, StringRef view, StringRef classofExpr,
                  const std::vector<Field> &fields, const StringSet<> &skip) {
  os << "bool " << view << "::classof(::mlir::Attribute attr) {\n";
  os << "  auto work = ::llvm::dyn_cast<WorkAttr>(attr);\n";
  os << "  return work && " << classofExpr << ";\n}\n\n";
  for (const Field &f : fields) {
    if (skip.contains(f.name))
      continue;
    os << f.valueType() << " " << view << "::get" << f.accessor
       << "() const {\n";
    os << "  return " << readExpr(f) << ";\n}\n\n";
    os << view << " " << view << "::with" << f.accessor << "(" << paramType(f)
       << " value) const {\n";
    os << "  return ::llvm::cast<" << view << ">(with(\"" << f.name << "\", "
       << valueExpr(f, "value", "getContext()") << "));\n}\n\n";
  }
}

void emitWorkKindDecls(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("The kinds of device work of WorkKinds.td", os, records);
  std::vector<Kind> kinds = readKinds(records);
  StringSet<> owned = workAttrOwned(records);

  os << "#ifdef GEN_WORK_KIND_ENUM\n#undef GEN_WORK_KIND_ENUM\n\n";
  os << "namespace perf {\n\n";
  os << "/// A kind of device work: a kernel, a copy or a collective. The "
        "numbers are\n/// written in bytecode files.\n";
  os << "enum class WorkKind : uint32_t {\n";
  for (auto [i, kind] : llvm::enumerate(kinds))
    os << "  " << kind.cppName << " = " << i << ",\n";
  os << "};\n\n";
  os << "inline constexpr unsigned kNumWorkKinds = " << kinds.size() << ";\n\n";
  os << "/// \"gemm\", \"all_reduce\": the kind as written after `perf.`.\n";
  os << "::llvm::StringRef stringifyWorkKind(WorkKind kind);\n";
  os << "std::optional<WorkKind> symbolizeWorkKind(::llvm::StringRef "
        "mnemonic);\n";
  os << "std::optional<WorkKind> symbolizeWorkKind(uint32_t value);\n";
  os << "/// Whether `kind` is a collective or point-to-point transfer.\n";
  os << "bool isCollectiveKind(WorkKind kind);\n";
  os << "/// The KernelKind of a kernel or copy; none for a collective.\n";
  os << "std::optional<KernelKind> toKernelKind(WorkKind kind);\n";
  os << "WorkKind toWorkKind(KernelKind kind);\n\n";
  os << "} // namespace perf\n\n";
  os << "#endif // GEN_WORK_KIND_ENUM\n\n";

  os << "#ifdef GEN_WORK_VIEWS\n#undef GEN_WORK_VIEWS\n\n";
  os << "namespace perf {\n\n";
  emitViewDecl(os, "KernelWork", "WorkAttr", "Any kernel or copy.",
               commonFields(records, "KernelCommon"), owned,
               "A kernel or copy: the attributes every one takes.");
  emitViewDecl(os, "CollectiveWork", "WorkAttr", "Any collective.",
               commonFields(records, "CollectiveCommon"), owned,
               "A collective or transfer: the attributes every one takes.");
  for (const Kind &kind : kinds)
    emitViewDecl(os, kind.view(),
                 kind.isKernel ? "KernelWork" : "CollectiveWork",
                 "Work of kind " + kind.mnemonic + ".", kind.fields, {},
                 "`perf." + kind.mnemonic + "`: " + kind.summary + ".");
  os << "} // namespace perf\n\n";
  os << "#endif // GEN_WORK_VIEWS\n";
}

/// The schema, the views' members, the verifier's per-kind checks and the
/// KernelDesc conversions.
void emitWorkKindDefs(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("The kinds of device work of WorkKinds.td", os, records);
  std::vector<Kind> kinds = readKinds(records);
  StringSet<> owned = workAttrOwned(records);
  std::vector<Field> kernelCommon = commonFields(records, "KernelCommon");
  std::vector<Field> collectiveCommon =
      commonFields(records, "CollectiveCommon");

  // The enum's functions.
  os << "#ifdef GEN_WORK_KIND_ENUM\n#undef GEN_WORK_KIND_ENUM\n\n";
  os << "static constexpr ::llvm::StringLiteral kWorkKindMnemonics[] = {\n";
  for (const Kind &kind : kinds)
    os << "    \"" << kind.mnemonic << "\",\n";
  os << "};\n\n";
  os << "::llvm::StringRef perf::stringifyWorkKind(WorkKind kind) {\n"
        "  return kWorkKindMnemonics[static_cast<uint32_t>(kind)];\n}\n\n";
  os << "std::optional<perf::WorkKind>\nperf::symbolizeWorkKind(::llvm::"
        "StringRef mnemonic) {\n"
        "  for (uint32_t i = 0; i < kNumWorkKinds; ++i)\n"
        "    if (kWorkKindMnemonics[i] == mnemonic)\n"
        "      return static_cast<WorkKind>(i);\n"
        "  return std::nullopt;\n}\n\n";
  os << "std::optional<perf::WorkKind> perf::symbolizeWorkKind(uint32_t "
        "value) {\n"
        "  if (value >= kNumWorkKinds)\n    return std::nullopt;\n"
        "  return static_cast<WorkKind>(value);\n}\n\n";
  os << "bool perf::isCollectiveKind(WorkKind kind) {\n  switch (kind) {\n";
  for (const Kind &kind : kinds)
    if (!kind.isKernel)
      os << "  case WorkKind::" << kind.cppName << ":\n";
  os << "    return true;\n  default:\n    return false;\n  }\n}\n\n";
  os << "std::optional<perf::KernelKind> perf::toKernelKind(WorkKind kind) "
        "{\n  switch (kind) {\n";
  for (const Kind &kind : kinds)
    if (kind.isKernel)
      os << "  case WorkKind::" << kind.cppName
         << ":\n    return KernelKind::" << kind.cppName << ";\n";
  os << "  default:\n    return std::nullopt;\n  }\n}\n\n";
  os << "perf::WorkKind perf::toWorkKind(KernelKind kind) {\n"
        "  switch (kind) {\n";
  for (const Kind &kind : kinds)
    if (kind.isKernel)
      os << "  case KernelKind::" << kind.cppName
         << ":\n    return WorkKind::" << kind.cppName << ";\n";
  os << "  }\n  llvm_unreachable(\"every kernel kind is a work kind\");\n}\n\n";
  os << "#endif // GEN_WORK_KIND_ENUM\n\n";

  // The schema.
  os << "#ifdef GEN_WORK_SCHEMA\n#undef GEN_WORK_SCHEMA\n\n";
  emitFieldTable(os, "kKernelCommonFields", kernelCommon);
  emitFieldTable(os, "kCollectiveCommonFields", collectiveCommon);
  for (const Kind &kind : kinds)
    emitFieldTable(os, "k" + kind.cppName + "Fields", kind.fields);
  os << "\nstatic const WorkSchema kWorkSchemas[] = {\n";
  for (const Kind &kind : kinds) {
    os << "    {WorkKind::" << kind.cppName << ", \"" << kind.summary << "\", ";
    if (kind.fields.empty())
      os << "{}";
    else
      os << "k" << kind.cppName << "Fields";
    os << "},\n";
  }
  os << "};\n\n";
  os << "/// The checks of `work`'s kind beyond each attribute's own.\n";
  os << "static ::mlir::LogicalResult verifyKindAttributes(\n"
        "    ::llvm::function_ref<::mlir::InFlightDiagnostic()> error, "
        "WorkAttr attr) {\n";
  os << "  switch (attr.getKind()) {\n";
  for (const Kind &kind : kinds) {
    if (kind.verify.empty())
      continue;
    os << "  case WorkKind::" << kind.cppName << ": {\n";
    os << "    auto work = ::llvm::cast<" << kind.view() << ">(attr);\n";
    os << codeBlock(kind.verify, "    ");
    os << "  }\n";
  }
  os << "  default:\n    return ::mlir::success();\n  }\n}\n\n";
  os << "#endif // GEN_WORK_SCHEMA\n\n";

  // The views.
  os << "#ifdef GEN_WORK_VIEWS\n#undef GEN_WORK_VIEWS\n\n";
  os << "namespace perf {\n\n";
  emitViewDefs(os, "KernelWork", "work.isKernel()", kernelCommon, owned);
  emitViewDefs(os, "CollectiveWork", "work.isCollective()", collectiveCommon,
               owned);
  for (const Kind &kind : kinds)
    emitViewDefs(os, kind.view(), "work.getKind() == WorkKind::" + kind.cppName,
                 kind.fields, {});
  os << "} // namespace perf\n\n";
  os << "#endif // GEN_WORK_VIEWS\n\n";

  // KernelDesc both ways.
  os << "#ifdef GEN_WORK_DESC\n#undef GEN_WORK_DESC\n\n";
  os << "namespace {\n";
  for (const Kind &kind : kinds) {
    if (!kind.isKernel)
      continue;
    os << "/// Sets the attributes of a " << kind.mnemonic << ".\n";
    os << "struct " << kind.cppName << "Fields {\n";
    os << "  ::perf::detail::WorkFields &fields;\n";
    for (const Field &f : kind.fields)
      os << "  void set" << f.accessor << "(" << paramType(f)
         << " value) {\n    fields.set(\"" << f.name << "\", "
         << valueExpr(f, "value", "fields.context()") << ");\n  }\n";
    os << "};\n\n";
  }
  os << "} // namespace\n\n";
  os << "/// The attributes of kernel `attr` that its kind has, in `d`.\n";
  os << "static void readKindDesc(WorkAttr attr, KernelDesc &d) {\n";
  os << "  switch (attr.getKind()) {\n";
  for (const Kind &kind : kinds) {
    if (!kind.isKernel)
      continue;
    os << "  case WorkKind::" << kind.cppName << ": {\n";
    os << "    d.kind = KernelKind::" << kind.cppName << ";\n";
    os << "    auto work = ::llvm::cast<" << kind.view() << ">(attr);\n";
    for (const Field &f : kind.fields) {
      if (f.descMember.empty())
        continue;
      std::string get = "work.get" + f.accessor + "()";
      if (f.isPair() && f.isOptional())
        os << "    if (auto v = " << get << ")\n      std::tie(d."
           << f.descMember << "H, d." << f.descMember << "W) = *v;\n";
      else if (f.isPair())
        os << "    std::tie(d." << f.descMember << "H, d." << f.descMember
           << "W) = " << get << ";\n";
      else if (f.fieldType == "String")
        os << "    d." << f.descMember << " = " << get << ".str();\n";
      else if (f.isOptional())
        os << "    if (auto v = " << get << ")\n      d." << f.descMember
           << " = *v;\n";
      else
        os << "    d." << f.descMember << " = " << get << ";\n";
    }
    if (!kind.toDesc.empty())
      os << codeBlock(kind.toDesc, "    ");
    os << "    return;\n  }\n";
  }
  os << "  default:\n    return;\n  }\n}\n\n";
  os << "/// Work of kind `kind` from `d`, its kind's attributes added to "
        "`fields`\n/// (which hold the common ones); null for a kernel "
        "the kind cannot hold.\n";
  os << "static ::mlir::FailureOr<WorkAttr> buildKindWork(KernelKind kind, "
        "const KernelDesc &d,\n"
        "                                               "
        "::perf::detail::WorkFields &fields) {\n";
  os << "  switch (kind) {\n";
  for (const Kind &kind : kinds) {
    if (!kind.isKernel)
      continue;
    os << "  case KernelKind::" << kind.cppName << ": {\n";
    os << "    " << kind.cppName << "Fields w{fields};\n";
    for (const Field &f : kind.fields) {
      if (f.descMember.empty())
        continue;
      std::string member = "d." + f.descMember;
      if (f.isPair())
        os << "    w.set" << f.accessor << "({" << member << "H, " << member
           << "W});\n";
      else if (f.isOptional())
        os << "    if (" << member << " != 0)\n      w.set" << f.accessor << "("
           << member << ");\n";
      else if (f.fieldType == "String" || f.fieldType == "Unit")
        os << "    w.set" << f.accessor << "(" << member << ");\n";
      else
        os << "    w.set" << f.accessor << "(static_cast<" << f.cppType << ">("
           << member << "));\n";
    }
    if (!kind.fromDesc.empty())
      os << codeBlock(kind.fromDesc, "    ");
    os << "    return fields.build(WorkKind::" << kind.cppName << ");\n  }\n";
  }
  os << "  }\n  return WorkAttr();\n}\n\n";
  os << "#endif // GEN_WORK_DESC\n";
}

//===----------------------------------------------------------------------===//
// The reference
//===----------------------------------------------------------------------===//

void emitDocFields(raw_ostream &os, const std::vector<Field> &fields) {
  llvm::interleave(
      fields, os,
      [&](const Field &f) {
        os << (f.required ? "**`" + f.name + "`**" : "`" + f.name + "`");
        if (f.defaultValue.empty())
          return;
        // An enum's default as it is written: `::perf::CopyDirection::D2D`
        // is d2d.
        StringRef dflt = f.defaultValue;
        if (f.isEnum())
          os << " (" << dflt.rsplit("::").second.lower() << ")";
        else if (f.isPair())
          os << " ([" << dflt << "])";
        else
          os << " (" << dflt << ")";
      },
      ", ");
}

void emitWorkKindDoc(const RecordKeeper &records, raw_ostream &os) {
  std::vector<Kind> kinds = readKinds(records);
  os << "<!-- Generated by perf-tblgen -gen-work-kind-doc from "
        "include/perf/Dialect/WorkKinds.td. -->\n\n";
  os << "# Device work\n\n";
  os << "Every kernel takes ";
  emitDocFields(os, commonFields(records, "KernelCommon"));
  os << "; every collective ";
  emitDocFields(os, commonFields(records, "CollectiveCommon"));
  os << ". Required attributes are in bold, defaults in parentheses. A "
        "signature key in brackets is written (`key=1`) only when its flag is "
        "set, so that the keys of rows measured before it was added still "
        "match.\n\n";
  os << "| kind | what | attributes | database signature |\n";
  os << "| --- | --- | --- | --- |\n";
  for (const Kind &kind : kinds) {
    os << "| `perf." << kind.mnemonic << "` | " << kind.summary << " | ";
    emitDocFields(os, kind.fields);
    os << " | ";
    if (kind.isKernel) {
      os << "`" << kind.dbName << "`: `";
      llvm::interleave(
          kind.signature, os,
          [&](const SigKey &k) {
            if (k.shape == "SetFlag")
              os << "[" << k.key << "]";
            else
              os << k.key;
          },
          " ");
      os << "`";
    }
    os << " |\n";
  }
}

} // namespace

static TableGen::Emitter::Opt
    genKernelKindDecls("gen-kernel-kind-decls", emitKernelKindDecls,
                       "The KernelKind enum (MLIR-free)");
static TableGen::Emitter::Opt
    genKernelKindDefs("gen-kernel-kind-defs", emitKernelKindDefs,
                      "Kernel names, counts and database signatures");
static TableGen::Emitter::Opt genCApiKinds("gen-capi-kernel-kinds",
                                           emitCApiKinds,
                                           "The C API's PerfKernelKind");
static TableGen::Emitter::Opt
    genWorkKindDecls("gen-work-kind-decls", emitWorkKindDecls,
                     "The WorkKind enum and the work views");
static TableGen::Emitter::Opt
    genWorkKindDefs("gen-work-kind-defs", emitWorkKindDefs,
                    "The work schema, the views and KernelDesc conversions");
static TableGen::Emitter::Opt genWorkKindDoc("gen-work-kind-doc",
                                             emitWorkKindDoc,
                                             "The reference of device work");
