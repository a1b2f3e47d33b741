//===- SignatureFields.h - Database key fields, dependency-free -*- C++ -*-===//
//
// The fields of each kernel kind's database signature, in the order
// docs/perf-db.md fixes ("b=1 m=64 n=512 k=256 ta=0 tb=0"), as WorkKinds.td
// defines them. The signature writer (perf::kernelSignature) and
// perf-bench's key rules (runtime/bench, built without LLVM) must agree on
// them byte for byte; unittests/Support/BenchSignatureTest checks both.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_SIGNATUREFIELDS_H
#define PERF_SUPPORT_SIGNATUREFIELDS_H

#include <string_view>

namespace perf {

struct KindSignatureFields {
  /// The kind's name (kernelKindName).
  std::string_view kind;
  /// Its signature's field names, space-separated, in order.
  std::string_view fields;
};

/// Every kernel kind's signature fields, from WorkKinds.td.
inline constexpr KindSignatureFields kSignatureFields[] = {
#define GEN_SIGNATURE_FIELDS
#include "perf/Support/KernelKinds.cpp.inc"
};

/// The signature fields of `kind`, space-separated; empty for a kind the
/// table does not list.
inline std::string_view signatureFieldsOf(std::string_view kind) {
  for (const KindSignatureFields &entry : kSignatureFields)
    if (entry.kind == kind)
      return entry.fields;
  return {};
}

} // namespace perf

#endif // PERF_SUPPORT_SIGNATUREFIELDS_H
