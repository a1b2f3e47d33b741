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
#include "bench/Spec.h"

#include <string>
#include <vector>

namespace bench {

struct RunOptions {
  int device = 0;
  int warmup = 10;
  int reps = 50;
  /// Time kernels from CUPTI activity records where CUPTI is available.
  bool cupti = true;
  /// In a replayed step, run each convolution with the fastest of cuDNN's
  /// algorithms (timed first, as frameworks with cudnn.benchmark do and as
  /// the database's conv2d rows are measured) rather than cuDNN's heuristic
  /// choice (a framework without autotuning).
  bool replayFastestConv = false;
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

/// A step replayed on the GPU: every kernel of a launch list on its stream,
/// in order, waiting where the list says.
struct GraphRun {
  /// False: the step was not run; `error` says why.
  bool ok = false;
  std::string error;
  /// The whole step, first launch to last, one per timed repetition.
  std::vector<double> samplesUs;
  uint64_t kernelsRun = 0;
  /// Launches not run, by reason (the plan's, and the distinct kernels whose
  /// setup failed: out of memory, no algorithm ...).
  std::map<std::string, uint64_t> notRun;
  /// The host's side of the timed repetitions: how long issuing one
  /// repetition's launches took (one per repetition), and each launch's
  /// host time (its waits, the library or kernel call and its event) by
  /// kernel kind. A step perf prices with these as its host overheads is
  /// priced as the replay ran it, with no framework between the launches.
  std::vector<double> issueUs;
  std::map<std::string, std::vector<double>> launchHostUs;
};

/// Builds every distinct kernel of `plan` once (its buffers and library
/// descriptors kept for the whole run), then runs the launches in order
/// (options.warmup untimed, options.reps timed), each on its stream, waiting
/// for the launches its `after` names and at the syncs. Times the step with
/// CUDA events from a start every stream waits for to the last stream's
/// end: the device's time for the step, without the host's overheads.
GraphRun runGraph(const GraphPlan &plan, const RunOptions &options);

/// The runs of a launch list's graphs as JSON, {"schema": "perf.graph_run/1",
/// "device", "source", "graphs": [{"name", "target", "predicted_us",
/// "measured_us" (the median), "error" (measured / predicted - 1),
/// "samples_us", "launches", "kernels_run", "not_run": {reason: count},
/// "host": {"issue_us" (the median), "launch_us": {kind: {"launches" (per
/// repetition), "median", "mean", "p90"}}}} or,
/// for a graph that did not run, {"name", "error_text"}]}.
std::string graphRunJson(const std::vector<GraphPlan> &plans,
                         const std::vector<GraphRun> &runs,
                         const std::string &device, const std::string &source);

/// Runs a hand-written kernel (embedding_bag fwd, reduce, softmax,
/// layernorm, transpose, elementwise) in f32 on random input of the kernel's
/// shape and compares with a host reference: the largest absolute difference
/// goes to `maxError`. For the GPU tests.
bool verifyKernel(const Kernel &kernel, double &maxError, std::string &error);

/// Measures achievable throughput and bandwidth of the device.
bool runProbe(const RunOptions &options, ProbeResult &out, std::string &error);

} // namespace bench

#endif // PERF_BENCH_RUNNER_H
