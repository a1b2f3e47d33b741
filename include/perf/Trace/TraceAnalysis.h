//===- TraceAnalysis.h - Per-iteration breakdown and replay -----*- C++ -*-===//
//
// Two analyses over a Kineto trace:
//  - the per-iteration breakdown of Figure 5 in Lin et al.: GPU active time
//    (the union of device busy intervals), idle time, and device time per
//    top-level op and per kernel kind;
//  - replay of the paper's Algorithm 1 on the trace's own ops: measured
//    kernel durations plus host overheads (from a table, or each op's own
//    measured values), generalized to several in-order streams and host
//    waits, predicting each iteration's time.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRACE_TRACEANALYSIS_H
#define PERF_TRACE_TRACEANALYSIS_H

#include "perf/Trace/HostOverheads.h"
#include "perf/Trace/KinetoTrace.h"
#include <map>
#include <string>
#include <vector>

namespace perf {
namespace trace {

struct IterationBreakdown {
  std::string name;
  double start = 0;
  /// Measured iteration time (the span's duration), us.
  double span = 0;
  /// Union of device busy intervals inside the span, us.
  double gpuActive = 0;
  double gpuIdle = 0;
  /// Sum of device event durations by top-level op name and by kernel kind
  /// (events starting inside the span; concurrent streams add up).
  std::map<std::string, double> deviceTimeByOp;
  std::map<std::string, double> deviceTimeByKind;
  unsigned topLevelOps = 0;
  unsigned deviceEvents = 0;
};

/// Breakdown of each window; one window covering the whole trace when
/// `windows` is empty.
std::vector<IterationBreakdown>
computeBreakdown(const KinetoTrace &trace, llvm::ArrayRef<StepSpan> windows);

/// The window covering all host and device events.
StepSpan wholeTraceSpan(const KinetoTrace &trace);

struct ReplayOptions {
  /// Overheads to replay with; null replays each op with its own measured
  /// T1-T5 (checks the replay itself rather than the table's means).
  const HostOverheadTable *table = nullptr;
  ProfilerOverheads profiler;
  /// Gap between two kernels on one stream (Algorithm 1, line 11), us.
  double inStreamGap = 1.0;
  /// Replay adjacent windows as one run: device work still queued when the
  /// host finishes an iteration delays the next one (kernels that spill
  /// into the next ProfilerStep), and an iteration followed by an adjacent
  /// one ends when its host work ends, as a ProfilerStep span does. Off,
  /// every window starts with idle streams and ends when both host and
  /// device are done.
  bool carryDeviceWork = false;
  /// With `table`: per-site medians that take precedence over the table's
  /// T1, T2, T3 and T5 (T4 stays per runtime function).
  const SiteOverheads *sites = nullptr;
  /// With `table`: a launch waits while this many device events are
  /// launched and not finished (the driver's launch queue; 0: unlimited).
  /// The own-overheads replay needs none: its T4 already holds the waits.
  unsigned launchQueueDepth = 0;
};

struct ReplayResult {
  std::string name;
  double measured = 0;
  double predicted = 0;
  /// Host (CPU) and device critical-path ends of the prediction.
  double predictedHost = 0;
  double predictedDevice = 0;
  /// Sum of the measured device event durations replayed ("kernel only").
  double kernelTime = 0;
  /// Where the prediction differs from the iteration, both sides over the
  /// same device events and from the iteration's start: when the host
  /// finished its last op, the union of the device's busy intervals, and
  /// the collectives' busy time no other device work overlaps.
  struct Parts {
    double hostEnd = 0;
    double gpuActive = 0;
    double exposedComm = 0;
  };
  Parts measuredParts, predictedParts;
  unsigned ops = 0;
  unsigned deviceEvents = 0;
  double relativeError() const {
    return measured > 0 ? (predicted - measured) / measured : 0;
  }
};

std::vector<ReplayResult> replayIterations(const KinetoTrace &trace,
                                           llvm::ArrayRef<StepSpan> windows,
                                           const ReplayOptions &options);

} // namespace trace
} // namespace perf

#endif // PERF_TRACE_TRACEANALYSIS_H
