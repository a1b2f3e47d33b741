//===- GraphTextReader.h - Reads perf graphs written as text ----*- C++ -*-===//
//
// MLIR's text parser takes about ten microseconds per op of a perf graph
// (lexing every token, a location, an SSA name, a function type and each
// attribute dictionary uniqued anew), so a million-kernel step written out
// takes longer to read than to estimate many times over. Most of those
// tokens repeat: a step launches a handful of distinct kernels on ops of a
// handful of shapes. This reader scans the form perf's printer writes for
// graphs, hands each distinct type, attribute dictionary and work list to
// MLIR's parser once, and builds every op as MLIR's parser would, with the
// same source locations, so the module is the one MLIR's parser builds.
//
// It reads only that form: a module of `perf.graph`s holding `perf.op` and
// `perf.sync` in their custom syntax. On anything else, and on anything
// wrong (a name not defined, a type that does not parse, a graph that does
// not verify), it builds nothing and emits nothing, and the caller parses
// the text with MLIR's parser, which reports the error.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_DIALECT_GRAPHTEXTREADER_H
#define PERF_DIALECT_GRAPHTEXTREADER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace perf {

/// The verified module of the main buffer of `sourceMgr` (text), or null
/// when the text is not in the form this reader reads or is not valid;
/// then nothing was emitted and `mlir::parseSourceFile` gives the answer.
mlir::OwningOpRef<mlir::ModuleOp>
readGraphText(const llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context);

/// Parses the main buffer of `sourceMgr` (text or bytecode) and verifies
/// it: through readGraphText when it can, else with MLIR's parser, which
/// reports any error.
mlir::OwningOpRef<mlir::ModuleOp>
parseGraphText(const llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context);

/// The same for `text`, named `bufferName` in locations (as
/// mlir::parseSourceString names it).
mlir::OwningOpRef<mlir::ModuleOp> parseGraphText(llvm::StringRef text,
                                                 llvm::StringRef bufferName,
                                                 mlir::MLIRContext *context);

} // namespace perf

#endif // PERF_DIALECT_GRAPHTEXTREADER_H
