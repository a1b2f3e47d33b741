//===- NoCuda.cpp - The GPU side when perf-bench is built without CUDA ----===//

#include "bench/Runner.h"

using namespace bench;

bool bench::builtWithCuda() { return false; }

bool bench::gpuAvailable(std::string &why) {
  why = "perf-bench was built without CUDA (no nvcc found at configure time)";
  return false;
}

bool bench::gpuInit(const RunOptions &, DeviceInfo &, std::string &error) {
  gpuAvailable(error);
  return false;
}

void bench::gpuShutdown() {}

Measurement bench::measureKernel(const Kernel &, const RunOptions &) {
  Measurement m;
  gpuAvailable(m.skipReason);
  return m;
}

bool bench::runProbe(const RunOptions &, ProbeResult &, std::string &error) {
  gpuAvailable(error);
  return false;
}

bool bench::verifyKernel(const Kernel &, double &, std::string &error) {
  gpuAvailable(error);
  return false;
}

GraphRun bench::runGraph(const GraphPlan &, const RunOptions &) {
  GraphRun run;
  gpuAvailable(run.error);
  return run;
}
