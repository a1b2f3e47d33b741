//===- ImportTranslation.h - perf-translate's importers ---------*- C++ -*-===//
//
// Every importer of perf-translate (ONNX, traces, model configs, fx CSVs)
// registers through here, so they all write their step the same way: as
// perf IR text, or with --emit-bytecode as MLIR bytecode, which perf-opt
// reads about twice as fast (docs/performance.md).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_IMPORT_IMPORTTRANSLATION_H
#define PERF_IMPORT_IMPORTTRANSLATION_H

#include "mlir/Tools/mlir-translate/Translation.h"

namespace perf {

/// Registers the translation `name`: `import` builds the module (the perf
/// dialect is loaded for it), which is verified and written out. The first
/// call registers --emit-bytecode.
void registerImportTranslation(llvm::StringRef name,
                               llvm::StringRef description,
                               mlir::TranslateSourceMgrToMLIRFunction import);

} // namespace perf

#endif // PERF_IMPORT_IMPORTTRANSLATION_H
