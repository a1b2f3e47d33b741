//===- FuzzSupport.h - What the fuzz targets share --------------*- C++ -*-===//
//
// Every target feeds one input to one reader and, where it accepts the
// input, to what consumes it next. A target may only return: libFuzzer
// with ASan and UBSan turns a crash, a sanitizer report, a hang past
// -timeout or memory past -rss_limit_mb into a finding.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_FUZZ_FUZZSUPPORT_H
#define PERF_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace perf::fuzz {

/// The input as text.
inline llvm::StringRef text(const uint8_t *data, size_t size) {
  return llvm::StringRef(reinterpret_cast<const char *>(data), size);
}

/// A folder of this process for the files a reader insists on opening by
/// path (created once, removed by the operating system's tmp cleaning).
const std::string &scratchDir();

/// Writes `bytes` to `name` in scratchDir() and returns its path.
std::string writeScratchFile(llvm::StringRef name, llvm::StringRef bytes);

/// An MLIR context with every dialect perf IR may hold, without threads,
/// whose diagnostics are dropped (a rejected input is no finding).
class QuietContext {
public:
  QuietContext();
  mlir::MLIRContext &get() { return context; }

private:
  mlir::MLIRContext context;
  mlir::ScopedDiagnosticHandler quiet;
};

/// Drops an expected error: rejecting the input is a correct answer.
inline void ignore(llvm::Error error) { llvm::consumeError(std::move(error)); }

/// Two readings of one input (whole and in slices) must agree on whether
/// it is accepted: aborts (a finding) when they do not, drops both errors
/// when both refuse. True when both read it, for the caller to compare.
template <typename T>
bool bothAccepted(llvm::Expected<T> &first, llvm::Expected<T> &second) {
  if (bool(first) != bool(second))
    std::abort();
  if (first)
    return true;
  ignore(first.takeError());
  ignore(second.takeError());
  return false;
}

} // namespace perf::fuzz

#endif // PERF_FUZZ_FUZZSUPPORT_H
