//===- Timeline.h - A computed schedule as a Chrome trace -------*- C++ -*-===//
//
// Renders the result of Schedule::run as Chrome Trace Event JSON, the format
// Perfetto, chrome://tracing and HTA read, so a predicted step can be looked
// at like a measured one: a process per device, a track for its host thread
// and one per stream, a slice per host op (with its T1, T2, T4 launches, T3
// and T5 as nested slices) and per kernel, flow arrows from each launch to
// its kernel and from the kernel a start waited for on another stream or
// device, and each collective on every participant.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SCHEDULE_TIMELINE_H
#define PERF_SCHEDULE_TIMELINE_H

#include "perf/Schedule/Schedule.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace perf {

/// What the schedule does not know about a kernel: its name and the figures
/// the slice shows (slice arguments).
struct TimelineKernel {
  std::string name;
  /// Kernel kind (gemm, softmax, ...) or collective (all_reduce, ...).
  std::string kind;
  /// The model that priced it (roofline, ml, measured, nccl, ...).
  std::string model;
  double flops = 0;
  double bytes = 0;
  /// Where and how long the kernel ran on hardware (an imported trace),
  /// shown beside the prediction on a "measured" track; a negative start
  /// when unknown. The latency differs from the schedule's once the kernel
  /// is moved to another GPU.
  double measuredStartUs = -1;
  double measuredLatencyUs = 0;
};

/// Names for one scheduled graph: ops and kernels in Schedule order.
struct TimelineGraph {
  std::string name;
  /// GPU the graph targets, for the process names.
  std::string device;
  std::vector<std::string> opNames;
  std::vector<TimelineKernel> kernels;
};

/// Appends the trace events of `schedule` (already run) to `events`. Process
/// ids are `pidBase + device`, so several graphs can share one trace; thread
/// 0 of a process is its host thread, thread 1 + s its stream s, and thread
/// kMeasuredTrackBase + s the measured times of stream s. Flow ids continue
/// from `nextFlowId`, which is advanced.
void appendTimelineEvents(const Schedule &schedule, const TimelineGraph &graph,
                          int64_t pidBase, int64_t &nextFlowId,
                          llvm::json::Array &events);

/// Prints the trace document, {"otherData": {"schema": "perf.timeline/1"},
/// "displayTimeUnit": "ms", "traceEvents": [...]}, one event per line (so
/// the file greps and diffs).
void printTimeline(llvm::raw_ostream &os, const llvm::json::Array &events);

/// Thread id of the first measured-times track.
inline constexpr int64_t kMeasuredTrackBase = 1000;

} // namespace perf

#endif // PERF_SCHEDULE_TIMELINE_H
