//===- HostOverheads.cpp - T1-T5 host overheads from Kineto traces --------===//

#include "perf/Trace/HostOverheads.h"
#include "perf/Support/Quantile.h"
#include "perf/Trace/TraceFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <set>

using namespace llvm;

namespace perf {
namespace trace {

OverheadStats summarizeSamples(ArrayRef<double> samples, bool removeOutliers) {
  OverheadStats stats;
  if (samples.empty())
    return stats;
  std::vector<double> sorted(samples.begin(), samples.end());
  llvm::sort(sorted);
  double low = -INFINITY, high = INFINITY;
  if (removeOutliers) {
    double q1 = quantileOfSorted(sorted, 0.25);
    double q3 = quantileOfSorted(sorted, 0.75);
    double iqr = q3 - q1;
    low = q1 - 1.5 * iqr;
    high = q3 + 1.5 * iqr;
  }
  double sum = 0;
  for (double s : sorted)
    if (s >= low && s <= high) {
      sum += s;
      ++stats.count;
    }
  stats.removed = sorted.size() - stats.count;
  stats.mean = sum / stats.count;
  double squares = 0;
  for (double s : sorted)
    if (s >= low && s <= high)
      squares += (s - stats.mean) * (s - stats.mean);
  stats.std = std::sqrt(squares / stats.count);
  return stats;
}

static double nonNegative(double x) { return x < 0 ? 0 : x; }

/// Host events of the op that start in [from, to).
static unsigned eventsIn(const HostOp &op, double from, double to) {
  unsigned count = 0;
  for (double s : op.nestedStarts)
    if (s >= from && s < to)
      ++count;
  return count;
}

StringRef regionEnteredBy(const KinetoTrace &trace, const HostOp &op,
                          bool opensIteration) {
  return opensIteration ? StringRef(HostOverheadTable::kIterationRegion)
                        : trace.enteredRegion(op);
}

OpOverheadSample measureOpOverheads(const KinetoTrace &trace, size_t opIndex,
                                    std::optional<double> previousEnd,
                                    const ProfilerOverheads &profiler) {
  const HostOp &op = trace.ops()[opIndex];
  const auto &calls = trace.runtimeCalls();
  OpOverheadSample sample;
  if (previousEnd && op.start >= *previousEnd)
    sample.t1 = nonNegative(op.start - *previousEnd - profiler.cpuEvent);
  for (size_t call : op.runtimeCalls)
    if (!calls[call].launched.empty() || calls[call].isSynchronizing())
      sample.launchPoints.push_back(call);
  if (sample.launchPoints.empty()) {
    unsigned events = 1 + op.nestedStarts.size();
    sample.t5.push_back(nonNegative(op.dur - events * profiler.cpuEvent));
    return sample;
  }
  sample.hasLaunches = true;
  const RuntimeCall &first = calls[sample.launchPoints.front()];
  const RuntimeCall &last = calls[sample.launchPoints.back()];
  sample.t2 =
      nonNegative(first.start - op.start -
                  eventsIn(op, op.start, first.start) * profiler.cpuEvent);
  sample.t3 = nonNegative(op.end() - last.end() -
                          eventsIn(op, last.end(), op.end() + 1e-9) *
                              profiler.cpuEvent);
  for (size_t i = 0, e = sample.launchPoints.size(); i < e; ++i) {
    const RuntimeCall &call = calls[sample.launchPoints[i]];
    if (call.launched.empty()) {
      double waitedUntil =
          std::max(call.start, trace.lastDeviceEndAtOrBefore(call.end()));
      sample.t4.push_back(nonNegative(call.end() - waitedUntil));
    } else {
      sample.t4.push_back(nonNegative(call.dur - profiler.gpuEvent));
    }
    if (i > 0) {
      const RuntimeCall &prev = calls[sample.launchPoints[i - 1]];
      sample.t5.push_back(nonNegative(call.start - prev.end() -
                                      eventsIn(op, prev.end(), call.start) *
                                          profiler.cpuEvent));
    }
  }
  return sample;
}

/// Top-level ops grouped by the window they start in; one group of all ops
/// when there are no windows.
static std::vector<std::vector<size_t>>
opsByWindow(const KinetoTrace &trace, ArrayRef<StepSpan> windows) {
  std::vector<std::vector<size_t>> groups;
  if (windows.empty()) {
    groups.push_back(trace.topLevelOps());
    return groups;
  }
  groups.resize(windows.size());
  for (size_t op : trace.topLevelOps()) {
    double start = trace.ops()[op].start;
    for (size_t w = 0; w < windows.size(); ++w)
      if (start >= windows[w].start && start < windows[w].end()) {
        groups[w].push_back(op);
        break;
      }
  }
  return groups;
}

HostOverheadTable extractOverheads(const KinetoTrace &trace,
                                   ArrayRef<StepSpan> windows,
                                   const ProfilerOverheads &profiler,
                                   bool removeOutliers) {
  std::array<bool, 5> perType;
  perType.fill(removeOutliers);
  return extractOverheads(trace, windows, profiler, perType);
}

HostOverheadTable extractOverheads(const KinetoTrace &trace,
                                   ArrayRef<StepSpan> windows,
                                   const ProfilerOverheads &profiler,
                                   const std::array<bool, 5> &removeOutliers,
                                   unsigned launchQueueDepth) {
  std::vector<unsigned> pending;
  if (launchQueueDepth > 0)
    pending = pendingAtLaunch(trace);
  std::array<std::vector<double>, 5> pooled;
  StringMap<std::array<std::vector<double>, 5>> perOp;
  StringMap<std::vector<double>> perRuntime, perRegion;
  std::vector<double> tails;
  const auto &calls = trace.runtimeCalls();
  std::vector<std::vector<size_t>> groups = opsByWindow(trace, windows);
  for (size_t w = 0; w < groups.size(); ++w) {
    // As in the replay: an iteration's first op waits from the iteration's
    // start, and that wait is the iteration's entry T1.
    std::optional<double> previousEnd;
    if (!windows.empty())
      previousEnd = windows[w].start;
    for (size_t index : groups[w]) {
      const HostOp &op = trace.ops()[index];
      OpOverheadSample sample =
          measureOpOverheads(trace, index, previousEnd, profiler);
      bool opensIteration = !windows.empty() && index == groups[w].front();
      previousEnd = previousEnd ? std::max(*previousEnd, op.end()) : op.end();
      auto &slots = perOp[op.name];
      StringRef region = regionEnteredBy(trace, op, opensIteration);
      if (sample.t1 && !region.empty()) {
        perRegion[region].push_back(*sample.t1);
        // The wait before an iteration is not an op's T1: the default
        // stays without it.
        if (!opensIteration)
          pooled[0].push_back(*sample.t1);
      } else if (sample.t1) {
        slots[0].push_back(*sample.t1);
        pooled[0].push_back(*sample.t1);
      }
      if (sample.hasLaunches) {
        slots[1].push_back(sample.t2);
        pooled[1].push_back(sample.t2);
        slots[2].push_back(sample.t3);
        pooled[2].push_back(sample.t3);
        for (size_t i = 0; i < sample.launchPoints.size(); ++i) {
          const RuntimeCall &call = calls[sample.launchPoints[i]];
          // A wait's own cost is its function's, not a launch's.
          if (call.launched.empty()) {
            perRuntime[call.name].push_back(sample.t4[i]);
            continue;
          }
          if (!pending.empty() &&
              pending[sample.launchPoints[i]] >= launchQueueDepth)
            continue;
          perRuntime[call.name].push_back(sample.t4[i]);
          pooled[3].push_back(sample.t4[i]);
        }
      }
      for (double t5 : sample.t5) {
        slots[4].push_back(t5);
        pooled[4].push_back(t5);
      }
    }
    // The iteration's tail: from its last op's end to its end.
    if (!windows.empty() && !groups[w].empty())
      tails.push_back(nonNegative(windows[w].end() - *previousEnd));
  }
  HostOverheadTable table;
  table.launchQueueDepth = launchQueueDepth;
  for (unsigned t = 0; t < 5; ++t)
    if (!pooled[t].empty())
      table.defaults[t] = summarizeSamples(pooled[t], removeOutliers[t]);
  for (auto &entry : perRuntime)
    table.runtime[entry.getKey()] =
        summarizeSamples(entry.getValue(), removeOutliers[3]);
  for (auto &entry : perRegion)
    table.regions[entry.getKey()] =
        summarizeSamples(entry.getValue(), removeOutliers[0]);
  if (!tails.empty())
    table.iterationTail = summarizeSamples(tails, removeOutliers[0]);
  for (auto &entry : perOp) {
    auto &slots = table.ops[entry.getKey()];
    for (unsigned t = 0; t < 5; ++t)
      if (!entry.getValue()[t].empty())
        slots[t] = summarizeSamples(entry.getValue()[t], removeOutliers[t]);
  }
  return table;
}

std::vector<unsigned> pendingAtLaunch(const KinetoTrace &trace) {
  const auto &calls = trace.runtimeCalls();
  const auto &device = trace.deviceEvents();
  std::vector<size_t> order(calls.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order, [&](size_t a, size_t b) {
    return calls[a].start < calls[b].start;
  });
  std::vector<unsigned> pending(calls.size(), 0);
  std::multiset<double> ends;
  for (size_t call : order) {
    while (!ends.empty() && *ends.begin() <= calls[call].start)
      ends.erase(ends.begin());
    pending[call] = ends.size();
    for (size_t d : calls[call].launched)
      ends.insert(device[d].end());
  }
  return pending;
}

unsigned inferLaunchQueueDepth(const KinetoTrace &trace,
                               ArrayRef<StepSpan> windows) {
  const auto &calls = trace.runtimeCalls();
  std::vector<unsigned> pending = pendingAtLaunch(trace);
  auto inWindows = [&](double time) {
    if (windows.empty())
      return true;
    for (const StepSpan &w : windows)
      if (time >= w.start && time < w.end())
        return true;
    return false;
  };
  std::vector<unsigned> atLaunch;
  for (size_t i = 0; i < calls.size(); ++i)
    if (!calls[i].launched.empty() && inWindows(calls[i].start))
      atLaunch.push_back(pending[i]);
  if (atLaunch.empty())
    return 0;
  unsigned deepest = *llvm::max_element(atLaunch);
  unsigned floor = deepest - std::min(deepest, std::max(2u, deepest / 100));
  size_t plateau =
      llvm::count_if(atLaunch, [&](unsigned n) { return n >= floor; });
  if (plateau < kMinLaunchesAtDepth || plateau * 20 < atLaunch.size())
    return 0;
  return deepest;
}

std::string siteKey(StringRef name, unsigned occurrence) {
  return (name + "@" + Twine(occurrence)).str();
}

std::optional<double> SiteOverheads::lookup(StringRef site,
                                            unsigned type) const {
  auto it = sites.find(site);
  if (type < 1 || type > 5 || it == sites.end())
    return std::nullopt;
  return it->second[type - 1];
}

SiteOverheads extractSiteOverheads(const KinetoTrace &trace,
                                   ArrayRef<StepSpan> windows,
                                   const ProfilerOverheads &profiler) {
  StringMap<std::array<std::vector<double>, 5>> samples;
  for (size_t w = 0; w < std::max<size_t>(windows.size(), 1); ++w) {
    StringMap<unsigned> occurrences;
    // As in the replay: the first op's T1 is its gap from the window start.
    std::optional<double> previousEnd;
    if (!windows.empty())
      previousEnd = windows[w].start;
    for (size_t index : trace.topLevelOps()) {
      const HostOp &op = trace.ops()[index];
      if (!windows.empty() &&
          (op.start < windows[w].start || op.start >= windows[w].end()))
        continue;
      OpOverheadSample sample =
          measureOpOverheads(trace, index, previousEnd, profiler);
      previousEnd = previousEnd ? std::max(*previousEnd, op.end()) : op.end();
      auto &slots = samples[siteKey(op.name, occurrences[op.name]++)];
      slots[0].push_back(sample.t1.value_or(0));
      if (sample.hasLaunches) {
        slots[1].push_back(sample.t2);
        slots[2].push_back(sample.t3);
      }
      if (!sample.t5.empty()) {
        double sum = 0;
        for (double t5 : sample.t5)
          sum += t5;
        slots[4].push_back(sum / sample.t5.size());
      }
    }
  }
  SiteOverheads result;
  for (auto &entry : samples) {
    auto &medians = result.sites[entry.getKey()];
    for (unsigned t = 0; t < 5; ++t) {
      std::vector<double> &values = entry.getValue()[t];
      if (values.empty())
        continue;
      llvm::sort(values);
      medians[t] = quantileOfSorted(values, 0.5);
    }
  }
  return result;
}

} // namespace trace
} // namespace perf
