//===- SignatureFields.h - Database key fields, dependency-free -*- C++ -*-===//
//
// The fields of each kernel kind's database signature, in the order
// docs/perf-db.md fixes ("b=1 m=64 n=512 k=256 ta=0 tb=0"). The signature
// writer (perf::kernelSignature) and perf-bench's key rules (built without
// LLVM) must agree on them byte for byte; both are tested against this
// table.
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

inline constexpr KindSignatureFields kSignatureFields[] = {
    {"gemm", "b m n k ta tb"},
    {"conv2d", "n c h w k r s sh sw ph pw dh dw g pass"},
    {"elementwise", "n in op"},
    {"reduce", "rows cols"},
    {"softmax", "rows cols"},
    {"layernorm", "rows cols"},
    {"embedding_bag", "t rows d b l pass"},
    {"memcpy", "bytes dir"},
    {"transpose", "n"},
    {"concat", "n"},
    {"pooling", "n c h w r s sh sw ph pw pass"},
    {"batchnorm", "n c pass"},
    {"optimizer", "n op"},
    {"attention", "flops bytes"},
    {"generic", "flops bytes"},
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
