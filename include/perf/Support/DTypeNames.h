//===- DTypeNames.h - How element types are spelt, dependency-free -*- C++
//-*-===//
//
// The one table of the names element types are written with (MLIR, ONNX,
// PyTorch traces, CSV files, sweep specs) and the canonical short name each
// stands for. It uses the C++ standard library only, so perf-bench (built
// without LLVM) reads dtypes exactly as lib/ does; perf::parseDType maps the
// canonical name to its DType.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_DTYPENAMES_H
#define PERF_SUPPORT_DTYPENAMES_H

#include <cctype>
#include <string>
#include <string_view>

namespace perf {

struct DTypeSpelling {
  std::string_view spelling;
  std::string_view canonical;
};

inline constexpr DTypeSpelling kDTypeSpellings[] = {
    {"f64", "f64"},
    {"fp64", "f64"},
    {"double", "f64"},
    {"float64", "f64"},
    {"f32", "f32"},
    {"fp32", "f32"},
    {"float", "f32"},
    {"float32", "f32"},
    {"tf32", "tf32"},
    {"tensorfloat32", "tf32"},
    {"f16", "f16"},
    {"fp16", "f16"},
    {"half", "f16"},
    {"float16", "f16"},
    {"bf16", "bf16"},
    {"bfloat16", "bf16"},
    {"f8", "f8"},
    {"fp8", "f8"},
    {"f8e4m3fn", "f8"},
    {"f8e5m2", "f8"},
    {"float8_e4m3fn", "f8"},
    {"i64", "i64"},
    {"int64", "i64"},
    {"long", "i64"},
    {"si64", "i64"},
    {"ui64", "i64"},
    {"i32", "i32"},
    {"int32", "i32"},
    {"int", "i32"},
    {"si32", "i32"},
    {"ui32", "i32"},
    {"i8", "i8"},
    {"int8", "i8"},
    {"si8", "i8"},
    {"ui8", "i8"},
    {"uint8", "i8"},
    {"byte", "i8"},
    {"char", "i8"},
    {"i1", "i1"},
    {"bool", "i1"},
};

/// The canonical short name ("f32", "bf16", "i1", ...) of `name`, read
/// without regard to case, surrounding spaces or a "c10::" / "torch."
/// prefix ("FP16", "c10::Half", "torch.bfloat16"); empty when it names no
/// element type.
inline std::string_view canonicalDTypeName(std::string_view name) {
  while (!name.empty() &&
         std::isspace(static_cast<unsigned char>(name.front())))
    name.remove_prefix(1);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
    name.remove_suffix(1);
  std::string lower;
  lower.reserve(name.size());
  for (char c : name)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view s(lower);
  for (std::string_view prefix : {"c10::", "torch."})
    if (s.substr(0, prefix.size()) == prefix)
      s.remove_prefix(prefix.size());
  for (const DTypeSpelling &entry : kDTypeSpellings)
    if (entry.spelling == s)
      return entry.canonical;
  return {};
}

} // namespace perf

#endif // PERF_SUPPORT_DTYPENAMES_H
