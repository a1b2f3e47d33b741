//===- ModelConfigImport.h - perf-translate --import-model-config -*- C++ -*-===//

#ifndef PERF_IMPORT_MODELCONFIGIMPORT_H
#define PERF_IMPORT_MODELCONFIGIMPORT_H

#include "perf/Import/ModelConfig.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace perf {

/// The step of the HuggingFace config `text` (read from `path`): a forward
/// graph, and for training its backward (and optimizer step, if asked).
/// Errors are emitted on the context and give null.
mlir::OwningOpRef<mlir::ModuleOp>
importModelConfig(mlir::MLIRContext *context, llvm::StringRef text,
                  llvm::StringRef path, const StepOptions &options);

/// Registers --import-model-config with its --batch, --seq, --phase,
/// --dtype, --attention, --head and --optimizer options.
void registerModelConfigImportTranslation();

} // namespace perf

#endif // PERF_IMPORT_MODELCONFIGIMPORT_H
