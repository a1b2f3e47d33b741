//===- BenchSpecFuzzer.cpp - perf-bench sweep specs and kernel lists ------===//
//
// runtime/bench reads sweep specs and the kernel lists perf-opt writes (JSON
// through nlohmann's parser, then its own checks). The first byte picks which
// reader gets the rest.
//
//===----------------------------------------------------------------------===//

#include "bench/Spec.h"
#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
  std::string error;
  if (data[0] % 2 == 0) {
    bench::SweepSpec spec;
    (void)bench::parseSweepSpec(text, "fuzz.json", spec, error);
  } else {
    bench::KernelList list;
    (void)bench::parseKernelList(text, "fuzz.json", list, error);
  }
  return 0;
}
