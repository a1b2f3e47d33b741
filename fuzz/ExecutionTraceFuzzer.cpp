//===- ExecutionTraceFuzzer.cpp - PyTorch execution trace JSON, read only -===//

#include "FuzzSupport.h"
#include "perf/Support/InputFile.h"
#include "perf/Trace/ExecutionTrace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto json = perf::parseJsonInput(perf::fuzz::text(data, size), "fuzz.json");
  if (!json) {
    perf::fuzz::ignore(json.takeError());
    return 0;
  }
  auto trace = perf::trace::ExecutionTrace::parse(*json, "fuzz.json");
  if (!trace)
    perf::fuzz::ignore(trace.takeError());
  return 0;
}
