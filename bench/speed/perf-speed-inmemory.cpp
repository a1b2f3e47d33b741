//===- perf-speed-inmemory.cpp - The library on an in-memory step ---------===//
//
// The C++ API path of bench/speed: builds the step gen_step.py writes (the
// same blocks, kernels and dependencies) directly as a perf::Schedule,
// prices every kernel with the roofline model and every all_reduce with the
// collective model, and runs the critical-path walk. No IR is parsed or
// built: this is what a compiler embedding the cost model pays per step.
// The heap is set as perf-opt sets it (perf::tuneHeapForLargeGraphs), so the
// two compare like for like.
//
//   perf-speed-inmemory N   prints the step time, kernel count and seconds
//
//===----------------------------------------------------------------------===//

#include "perf/Comm/CollectiveModel.h"
#include "perf/Comm/SystemSpec.h"
#include "perf/CostModel/RooflineModel.h"
#include "perf/Schedule/Schedule.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Support/HugePages.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstdlib>
#include <optional>
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
  /// Every op's host costs (the baseline's constants): one spec.
  uint32_t hostOp = schedule.addOpSpec(hostCosts());

  static OpSpec hostCosts() {
    OpSpec op;
    op.t1 = kT1;
    op.t3 = kT3;
    return op;
  }

  /// `kernel` on `stream` of device 0, priced by the roofline once and kept
  /// as a spec for every launch of it.
  uint32_t price(const KernelDesc &kernel, int64_t stream) {
    KernelSpec k;
    k.stream = stream;
    k.latencyUs = roofline.estimate(kernel, gpu)->latencyUs;
    k.launchUs = kT4;
    return schedule.addKernelSpec(std::move(k));
  }

  /// Adds an op waiting for the ops `deps` that launches the kernel spec
  /// `work` (none: a host op without device work); returns the op's index.
  uint32_t addOp(llvm::ArrayRef<uint32_t> deps,
                 std::optional<uint32_t> work = std::nullopt) {
    if (work)
      schedule.addKernel(*work);
    return static_cast<uint32_t>(schedule.addOp(hostOp, deps));
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
  perf::tuneHeapForLargeGraphs();
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
  KernelSpec allReduceWork;
  allReduceWork.stream = 2;
  allReduceWork.latencyUs = allReduce->timeUs;
  allReduceWork.launchUs = kT4;
  allReduceWork.group = {0, 1};
  uint32_t allReduceSpec = step.schedule.addKernelSpec(allReduceWork);

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

  uint32_t gemm0Spec = step.price(gemm, 0), gemm1Spec = step.price(gemm, 1),
           geluSpec = step.price(gelu, 0), addSpec = step.price(add, 0),
           layerNormSpec = step.price(layerNorm, 0),
           softmaxSpec = step.price(softmax, 0);

  // The blocks of gen_step.py, cut where n is reached.
  long long written = 0;
  uint32_t last = step.addOp({});
  for (long long block = 0; written < n; ++block) {
    // The view launches nothing: its readers wait for what it reads, as the
    // critical-path pass forwards a kernel-less op's dependencies.
    uint32_t input = last;
    step.addOp({});
    uint32_t gemm0 = 0, geluOp = 0;
    auto more = [&] { return written < n && ++written; };
    if (more())
      last = gemm0 = step.addOp({input}, gemm0Spec);
    if (more())
      last = geluOp = step.addOp({gemm0}, geluSpec);
    if (more())
      last = step.addOp({input}, gemm1Spec);
    if (more())
      last = step.addOp({geluOp, last}, addSpec);
    if (more())
      last = step.addOp({last}, layerNormSpec);
    if (more())
      last = step.addOp({last}, softmaxSpec);
    if (block % 4 == 3 && more())
      step.addOp({last}, allReduceSpec);
  }
  OpSpec sync;
  sync.kind = OpSpec::Kind::Sync;
  sync.t1 = kT1;
  sync.t5 = kT5;
  step.schedule.addOp(sync);

  // The step time is all it reports: no per-op times kept.
  ScheduleOptions options;
  options.opTimes = false;
  ScheduleResult result = step.schedule.run(options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  llvm::outs() << llvm::format("step %.3f us, %zu kernels, %.3f s\n",
                               result.e2eUs, step.schedule.kernels().size(),
                               seconds);
  return 0;
}
