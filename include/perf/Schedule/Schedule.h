//===- Schedule.h - Critical-path timing of one step ------------*- C++ -*-===//
//
// The MLIR-free engine behind --perf-critical-path. It generalizes
// Algorithm 1 of Lin et al. ("Building a Performance Model for Deep Learning
// Recommendation Model Training on GPUs") from one host thread and one stream
// to a host thread per device, in-order streams, cross-stream waits on data
// dependencies, host synchronization, and collectives that start when every
// participant's stream is ready. One pass over the ops: linear time.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SCHEDULE_SCHEDULE_H
#define PERF_SCHEDULE_SCHEDULE_H

#include "llvm/ADT/SmallVector.h"
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace perf {

/// Device work launched by a host op: a kernel, a copy or a collective.
struct ScheduledKernel {
  int64_t device = 0;
  int64_t stream = 0;
  double latencyUs = 0;
  /// T4: the runtime call that launches it, on the host.
  double launchUs = 0;
  /// Devices that take part when this is a collective (the launching device
  /// included); empty for a kernel.
  std::vector<int64_t> group;

  // Results.
  double startUs = 0;
  double endUs = 0;
  /// What its start waited for last.
  enum class Bound {
    Stream,
    Host,
    Dependency,
    Participants
  } boundBy = Bound::Host;
  /// Index (into Schedule::kernels()) of the kernel it waited for, or -1.
  int64_t predecessor = -1;
};

/// One host-side op in launch order.
struct ScheduledOp {
  enum class Kind { Compute, Sync };
  Kind kind = Kind::Compute;
  /// Host thread (one per device) that runs it.
  int64_t device = 0;
  /// T1, T2, T3, T5 of Lin et al. A Sync pays T1 before its wait and T5
  /// (the synchronizing call's own cost) after it.
  double t1 = 0, t2 = 0, t3 = 0, t5 = 0;
  /// Earlier ops whose device work must finish before this op's kernels
  /// start (data dependencies). Inline storage for the usual one or two: a
  /// step of a million ops makes no allocation per op.
  llvm::SmallVector<size_t, 2> deps;
  /// For Sync: the stream waited for, or -1 for every stream of `device`.
  int64_t syncStream = -1;
  /// Indices into Schedule::kernels(), in launch order.
  llvm::SmallVector<size_t, 2> kernels;

  // Results.
  double hostStartUs = 0;
  double hostEndUs = 0;
  /// When its last kernel ends (0 without kernels).
  double deviceEndUs = 0;
};

struct DeviceTimes {
  int64_t device = 0;
  /// Union of the intervals in which any stream of the device is busy.
  double activeUs = 0;
  /// When the device's last stream drains.
  double endUs = 0;
  /// When its host thread finishes.
  double hostEndUs = 0;
  /// Busy time of collectives on this device that no kernel overlaps.
  double exposedCommUs = 0;
};

struct ScheduleResult {
  double e2eUs = 0;
  /// Of the busiest device (for one GPU: the GPU).
  double gpuActiveUs = 0;
  double idleUs = 0;
  /// When the last host thread finishes.
  double hostUs = 0;
  /// Sum of all kernel latencies (the sequential lower bound when the
  /// overheads are zero).
  double sumKernelUs = 0;
  std::vector<DeviceTimes> devices;
  /// Kernels on the critical path, first to last.
  std::vector<size_t> criticalPath;
  /// True when the last event is a host thread, not a kernel.
  bool hostBound = false;
  /// Time of one step in a loop of ScheduleOptions::iterations back-to-back
  /// steps: the last step's end minus the one before. Every step's host
  /// thread starts where the previous one's stopped and its streams keep
  /// the work still queued, so a device-bound step stops paying the host's
  /// head start. Equals e2eUs for one iteration.
  double steadyStateUs = 0;
};

struct ScheduleOptions {
  /// Gap between back-to-back kernels on one stream (Algorithm 1: 1 us).
  double kernelGapUs = 1.0;
  /// Steps walked back to back for steadyStateUs (the other results are
  /// those of the first step).
  unsigned iterations = 1;
};

class Schedule {
public:
  /// Makes room for `ops` ops and `kernels` kernels, backed by huge pages
  /// where the system offers them (perf/Support/HugePages.h).
  void reserve(size_t ops, size_t kernels);
  /// Adds a kernel and returns its index.
  size_t addKernel(ScheduledKernel kernel);
  /// Adds an op (its kernels added first) and returns its index.
  size_t addOp(ScheduledOp op);

  /// Runs the critical-path walk, filling the result fields of every op and
  /// kernel.
  ScheduleResult run(const ScheduleOptions &options = {});

  std::vector<ScheduledKernel> &kernels() { return kernelList; }
  std::vector<ScheduledOp> &ops() { return opList; }
  const std::vector<ScheduledKernel> &kernels() const { return kernelList; }
  const std::vector<ScheduledOp> &ops() const { return opList; }

private:
  std::vector<ScheduledKernel> kernelList;
  std::vector<ScheduledOp> opList;
};

} // namespace perf

#endif // PERF_SCHEDULE_SCHEDULE_H
