//===- TraceImport.h - PyTorch traces to the perf dialect -------*- C++ -*-===//
//
// Builds one `perf.graph` from a PyTorch Execution Trace (data dependencies
// from tensor ids, kernels inferred from op names and shapes), optionally
// linked to a Kineto trace whose measured kernels (duration, device, stream)
// replace the inferred ones; or from a Kineto trace alone. Registered as
// perf-translate's `--import-pytorch-et` (with `--kineto=FILE`) and
// `--import-kineto`. docs/traces.md describes the mapping.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_IMPORT_TRACEIMPORT_H
#define PERF_IMPORT_TRACEIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBufferRef.h"
#include <string>

namespace perf {

struct TraceImportOptions {
  /// Kineto trace to link to the ET (empty: none).
  std::string kinetoPath;
  /// Which iteration of the Kineto trace to import (index into its
  /// ProfilerStep spans, or the --iteration-marker spans); -1 imports the
  /// whole trace. Only used when there is no ET.
  int64_t iteration = 0;
  /// Derive iterations from successive starts of host events with this
  /// name prefix (traces without ProfilerStep#N).
  std::string iterationMarker;
  /// Ranks of a collective whose group the trace does not give; 0 = 1.
  int64_t worldSize = 0;
  /// The GPU the Kineto trace ran on: a catalog name or a device JSON file
  /// (empty: the catalog GPU of its deviceProperties).
  std::string traceDevice;
};

/// Imports an Execution Trace (and the Kineto trace of options.kinetoPath).
mlir::OwningOpRef<mlir::ModuleOp>
importExecutionTrace(mlir::MLIRContext *context, llvm::StringRef etPath,
                     const TraceImportOptions &options);
/// The same from the bytes of the trace's file (.json or .json.gz; the
/// buffer's identifier names it), already in memory.
mlir::OwningOpRef<mlir::ModuleOp>
importExecutionTrace(mlir::MLIRContext *context, llvm::MemoryBufferRef file,
                     const TraceImportOptions &options);

/// Imports a Kineto trace alone.
mlir::OwningOpRef<mlir::ModuleOp>
importKinetoTrace(mlir::MLIRContext *context, llvm::StringRef kinetoPath,
                  const TraceImportOptions &options);
/// Imports a Kineto trace alone from the bytes of its file (.json or
/// .json.gz; the buffer's identifier names it), already in memory.
mlir::OwningOpRef<mlir::ModuleOp>
importKinetoTrace(mlir::MLIRContext *context, llvm::MemoryBufferRef file,
                  const TraceImportOptions &options);

/// Registers `--import-pytorch-et` and `--import-kineto` with their options
/// `--kineto`, `--iteration`, `--iteration-marker`, `--world-size`.
void registerTraceImportTranslations();

} // namespace perf

#endif // PERF_IMPORT_TRACEIMPORT_H
