//===- OnnxImport.h - ONNX model to perf dialect ----------------*- C++ -*-===//
//
// Builds one `perf.graph` from an ONNX model: a `perf.op "onnx::<OpType>"`
// per node (weights and constant folding omitted), holding the kernels of
// OnnxKernels.h. Registered as perf-translate's `--import-onnx`.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_IMPORT_ONNXIMPORT_H
#define PERF_IMPORT_ONNXIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "perf/Import/OnnxKernels.h"

namespace perf {

struct OnnxImportOptions {
  /// Batch size to re-infer shapes with; 0 keeps the model's.
  int64_t batchSize = 0;
  /// Sequence length (dim 1 of the inputs) to re-infer shapes with; 0 keeps
  /// the model's.
  int64_t sequenceLength = 0;
  /// Fail instead of warning when some op has no lowering.
  bool strict = false;
};

/// Builds the module for an already loaded and lowered model. Ops without a
/// lowering become kernel-less `perf.op`s marked `onnx.unsupported` and are
/// listed in a warning (an error when `options.strict`).
mlir::OwningOpRef<mlir::ModuleOp>
buildPerfModuleFromOnnx(mlir::MLIRContext *context, const OnnxModel &model,
                        const OnnxLowering &lowering,
                        const OnnxImportOptions &options = {});

/// Loads `path` and builds its module; errors are reported as diagnostics.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxFile(mlir::MLIRContext *context, llvm::StringRef path,
               const OnnxImportOptions &options = {});

/// Registers `--import-onnx` (with `--onnx-batch`, `--onnx-seq` and
/// `--onnx-strict`).
void registerOnnxImportTranslation();

} // namespace perf

#endif // PERF_IMPORT_ONNXIMPORT_H
