//===- BoosterFuzzer.cpp - XGBoost model files of a model folder ----------===//
//
// The input is a model folder's elementwise booster. What the loader accepts
// XGBoost reads and predicts with; the price must be finite.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "perf/CostModel/MlModel.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/InputFile.h"
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  perf::fuzz::writeScratchFile("elementwise.json",
                               perf::fuzz::text(data, size));
  auto model = perf::MlModel::load(perf::fuzz::scratchDir());
  if (!model) {
    perf::fuzz::ignore(model.takeError());
    return 0;
  }
  perf::KernelDesc kernel;
  kernel.kind = perf::KernelKind::Elementwise;
  for (int64_t elements : {int64_t(1), int64_t(1) << 20, int64_t(1) << 40}) {
    kernel.numElements = elements;
    std::optional<perf::KernelCost> cost =
        (*model)->estimate(kernel, *perf::lookupGpu("A100"));
    if (cost && !perf::isFiniteAtLeast(cost->latencyUs, 0))
      std::abort();
  }
  return 0;
}
