//===- KinetoTraceFuzzer.cpp - Kineto (Chrome trace) JSON, read only ------===//

#include "FuzzSupport.h"
#include "perf/Trace/KinetoTrace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto trace = perf::trace::KinetoTrace::parse(
      perf::fuzz::text(data, size).str(), "fuzz.json");
  if (!trace)
    perf::fuzz::ignore(trace.takeError());
  return 0;
}
