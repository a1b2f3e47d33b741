//===- DType.cpp ----------------------------------------------------------===//

#include "perf/Support/DType.h"
#include "perf/Support/DTypeNames.h"
#include "llvm/ADT/StringSwitch.h"

using namespace perf;

unsigned perf::dtypeBytes(DType type) {
  switch (type) {
  case DType::F64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::TF32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F8:
  case DType::I8:
  case DType::Bool:
    return 1;
  }
  return 4;
}

llvm::StringRef perf::dtypeName(DType type) {
  switch (type) {
  case DType::F64:
    return "f64";
  case DType::F32:
    return "f32";
  case DType::TF32:
    return "tf32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F8:
    return "f8";
  case DType::I64:
    return "i64";
  case DType::I32:
    return "i32";
  case DType::I8:
    return "i8";
  case DType::Bool:
    return "i1";
  }
  return "f32";
}

std::optional<DType> perf::parseDType(llvm::StringRef name) {
  std::string_view canonical = canonicalDTypeName(name);
  return llvm::StringSwitch<std::optional<DType>>(
             llvm::StringRef(canonical.data(), canonical.size()))
      .Case("f64", DType::F64)
      .Case("f32", DType::F32)
      .Case("tf32", DType::TF32)
      .Case("f16", DType::F16)
      .Case("bf16", DType::BF16)
      .Case("f8", DType::F8)
      .Case("i64", DType::I64)
      .Case("i32", DType::I32)
      .Case("i8", DType::I8)
      .Case("i1", DType::Bool)
      .Default(std::nullopt);
}
