//===- ChakraTraceFuzzer.cpp - Chakra protobuf execution traces, read only ===//

#include "perf/Comm/ChakraTrace.h"
#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  perf::chakra::Trace trace;
  std::string error;
  (void)perf::chakra::decodeTrace(bytes, trace, error);
  return 0;
}
