//===- HostOverheads.h - T1-T5 host overheads from Kineto traces -*- C++
//-*-===//
//
// The five host-side overhead types of Lin et al. (docs/host-overheads.md),
// measured on the top-level ops of a Kineto trace:
//   T1 gap between two consecutive top-level ops,
//   T2 op start -> first launch, T3 last launch end -> op end,
//   T4 the runtime call itself (per runtime function),
//   T5 between two launches of one op; an op without launches contributes
//      its whole host time.
// Each record the profiler writes costs host time that an unprofiled run
// does not pay; as in the paper, `cpuEvent` us is subtracted per CPU event
// (op start/end records inside the interval) and `gpuEvent` us from each
// traced runtime call. Outliers outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] are
// removed before the mean is taken.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRACE_HOSTOVERHEADS_H
#define PERF_TRACE_HOSTOVERHEADS_H

#include "perf/Support/HostOverheadTable.h"
#include "perf/Trace/KinetoTrace.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace perf {
namespace trace {

/// Mean/std/count of `samples`, dropping those outside
/// [Q1 - 1.5 IQR, Q3 + 1.5 IQR] when `removeOutliers`.
OverheadStats summarizeSamples(llvm::ArrayRef<double> samples,
                               bool removeOutliers = true);

/// Per-event profiler costs subtracted from measured intervals (us). The
/// defaults are the paper's: 2 us per CPU event, 4 us per GPU-side event.
struct ProfilerOverheads {
  double cpuEvent = 2.0;
  double gpuEvent = 4.0;
};

/// The overheads one top-level op instance showed in the trace.
struct OpOverheadSample {
  /// Gap from the previous top-level op's end; nullopt for the first op of a
  /// window or when the ops overlap (different host threads).
  std::optional<double> t1;
  bool hasLaunches = false;
  double t2 = 0;
  double t3 = 0;
  /// Per launch point (a runtime call that launched device work or made the
  /// host wait): the call's own time; for a wait, the part of the call after
  /// the device work it waited for had finished (a cudaFree that
  /// initializes the allocator, the return from a synchronize).
  std::vector<double> t4;
  /// Gaps between consecutive launch points (size t4.size() - 1), or the one
  /// whole-op value for an op without launches.
  std::vector<double> t5;
  /// Runtime calls that are launch points, in order (indices into
  /// KinetoTrace::runtimeCalls()).
  std::vector<size_t> launchPoints;
};

/// The region whose entry T1 top-level op `op` takes: the iteration
/// (HostOverheadTable::kIterationRegion) when it is its iteration's first
/// op, else the annotated region it enters (KinetoTrace::enteredRegion),
/// else none. The extraction, the replay and the importer ask it alike.
llvm::StringRef regionEnteredBy(const KinetoTrace &trace, const HostOp &op,
                                bool opensIteration);

/// Measures op `opIndex` (a top-level op); `previousEnd` is the end of the
/// previous top-level op in the same window, if any.
OpOverheadSample measureOpOverheads(const KinetoTrace &trace, size_t opIndex,
                                    std::optional<double> previousEnd,
                                    const ProfilerOverheads &profiler);

/// Extracts the table from the top-level ops that start inside `windows`
/// (all of them when `windows` is empty).
HostOverheadTable extractOverheads(const KinetoTrace &trace,
                                   llvm::ArrayRef<StepSpan> windows,
                                   const ProfilerOverheads &profiler,
                                   bool removeOutliers = true);

/// The same with the 1.5 IQR filter chosen per type: `removeOutliers[n]`
/// for T(n+1). T1 gaps have long right tails (Python, data loading,
/// allocator); dropping them biases a mean that is meant to add up to the
/// iteration's host time, so a table for replay keeps them.
/// With `launchQueueDepth` > 0, runtime calls made while that many device
/// events were launched and not finished (a full launch queue) give no T4
/// sample: their time is the wait, which a replay with that depth models;
/// the table records the depth.
HostOverheadTable extractOverheads(const KinetoTrace &trace,
                                   llvm::ArrayRef<StepSpan> windows,
                                   const ProfilerOverheads &profiler,
                                   const std::array<bool, 5> &removeOutliers,
                                   unsigned launchQueueDepth = 0);

/// Per runtime call, the number of device events launched before it and not
/// finished when it starts.
std::vector<unsigned> pendingAtLaunch(const KinetoTrace &trace);

/// The depth of the driver's launch queue, where the launches of `windows`
/// (every launch when there are none) show one, else 0. A full queue holds
/// the number of pending device events at its depth while the host waits
/// in each launch for a slot: a plateau of many launches (at least
/// kMinLaunchesAtDepth, and 5% of them) within 1% of the largest number
/// pending. A trace that never fills the queue has no plateau (its largest
/// number pending is reached by a few launches).
unsigned inferLaunchQueueDepth(const KinetoTrace &trace,
                               llvm::ArrayRef<StepSpan> windows);
inline constexpr size_t kMinLaunchesAtDepth = 100;

/// T1, T2, T3 and T5 per call site: the k-th top-level op of a given name in
/// an iteration (key "name@k", k from 0), summarized by the median over the
/// iterations. The same site does the same work every iteration, so the
/// median keeps the waits that happen there every time and drops the
/// stalls (data loading, allocator) that hit one iteration. T5 is the
/// median of each instance's mean T5. Not part of the JSON table.
struct SiteOverheads {
  llvm::StringMap<std::array<std::optional<double>, 5>> sites;
  /// The median of type `type` (1, 2, 3 or 5) at `site`, if measured.
  std::optional<double> lookup(llvm::StringRef site, unsigned type) const;
};

/// The key of the `occurrence`-th (0-based) top-level op named `name` in an
/// iteration.
std::string siteKey(llvm::StringRef name, unsigned occurrence);

/// Per-site medians over the top-level ops of `windows` (at least one).
SiteOverheads extractSiteOverheads(const KinetoTrace &trace,
                                   llvm::ArrayRef<StepSpan> windows,
                                   const ProfilerOverheads &profiler);

} // namespace trace
} // namespace perf

#endif // PERF_TRACE_HOSTOVERHEADS_H
