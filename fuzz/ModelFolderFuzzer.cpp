//===- ModelFolderFuzzer.cpp - The JSON files of a model folder -----------===//
//
// The first byte picks which file of a model folder the rest is: coverage,
// launch, tile, roofline (calibrated) or selection. The folder also holds a
// small valid booster, so the whole 'auto' stack is built from it and
// prices kernels: what it accepts must give finite, non-negative times.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "TinyBooster.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/InputFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <cstdlib>

static const char *const kFiles[] = {"coverage.json", "launch.json",
                                     "tile.json", "roofline.json",
                                     "selection.json"};

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  perf::fuzz::writeScratchFile("elementwise.json", perf::test::kTinyBooster);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const char *file = kFiles[data[0] % std::size(kFiles)];
  for (const char *other : kFiles) {
    llvm::SmallString<128> path(perf::fuzz::scratchDir());
    llvm::sys::path::append(path, other);
    llvm::sys::fs::remove(path);
  }
  perf::fuzz::writeScratchFile(file, perf::fuzz::text(data + 1, size - 1));

  perf::CostModelOptions options;
  options.mlModelDir = perf::fuzz::scratchDir();
  auto stack = perf::createKernelCostStack(perf::kAutoModelStack, options);
  if (!stack) {
    perf::fuzz::ignore(stack.takeError());
    return 0;
  }
  perf::KernelDesc elementwise;
  elementwise.kind = perf::KernelKind::Elementwise;
  elementwise.numElements = 1 << 20;
  perf::KernelDesc gemm;
  gemm.kind = perf::KernelKind::Gemm;
  gemm.m = gemm.n = gemm.k = 512;
  for (const char *gpu : {"T4", "H100"})
    for (const perf::KernelDesc &kernel : {elementwise, gemm})
      if (!perf::isFiniteAtLeast(
              stack->estimate(kernel, *perf::lookupGpu(gpu)).latencyUs, 0))
        std::abort();
  return 0;
}
