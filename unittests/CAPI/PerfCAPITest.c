/* Compiled as C: the header must be usable from C. */
#include "perf-c/Perf.h"

double perfCTestGemmLatency(void) {
  PerfKernel kernel = {0};
  double latency = -1;
  kernel.kind = PerfKernelGemm;
  kernel.m = kernel.n = kernel.k = 1024;
  if (perfKernelLatencyUs(&kernel, "A100", "roofline", &latency, 0) != 0)
    return -1;
  return latency;
}
