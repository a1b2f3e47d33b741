//===- TraceFile.h - Trace JSON values -------------------------*- C++ -*-===//
//
// Traces arrive as plain or gzip-compressed JSON, read like every other input
// by perf/Support/InputFile.h (within the limits); what is particular to
// trace JSON is here.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRACE_TRACEFILE_H
#define PERF_TRACE_TRACEFILE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>

namespace perf {
namespace trace {

/// `value` rounded toward zero, saturated to the int64 range (a double past
/// it, read from a damaged trace, has no int64: casting it is undefined);
/// NaN gives 0.
int64_t saturatingInt64(double value);

/// A JSON number or numeric string ("25738", "stream 7") as an integer: the
/// trailing run of digits; `fallback` when there is none.
int64_t asLooseInteger(const llvm::json::Value *value, int64_t fallback);

/// The trailing run of digits of `text` ("stream 7" is 7) as an integer;
/// `fallback` when there is none.
int64_t looseIntegerOfString(llvm::StringRef text, int64_t fallback);

} // namespace trace
} // namespace perf

#endif // PERF_TRACE_TRACEFILE_H
