// A compiler's question: fuse a ReLU epilogue into the GEMM before it, or
// launch it as its own kernel? Priced with perf's kernel cost models on the
// GPU named on the command line (default A100), the GEMM of a 4096-token
// batch through a 1024 x 4096 linear layer.
#include "perf/CostModel/KernelCostModel.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/Support/Error.h"
#include <cstdio>

int main(int argc, char **argv) {
  const char *gpuName = argc > 1 ? argv[1] : "A100";
  const perf::GpuSpec *gpu = perf::lookupGpu(gpuName);
  if (!gpu) {
    std::fprintf(stderr, "error: unknown GPU '%s'\n", gpuName);
    return 1;
  }
  auto stack = perf::createKernelCostStack("roofline", {});
  if (!stack) {
    std::fprintf(stderr, "error: %s\n",
                 llvm::toString(stack.takeError()).c_str());
    return 1;
  }
  perf::KernelDesc gemm;
  gemm.kind = perf::KernelKind::Gemm;
  gemm.m = 4096, gemm.n = 4096, gemm.k = 1024;
  perf::KernelDesc relu;
  relu.kind = perf::KernelKind::Elementwise;
  relu.numElements = gemm.m * gemm.n;
  relu.op = "relu";
  // Fused: the GEMM does one more operation per output, with no extra pass
  // over memory.
  perf::KernelDesc fused = gemm;
  fused.kind = perf::KernelKind::Generic;
  fused.flops = gemm.totalFlops() + double(relu.numElements);
  fused.bytes = gemm.totalBytes();

  double gemmUs = stack->estimate(gemm, *gpu).latencyUs;
  double reluUs = stack->estimate(relu, *gpu).latencyUs;
  double fusedUs = stack->estimate(fused, *gpu).latencyUs;
  std::printf("gpu %s\n", gpu->name.c_str());
  std::printf("gemm %.3f us, relu %.3f us, separate %.3f us, fused %.3f us\n",
              gemmUs, reluUs, gemmUs + reluUs, fusedUs);
  std::printf("decision: %s\n",
              fusedUs < gemmUs + reluUs ? "fuse" : "keep separate");
  return 0;
}
