//===- Runner.h - The GPU side of perf-bench --------------------*- C++ -*-===//
//
// Implemented by the CUDA sources under cuda/ when the CUDA toolkit is found,
// and by lib/NoCuda.cpp otherwise, so perf-bench always builds and, without a
// GPU, still plans sweeps, imports models and exports CSV.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_RUNNER_H
#define PERF_BENCH_RUNNER_H

#include "bench/DeviceFile.h"
#include "bench/Kernel.h"

#include <string>
#include <vector>

namespace bench {

struct RunOptions {
  int device = 0;
  int warmup = 10;
  int reps = 50;
  /// Time kernels from CUPTI activity records where CUPTI is available.
  bool cupti = true;
};

struct DeviceInfo {
  std::string name; // cudaDeviceProp::name
  int ccMajor = 0, ccMinor = 0;
  /// SM and memory clocks as found when the run starts (no locking), MHz.
  double smClockMHz = 0, memClockMHz = 0, maxSmClockMHz = 0;
  std::string runtime; // "cuda 13.0"
};

struct Measurement {
  /// False: the kernel was not measured; `skipReason` says why (dtype not
  /// supported, out of memory, no applicable algorithm ...).
  bool ok = false;
  std::string skipReason;
  std::vector<double> samplesUs; // one per timed repetition
  std::string algo;              // winning library algorithm, or empty
  std::string kernelNames;       // CUPTI kernel symbols, ';'-joined
  std::string timing;            // "cupti" or "events"
};

/// Whether perf-bench was built with the CUDA benchmarks.
bool builtWithCuda();

/// Whether a CUDA device is usable; `why` says why not.
bool gpuAvailable(std::string &why);

/// Selects the device and starts the libraries (cuBLASLt, cuDNN, CUPTI).
bool gpuInit(const RunOptions &options, DeviceInfo &info, std::string &error);
void gpuShutdown();

/// Measures one kernel: warm-up, then `reps` timed repetitions.
Measurement measureKernel(const Kernel &kernel, const RunOptions &options);

/// Runs a hand-written kernel (embedding_bag fwd, reduce, softmax,
/// layernorm, transpose, elementwise) in f32 on random input of the kernel's
/// shape and compares with a host reference: the largest absolute difference
/// goes to `maxError`. For the GPU tests.
bool verifyKernel(const Kernel &kernel, double &maxError, std::string &error);

/// Measures achievable throughput and bandwidth of the device.
bool runProbe(const RunOptions &options, ProbeResult &out, std::string &error);

} // namespace bench

#endif // PERF_BENCH_RUNNER_H
