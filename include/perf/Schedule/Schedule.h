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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace perf {

/// What a piece of device work is and where it runs: a kernel, a copy or a
/// collective, the same for every launch of it. A step launches a few
/// distinct pieces millions of times, so the schedule keeps each spec once
/// (Schedule::addKernelSpec) and a launch names its spec.
struct KernelSpec {
  /// Within kMaxDevices (perf/Support/Limits.h).
  int32_t device = 0;
  /// A copy from or to pageable memory: it runs inside its launch call,
  /// which returns when it is done, so it starts half-way through the part
  /// of the call it does not cover (launchUs - latencyUs), not through the
  /// whole call.
  bool copyInCall = false;
  int64_t stream = 0;
  double latencyUs = 0;
  /// T4: the runtime call that launches it, on the host.
  double launchUs = 0;
  /// Devices that take part when this is a collective (the launching device
  /// included); empty for a kernel.
  llvm::SmallVector<int64_t, 0> group;
};

/// One launch of a KernelSpec and when it started (24 bytes: a step holds
/// one per kernel launched). It ends its spec's latency later
/// (Schedule::endUs).
struct ScheduledKernel {
  /// What its start waited for last.
  enum class Bound : uint8_t { Stream, Host, Dependency, Participants };

  double startUs = 0;
  /// Index (into Schedule::kernels()) of the kernel it waited for, or -1.
  int32_t predecessor = -1;
  /// Index of its KernelSpec (Schedule::kernelSpec).
  uint32_t spec = 0;
  Bound boundBy = Bound::Host;
};

/// The kernels an op launches. An op's kernels are added to the schedule
/// just before it, so they are consecutive indices into Schedule::kernels():
/// a first index and a count in 8 bytes rather than a list per op.
class KernelRange {
public:
  KernelRange() : first(0), count(0) {}
  /// Appends `kernel`, which must follow the range's last kernel.
  void push_back(size_t kernel);
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  size_t operator[](size_t i) const { return first + i; }
  auto begin() const { return llvm::seq<size_t>(first, first + count).begin(); }
  auto end() const { return llvm::seq<size_t>(first, first + count).end(); }

private:
  uint64_t first : 40;
  uint64_t count : 24;
};

/// What a host-side op costs on its host thread, the same for ops alike (a
/// step's layers repeat them), kept once each (Schedule::addOpSpec).
struct OpSpec {
  enum class Kind : uint8_t { Compute, Sync };
  Kind kind = Kind::Compute;
  /// Host thread (one per device) that runs it; within kMaxDevices.
  int32_t device = 0;
  /// T1, T2, T3, T5 of Lin et al. A Sync pays T1 before its wait and T5
  /// (the synchronizing call's own cost) after it.
  double t1 = 0, t2 = 0, t3 = 0, t5 = 0;
  /// For Sync: the stream waited for, or -1 for every stream of `device`.
  int64_t syncStream = -1;
};

/// One host-side op in launch order (16 bytes: a step holds one per op).
struct ScheduledOp {
  /// Index of its OpSpec (Schedule::opSpec).
  uint32_t spec = 0;
  /// Where its dependencies start in the schedule's shared list
  /// (Schedule::deps).
  uint32_t firstDep = 0;
  /// Its kernels, in launch order.
  KernelRange kernels;
};

/// When a host op ran on its host thread (Schedule::opTimes).
struct OpTimes {
  double hostStartUs = 0;
  double hostEndUs = 0;
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
  /// Whether the host bounds the step: its thread finishes last, or the
  /// critical path (the kernels that end the step, each waiting for the
  /// one before) starts with a kernel that waited for its launch after half
  /// the step, so the device idled for the host before it.
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
  /// The driver's launch queue: a device's host thread blocks in a launch
  /// while this many of the device's kernels are launched and not finished,
  /// until the first of them ends (0: no limit).
  unsigned launchQueueDepth = 0;
  /// Host time after a step's last op (an iteration's tail in a trace):
  /// every host thread pays it at the end of every step.
  double hostTailUs = 0;
  /// Keep when each op ran (Schedule::opTimes), which a timeline and the
  /// per-op annotations read and an estimate does not: 16 bytes an op.
  bool opTimes = true;
};

class Schedule {
public:
  /// Makes room for `ops` ops and `kernels` kernels, backed by huge pages
  /// where the system offers them (perf/Support/HugePages.h).
  void reserve(size_t ops, size_t kernels);

  /// Keeps `spec` for kernels to launch and returns its index.
  uint32_t addKernelSpec(KernelSpec spec);
  /// Adds a launch of the kernel spec `spec` and returns its index.
  size_t addKernel(uint32_t spec);
  /// Adds a launch of `spec` (kept for this launch alone) and returns its
  /// index.
  size_t addKernel(KernelSpec spec) {
    return addKernel(addKernelSpec(std::move(spec)));
  }

  /// Keeps `spec` for ops to run and returns its index.
  uint32_t addOpSpec(const OpSpec &spec);
  /// Adds an op of the op spec `spec` that launches the kernels added since
  /// the previous op and waits for the device work of the earlier ops
  /// `deps`; returns its index.
  size_t addOp(uint32_t spec, llvm::ArrayRef<uint32_t> deps = {});
  /// Adds an op of `spec` (kept for this op alone), as above.
  size_t addOp(const OpSpec &spec, llvm::ArrayRef<uint32_t> deps = {}) {
    return addOp(addOpSpec(spec), deps);
  }

  /// Runs the critical-path walk, filling the result fields of every op and
  /// kernel.
  ScheduleResult run(const ScheduleOptions &options = {});

  const std::vector<ScheduledKernel> &kernels() const { return kernelList; }
  const std::vector<ScheduledOp> &ops() const { return opList; }
  const KernelSpec &kernelSpec(size_t kernel) const {
    return kernelSpecs[kernelList[kernel].spec];
  }
  /// When kernel `kernel` ends.
  double endUs(size_t kernel) const {
    return kernelList[kernel].startUs + kernelSpec(kernel).latencyUs;
  }
  /// When op `op` ran; kept by a run with ScheduleOptions::opTimes.
  const OpTimes &opTimes(size_t op) const { return opTimeList[op]; }
  const OpSpec &opSpec(size_t op) const { return opSpecs[opList[op].spec]; }
  /// The ops whose device work op `op` waits for, in increasing order.
  llvm::ArrayRef<uint32_t> deps(size_t op) const {
    size_t end =
        op + 1 < opList.size() ? opList[op + 1].firstDep : depList.size();
    return llvm::ArrayRef<uint32_t>(depList).slice(opList[op].firstDep,
                                                   end - opList[op].firstDep);
  }

private:
  std::vector<KernelSpec> kernelSpecs;
  std::vector<OpSpec> opSpecs;
  std::vector<ScheduledKernel> kernelList;
  std::vector<ScheduledOp> opList;
  std::vector<OpTimes> opTimeList;
  /// Every op's dependencies, op after op.
  std::vector<uint32_t> depList;
  /// The first kernel no op launches yet: the next op's first.
  size_t firstUnowned = 0;
};

} // namespace perf

#endif // PERF_SCHEDULE_SCHEDULE_H
