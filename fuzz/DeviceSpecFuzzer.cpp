//===- DeviceSpecFuzzer.cpp - Device JSON (perf's and NeuSight's) ---------===//

#include "FuzzSupport.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/InputFile.h"
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto spec = perf::parseGpuSpecText(perf::fuzz::text(data, size), "fuzz.json");
  if (!spec) {
    perf::fuzz::ignore(spec.takeError());
    return 0;
  }
  // An accepted device prices a kernel as a finite, non-negative time.
  perf::KernelDesc gemm;
  gemm.kind = perf::KernelKind::Gemm;
  gemm.m = gemm.n = gemm.k = 1024;
  std::optional<perf::KernelCost> cost =
      perf::RooflineModel(0.7, 0.8).estimate(gemm, *spec);
  if (cost && !perf::isFiniteAtLeast(cost->latencyUs, 0))
    std::abort();
  return 0;
}
