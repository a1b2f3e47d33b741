//===- DType.h - Element types the cost models distinguish ------*- C++ -*-===//
//
// The element types that change a kernel's cost: its width in bytes and which
// peak FLOP/s figure of the GPU applies.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_DTYPE_H
#define PERF_SUPPORT_DTYPE_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace perf {

enum class DType { F64, F32, TF32, F16, BF16, F8, I64, I32, I8, Bool };

/// Bytes per element (TF32 is stored as 4 bytes).
unsigned dtypeBytes(DType type);

/// Canonical short name: "f32", "bf16", ...
llvm::StringRef dtypeName(DType type);

/// Parses short names ("f32", "fp16", "half", "bfloat16", "float", "int64",
/// "c10::Half", ...) as written by MLIR, ONNX, PyTorch and CSV files.
std::optional<DType> parseDType(llvm::StringRef name);

} // namespace perf

#endif // PERF_SUPPORT_DTYPE_H
