//===- perf-speed-inmemory.cpp - The library on an in-memory step ---------===//
//
// The C++ API path of bench/speed: builds the step gen_step.py writes (the
// same blocks, kernels and dependencies) directly as a perf::Schedule,
// prices every kernel with the roofline model and every all_reduce with the
// collective model, and runs the critical-path walk. No IR is parsed or
// built: this is what a compiler embedding the cost model pays per step.
//
//   perf-speed-inmemory N   prints the step time, kernel count and seconds
//
//===----------------------------------------------------------------------===//

#include "perf/Analysis/Schedule.h"
#include "perf/Comm/CollectiveModel.h"
#include "perf/Comm/SystemSpec.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/Support/GpuSpec.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstdlib>
#include <string>

using namespace perf;

namespace {

constexpr int64_t kRows = 4096, kCols = 1024;

/// Host overheads of bench/speed/baseline.py (us), so both walk the same
/// step with the same constants.
constexpr double kT1 = 6, kT3 = 3, kT4 = 5, kT5 = 4;

struct StepBuilder {
  Schedule schedule;
  const GpuSpec &gpu;
  RooflineModel roofline{0.7, 0.8};
  double allReduceUs = 0;

  /// Adds an op launching `kernel` (when set) on `stream`, waiting for the
  /// ops `deps`; returns the op's index.
  size_t addOp(const KernelDesc *kernel, int64_t stream,
               std::vector<size_t> deps) {
    ScheduledOp op;
    op.t1 = kT1;
    op.t3 = kT3;
    op.deps = std::move(deps);
    if (kernel) {
      ScheduledKernel k;
      k.stream = stream;
      k.launchUs = kT4;
      k.latencyUs = roofline.estimate(*kernel, gpu)->latencyUs;
      op.kernels.push_back(schedule.addKernel(std::move(k)));
    }
    return schedule.addOp(std::move(op));
  }

  size_t addAllReduce(size_t dep) {
    ScheduledOp op;
    op.t1 = kT1;
    op.t3 = kT3;
    op.deps = {dep};
    ScheduledKernel k;
    k.stream = 2;
    k.launchUs = kT4;
    k.latencyUs = allReduceUs;
    k.group = {0, 1};
    op.kernels.push_back(schedule.addKernel(std::move(k)));
    return schedule.addOp(std::move(op));
  }
};

} // namespace

int main(int argc, char **argv) {
  char *end = nullptr;
  long long n = argc == 2 ? std::strtoll(argv[1], &end, 10) : 0;
  if (argc != 2 || *end || n < 1) {
    llvm::errs() << "usage: perf-speed-inmemory N (kernels and collectives, "
                    "N >= 1)\n";
    return 2;
  }
  auto started = std::chrono::steady_clock::now();
  const GpuSpec *gpu = lookupGpu("A100");
  const SystemSpec *system = lookupSystemPreset("dgx-a100");
  if (!gpu || !system) {
    llvm::errs() << "error: the A100 or dgx-a100 preset is missing\n";
    return 1;
  }
  StepBuilder step{{}, *gpu};
  auto allReduce =
      estimateCollective(CollectiveKind::AllReduce, kRows * kCols * 4.0,
                         placeGroup({0, 1}, *system), *system);
  if (!allReduce) {
    llvm::errs() << "error: " << llvm::toString(allReduce.takeError()) << "\n";
    return 1;
  }
  step.allReduceUs = allReduce->timeUs;

  KernelDesc gemm;
  gemm.kind = KernelKind::Gemm;
  gemm.m = kRows, gemm.n = kCols, gemm.k = kCols;
  KernelDesc gelu;
  gelu.kind = KernelKind::Elementwise;
  gelu.numElements = kRows * kCols;
  gelu.op = "gelu";
  KernelDesc add = gelu;
  add.numInputs = 2;
  add.op = "add";
  KernelDesc layerNorm;
  layerNorm.kind = KernelKind::LayerNorm;
  layerNorm.rows = kRows, layerNorm.cols = kCols;
  KernelDesc softmax = layerNorm;
  softmax.kind = KernelKind::Softmax;

  // The blocks of gen_step.py, cut where n is reached.
  long long written = 0;
  size_t last = step.addOp(nullptr, 0, {});
  for (long long block = 0; written < n; ++block) {
    // The view launches nothing: its readers wait for what it reads, as the
    // critical-path pass forwards a kernel-less op's dependencies.
    size_t input = last;
    step.addOp(nullptr, 0, {});
    size_t gemm0 = 0, geluOp = 0;
    auto more = [&] { return written < n && ++written; };
    if (more())
      last = gemm0 = step.addOp(&gemm, 0, {input});
    if (more())
      last = geluOp = step.addOp(&gelu, 0, {gemm0});
    if (more())
      last = step.addOp(&gemm, 1, {input});
    if (more())
      last = step.addOp(&add, 0, {geluOp, last});
    if (more())
      last = step.addOp(&layerNorm, 0, {last});
    if (more())
      last = step.addOp(&softmax, 0, {last});
    if (block % 4 == 3 && more())
      step.addAllReduce(last);
  }
  ScheduledOp sync;
  sync.kind = ScheduledOp::Kind::Sync;
  sync.t1 = kT1;
  sync.t5 = kT5;
  step.schedule.addOp(std::move(sync));

  ScheduleResult result = step.schedule.run();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  llvm::outs() << llvm::format("step %.3f us, %zu kernels, %.3f s\n",
                               result.e2eUs, step.schedule.kernels().size(),
                               seconds);
  return 0;
}
