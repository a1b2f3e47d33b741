//===- DType.cpp ----------------------------------------------------------===//

#include "perf/Support/DType.h"
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
  std::string lower = name.trim().lower();
  llvm::StringRef s(lower);
  s.consume_front("c10::");
  s.consume_front("torch.");
  return llvm::StringSwitch<std::optional<DType>>(s)
      .Cases({"f64", "fp64", "double", "float64"}, DType::F64)
      .Cases({"f32", "fp32", "float", "float32"}, DType::F32)
      .Cases({"tf32", "tensorfloat32"}, DType::TF32)
      .Cases({"f16", "fp16", "half", "float16"}, DType::F16)
      .Cases({"bf16", "bfloat16"}, DType::BF16)
      .Cases({"f8", "fp8", "f8e4m3fn", "f8e5m2", "float8_e4m3fn"}, DType::F8)
      .Cases({"i64", "int64", "long", "si64", "ui64"}, DType::I64)
      .Cases({"i32", "int32", "int", "si32", "ui32"}, DType::I32)
      .Cases({"i8", "int8", "si8", "ui8", "uint8", "byte", "char"}, DType::I8)
      .Cases({"i1", "bool"}, DType::Bool)
      .Default(std::nullopt);
}
