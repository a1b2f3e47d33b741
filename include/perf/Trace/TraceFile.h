//===- TraceFile.h - Reading (gzipped) JSON trace files ---------*- C++ -*-===//
//
// Traces arrive as plain or gzip-compressed JSON; both go through one reader
// so every tool accepts `trace.json` and `trace.json.gz` alike.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRACE_TRACEFILE_H
#define PERF_TRACE_TRACEFILE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>

namespace perf {
namespace trace {

/// Reads the whole file, inflating it when it starts with the gzip magic.
llvm::Expected<std::string> readMaybeGzipped(llvm::StringRef path);

/// `bytes` (read from `path`, which errors name), inflated when they start
/// with the gzip magic.
llvm::Expected<std::string> inflateIfGzipped(llvm::StringRef bytes,
                                             llvm::StringRef path);

/// Reads and parses a JSON file. The error names the file and, for a parse
/// error, the line and column llvm::json reports (a truncated file fails
/// here).
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef path);

/// A JSON number or numeric string ("25738", "stream 7") as an integer: the
/// trailing run of digits; `fallback` when there is none.
int64_t asLooseInteger(const llvm::json::Value *value, int64_t fallback);

} // namespace trace
} // namespace perf

#endif // PERF_TRACE_TRACEFILE_H
