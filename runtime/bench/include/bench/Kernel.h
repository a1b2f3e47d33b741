//===- Kernel.h - One kernel to measure and its database key ----*- C++ -*-===//
//
// A kernel is a kind, a dtype and the signature fields of docs/perf-db.md, in
// the order that document fixes. Sweep specs reach a Kernel through
// buildKernel() and kernel lists (perf-opt's database keys) through
// parseKernelKey(); both apply the same per-kind rules, so the two produce
// the same signature for the same shape, and the same string the cost models
// look up.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_KERNEL_H
#define PERF_BENCH_KERNEL_H

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace bench {

/// An attribute as written in a sweep spec.
struct AttrValue {
  enum class Type { Int, String, IntArray };
  Type type = Type::Int;
  int64_t intValue = 0;
  std::string stringValue; // strings ("dtype": "f16")
  std::vector<int64_t> arrayValue;

  static AttrValue ofInt(int64_t v) {
    AttrValue a;
    a.type = Type::Int;
    a.intValue = v;
    return a;
  }
  static AttrValue ofString(std::string s) {
    AttrValue a;
    a.type = Type::String;
    a.stringValue = std::move(s);
    return a;
  }
  static AttrValue ofArray(std::vector<int64_t> v) {
    AttrValue a;
    a.type = Type::IntArray;
    a.arrayValue = std::move(v);
    return a;
  }
  std::string str() const;
};

using AttrMap = std::map<std::string, AttrValue>;

struct Kernel {
  std::string kind;  // gemm, conv2d, ... (kernelKindName spelling)
  std::string dtype; // canonical: f32, tf32, f16, bf16, f64, i8, ...
  /// Signature fields in the order of docs/perf-db.md.
  std::vector<std::pair<std::string, std::string>> fields;

  /// "b=1 m=64 n=512 k=256 ta=0 tb=0".
  std::string signature() const;
  /// The database primary key within one device: "dtype|kind|signature".
  std::string key() const;
  /// An integer field; 0 if absent.
  int64_t num(const std::string &field) const;
  /// A string field; empty if absent.
  std::string text(const std::string &field) const;
};

/// The kinds perf-bench measures, in the order docs/perf-db.md lists them.
const std::vector<std::string> &benchKinds();

/// The signature fields of `kind`, in key order (empty for a kind perf-bench
/// does not measure): perf/Support/SignatureFields.h's, as the tests check.
std::vector<std::string> signatureFieldNames(const std::string &kind);

/// The canonical dtype name for `name` ("fp16", "half", "float16" -> "f16"),
/// read as lib/ reads it (perf/Support/DTypeNames.h), or an empty string for
/// an unknown name or a type perf-bench does not measure (booleans).
std::string canonicalDtype(const std::string &name);

/// Builds a kernel of `kind` from named attributes. Attribute names are those
/// of the perf dialect (batch, m, n, k, stride = [sh, sw], pass =
/// #perf.pass<fwd>, ...), and a "dtype" attribute, if present, overrides
/// `dtype`. Fails, with `error` saying which attribute, on an unknown kind, a
/// missing required attribute, an attribute of the wrong type or an unknown
/// attribute (when `strict`).
bool buildKernel(const std::string &kind, const std::string &dtype,
                 const AttrMap &attrs, bool strict, Kernel &out,
                 std::string &error);

/// Rebuilds the kernel whose database key is (kind, dtype, signature), as
/// another tool wrote it: the signature must hold exactly the fields of the
/// kind in the order of docs/perf-db.md, "name=value" joined by single
/// spaces, integers in canonical decimal where the field is numeric and
/// within the same bounds buildKernel() applies. On failure `error` says
/// what ("signature field 'm' is not an integer") and `unsupported`, if
/// given, tells a key perf-bench cannot measure (a kind it does not
/// benchmark, a dtype it does not know, a string value such as an
/// elementwise op it does not run) from a malformed one.
bool parseKernelKey(const std::string &kind, const std::string &dtype,
                    const std::string &signature, Kernel &out,
                    std::string &error, bool *unsupported = nullptr);

} // namespace bench

#endif // PERF_BENCH_KERNEL_H
