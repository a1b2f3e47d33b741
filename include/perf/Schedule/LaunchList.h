//===- LaunchList.h - A scheduled step as the launches to replay -*- C++
//-*-===//
//
// Writes a graph's schedule as the sequence of launches a harness replays on
// a GPU to measure the step: every kernel with its database key (the key of
// the kernel list and the perf database, so perf-bench can rebuild it), its
// device and stream, the launches on other streams it must wait for, the
// collectives and host synchronizations, in the order the host issues them,
// with the time perf predicted for each. docs/estimate.md, "Launch lists".
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SCHEDULE_LAUNCHLIST_H
#define PERF_SCHEDULE_LAUNCHLIST_H

#include "perf/Schedule/Schedule.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace perf {

/// What the schedule does not know about a kernel: what it is.
struct LaunchKernel {
  /// Kernel kind (gemm, softmax, ...) or collective (all_reduce, ...).
  std::string kind;
  std::string dtype;
  /// The database signature of a kernel (docs/perf-db.md); empty for a
  /// collective.
  std::string signature;
  /// A collective's bytes per device.
  int64_t bytes = 0;
};

/// Names for one scheduled graph: ops and kernels in Schedule order.
struct LaunchGraph {
  std::string name;
  /// GPU the graph targets.
  std::string device;
  std::vector<std::string> opNames;
  std::vector<LaunchKernel> kernels;
};

/// The launches of `schedule` (already run, for the predicted times):
/// {"name", "device", "predicted_us", "launches": [...]} where a launch is
/// {"type": "kernel" | "collective" | "sync", "op", "name", "device",
/// "stream", ...}. A kernel's "after" lists the launches on other streams it
/// waits for (the last launch of each producing op on each of its streams;
/// launches on its own stream run in order).
llvm::json::Object launchListGraph(const Schedule &schedule,
                                   const ScheduleResult &result,
                                   const LaunchGraph &graph);

/// {"schema": "perf.launch_list/1", "graphs": [...]}, one launch per line.
void printLaunchList(llvm::raw_ostream &os, llvm::json::Array graphs);

} // namespace perf

#endif // PERF_SCHEDULE_LAUNCHLIST_H
