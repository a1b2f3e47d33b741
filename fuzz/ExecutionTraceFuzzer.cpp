//===- ExecutionTraceFuzzer.cpp - PyTorch execution trace JSON, read only -===//
//
// Read twice: its nodes in one slice, and with every node a slice of its
// own. The two readings must agree (both refuse the text, or read the same
// nodes), so a cut in the wrong place is a finding, not only a crash.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "perf/Trace/ExecutionTrace.h"
#include <cstdlib>

using perf::trace::ExecutionTrace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text = perf::fuzz::text(data, size);
  auto whole = ExecutionTrace::parseText(text, "fuzz.json");
  auto sliced = ExecutionTrace::parseText(text, "fuzz.json", 1);
  if (!perf::fuzz::bothAccepted(whole, sliced))
    return 0;
  if (whole->nodes().size() != sliced->nodes().size() ||
      whole->topLevelOps() != sliced->topLevelOps() ||
      whole->schema() != sliced->schema())
    std::abort();
  return 0;
}
