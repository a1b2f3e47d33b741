//===- KinetoTraceFuzzer.cpp - Kineto (Chrome trace) JSON, read only ------===//
//
// Read twice: in one slice, and with every event a slice of its own. The
// two readings must agree (both refuse the text, or read the same trace),
// so a cut in the wrong place (inside a string, at a nested comma) is a
// finding, not only a crash.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "perf/Trace/KinetoTrace.h"
#include <cstdlib>

using perf::trace::KinetoTrace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text = perf::fuzz::text(data, size);
  auto whole = KinetoTrace::parse(text, "fuzz.json");
  auto sliced = KinetoTrace::parse(text, "fuzz.json", 1);
  if (!perf::fuzz::bothAccepted(whole, sliced))
    return 0;
  if (whole->ops().size() != sliced->ops().size() ||
      whole->runtimeCalls().size() != sliced->runtimeCalls().size() ||
      whole->deviceEvents().size() != sliced->deviceEvents().size() ||
      whole->steps().size() != sliced->steps().size() ||
      whole->gpuName() != sliced->gpuName())
    std::abort();
  return 0;
}
