//===- ChakraTraceFile.h - Chakra traces on disk ----------------*- C++ -*-===//

#ifndef PERF_COMM_CHAKRATRACEFILE_H
#define PERF_COMM_CHAKRATRACEFILE_H

#include "perf/Comm/ChakraTrace.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace perf {
namespace chakra {

/// Writes `trace` to `path` (ASTRA-sim names them <prefix>.<rank>.et).
llvm::Error writeTraceFile(const Trace &trace, llvm::StringRef path);
/// Reads a trace; errors name the file and the byte offset.
llvm::Expected<Trace> readTraceFile(llvm::StringRef path);

} // namespace chakra
} // namespace perf

#endif // PERF_COMM_CHAKRATRACEFILE_H
