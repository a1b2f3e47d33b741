//===- TraceAnalysis.cpp - Per-iteration breakdown and replay -------------===//

#include "perf/Trace/TraceAnalysis.h"
#include "perf/Support/IntervalUnion.h"
#include "perf/Support/Launch.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include <algorithm>
#include <cmath>
#include <map>

using namespace llvm;

namespace perf {
namespace trace {

StepSpan wholeTraceSpan(const KinetoTrace &trace) {
  double lo = INFINITY, hi = -INFINITY;
  for (const HostOp &op : trace.ops()) {
    lo = std::min(lo, op.start);
    hi = std::max(hi, op.end());
  }
  for (const DeviceEvent &d : trace.deviceEvents()) {
    lo = std::min(lo, d.start);
    hi = std::max(hi, d.end());
  }
  if (lo > hi)
    return {"trace", 0, 0};
  return {"trace", lo, hi - lo};
}

namespace {
/// A device's busy interval.
struct BusyInterval {
  double start, end;
  bool collective;
};
} // namespace

/// Length of the union of `intervals`, collectives left out with
/// `kernelsOnly`.
static double unionLength(std::vector<BusyInterval> intervals,
                          bool kernelsOnly) {
  llvm::sort(intervals, [](const BusyInterval &a, const BusyInterval &b) {
    return a.start < b.start;
  });
  IntervalUnion busy;
  for (const BusyInterval &i : intervals)
    if (!kernelsOnly || !i.collective)
      busy.add(i.start, i.end);
  return busy.length();
}

std::vector<IterationBreakdown> computeBreakdown(const KinetoTrace &trace,
                                                 ArrayRef<StepSpan> windows) {
  std::vector<StepSpan> spans(windows.begin(), windows.end());
  if (spans.empty())
    spans.push_back(wholeTraceSpan(trace));
  // Device event -> top-level op name.
  std::vector<int64_t> ownerOp(trace.deviceEvents().size(), -1);
  for (size_t op : trace.topLevelOps())
    for (size_t d : trace.deviceEventsOf(op))
      ownerOp[d] = op;
  std::vector<size_t> byStart(trace.deviceEvents().size());
  for (size_t i = 0; i < byStart.size(); ++i)
    byStart[i] = i;
  const auto &device = trace.deviceEvents();
  llvm::sort(byStart, [&](size_t a, size_t b) {
    return device[a].start < device[b].start;
  });

  std::vector<IterationBreakdown> result;
  for (const StepSpan &span : spans) {
    IterationBreakdown row;
    row.name = span.name;
    row.start = span.start;
    row.span = span.dur;
    for (size_t op : trace.topLevelOps()) {
      double s = trace.ops()[op].start;
      if (s >= span.start && s < span.end())
        ++row.topLevelOps;
    }
    // Busy intervals clipped to the span.
    std::vector<BusyInterval> busy;
    for (size_t i : byStart) {
      const DeviceEvent &d = device[i];
      if (d.end() <= span.start)
        continue;
      if (d.start >= span.end())
        break;
      busy.push_back({std::max(d.start, span.start),
                      std::min(d.end(), span.end()), false});
      if (d.start < span.start)
        continue;
      ++row.deviceEvents;
      row.deviceTimeByKind[classifyDeviceEvent(d).str()] += d.dur;
      std::string owner = ownerOp[i] >= 0 ? trace.ops()[ownerOp[i]].name
                                          : std::string("(no op)");
      row.deviceTimeByOp[owner] += d.dur;
    }
    row.gpuActive = unionLength(std::move(busy), /*kernelsOnly=*/false);
    row.gpuIdle = std::max(0.0, row.span - row.gpuActive);
    result.push_back(std::move(row));
  }
  return result;
}

static ReplayResult::Parts partsOf(double hostEnd,
                                   const std::vector<BusyInterval> &busy) {
  ReplayResult::Parts parts;
  parts.hostEnd = hostEnd;
  parts.gpuActive = unionLength(busy, /*kernelsOnly=*/false);
  parts.exposedComm = parts.gpuActive - unionLength(busy, /*kernelsOnly=*/true);
  return parts;
}

std::vector<ReplayResult> replayIterations(const KinetoTrace &trace,
                                           ArrayRef<StepSpan> windows,
                                           const ReplayOptions &options) {
  std::vector<StepSpan> spans(windows.begin(), windows.end());
  if (spans.empty())
    spans.push_back(wholeTraceSpan(trace));
  const auto &calls = trace.runtimeCalls();
  const auto &device = trace.deviceEvents();
  std::vector<ReplayResult> results;
  // Stream ends relative to the start of the window being replayed.
  std::map<std::pair<int64_t, int64_t>, double> streamTime;
  // The driver's launch queue (table replays only: the own-overheads
  // replay's T4 already holds the waits).
  LaunchQueue queue(options.table ? options.launchQueueDepth : 0);
  // Cross-stream waits: at a record call the stream waited on is read
  // (`eventReady`, by wait), at the wait call the waiting stream starts no
  // earlier than that.
  const std::vector<StreamWait> &waits = trace.streamWaits();
  DenseMap<size_t, double> eventReady;
  // When a stream may start again after a wait: a floor, not the end of its
  // own last work, so no in-stream gap is added to it.
  std::map<std::pair<int64_t, int64_t>, double> waitFloor;
  auto applyWaitCall = [&](size_t call) {
    for (size_t i : trace.waitsRecordedBy(call)) {
      auto stream = streamTime.find({waits[i].device, waits[i].waitOnStream});
      eventReady[i] = stream == streamTime.end() ? 0 : stream->second;
    }
    for (size_t i : trace.waitsIssuedBy(call))
      if (auto ready = eventReady.find(i); ready != eventReady.end()) {
        double &floor = waitFloor[{waits[i].device, waits[i].stream}];
        floor = std::max(floor, ready->second);
      }
  };
  for (size_t w = 0; w < spans.size(); ++w) {
    const StepSpan &span = spans[w];
    // Successive ProfilerStep spans leave a few tens of us between them.
    auto adjacent = [](const StepSpan &a, const StepSpan &b) {
      double gap = b.start - a.end();
      return gap >= -1.0 && gap <= std::max(1.0, 0.05 * a.dur);
    };
    bool nextIsAdjacent = options.carryDeviceWork && w + 1 < spans.size() &&
                          adjacent(span, spans[w + 1]);
    bool carried =
        options.carryDeviceWork && w > 0 && adjacent(spans[w - 1], span);
    if (carried) {
      // This iteration starts when the previous one's host work ended.
      double previousEnd = results.back().predicted;
      for (auto &entry : streamTime)
        entry.second -= previousEnd;
      for (auto &entry : eventReady)
        entry.second -= previousEnd;
      for (auto &entry : waitFloor)
        entry.second -= previousEnd;
      queue.shift(previousEnd);
    } else {
      streamTime.clear();
      queue.clear();
      eventReady.clear();
      waitFloor.clear();
    }
    ReplayResult result;
    result.name = span.name;
    result.measured = span.dur;
    double cpu = 0;
    auto deviceEnd = [&] {
      double end = 0;
      for (auto &entry : streamTime)
        end = std::max(end, entry.second);
      return end;
    };
    StringMap<unsigned> occurrences;
    std::vector<BusyInterval> measuredBusy, predictedBusy;
    double measuredHostEnd = 0;
    // The first op's T1 is its gap from the iteration start.
    std::optional<double> previousEnd = span.start;
    for (size_t index : trace.topLevelOps()) {
      const HostOp &op = trace.ops()[index];
      if (op.start < span.start || op.start >= span.end())
        continue;
      bool opensIteration = result.ops == 0;
      ++result.ops;
      measuredHostEnd = std::max(measuredHostEnd, op.end() - span.start);
      OpOverheadSample measured =
          measureOpOverheads(trace, index, previousEnd, options.profiler);
      previousEnd = previousEnd ? std::max(*previousEnd, op.end()) : op.end();
      const HostOverheadTable *table = options.table;
      std::string site;
      if (options.sites)
        site = siteKey(op.name, occurrences[op.name]++);
      auto t = [&](unsigned type) {
        if (options.sites)
          if (std::optional<double> median = options.sites->lookup(site, type))
            return *median;
        StringRef region = regionEnteredBy(trace, op, opensIteration);
        if (type == 1 && !region.empty())
          return table->entryT1(region, op.name);
        return table->get(op.name, static_cast<Overhead>(type - 1));
      };
      cpu += table ? t(1) : measured.t1.value_or(0);
      // The op's record and wait calls take effect in host order, between
      // the launches around them.
      size_t nextCall = 0;
      auto applyWaitCallsBefore = [&](double time) {
        for (; nextCall < op.runtimeCalls.size() &&
               calls[op.runtimeCalls[nextCall]].start <= time;
             ++nextCall)
          applyWaitCall(op.runtimeCalls[nextCall]);
      };
      if (!measured.hasLaunches) {
        applyWaitCallsBefore(INFINITY);
        cpu += table ? t(5) : measured.t5.front();
        continue;
      }
      cpu += table ? t(2) : measured.t2;
      size_t points = measured.launchPoints.size();
      for (size_t i = 0; i < points; ++i) {
        const RuntimeCall &call = calls[measured.launchPoints[i]];
        applyWaitCallsBefore(call.start);
        if (call.launched.empty()) {
          // A synchronizing call: the host waits for the device (or the
          // one stream it synchronized), then pays the call's own cost.
          double ready = deviceEnd();
          if (call.syncedStream) {
            auto stream = streamTime.find(*call.syncedStream);
            ready = stream == streamTime.end() ? 0 : stream->second;
          }
          cpu = std::max(cpu, ready) +
                (table ? table->syncCall(call.name) : measured.t4[i]);
        } else {
          double t4 = table ? table->runtimeCall(call.name) : measured.t4[i];
          // A full launch queue blocks the call until the oldest pending
          // work finishes.
          cpu = queue.admit(cpu);
          for (size_t d : call.launched) {
            const DeviceEvent &event = device[d];
            // The gap separates a kernel from the one before it on its
            // stream; a stream's first kernel has none (as in the
            // schedule of the MLIR path).
            auto [it, first] =
                streamTime.try_emplace({event.device, event.stream}, 0.0);
            double &stream = it->second;
            auto floor = waitFloor.find({event.device, event.stream});
            // A copy from or to pageable memory runs inside its call (as
            // perf.copy_in_call in the MLIR path).
            double start = std::max(
                {first ? -INFINITY : stream + options.inStreamGap,
                 cpu + launchReadyAfterUs(t4, event.dur,
                                          copiesPageableMemory(event)),
                 floor == waitFloor.end() ? -INFINITY : floor->second});
            stream = start + event.dur;
            bool collective = classifyDeviceEvent(event) == "nccl";
            predictedBusy.push_back({start, stream, collective});
            measuredBusy.push_back({event.start - span.start,
                                    event.end() - span.start, collective});
            queue.launched(stream);
            result.kernelTime += event.dur;
            ++result.deviceEvents;
          }
          cpu += t4;
          // A device-to-host copy into pageable memory returns only when the
          // copy is done.
          for (size_t d : call.launched)
            if (device[d].kind == DeviceEventKind::Memcpy &&
                StringRef(device[d].name).contains("DtoH"))
              cpu = std::max(cpu,
                             streamTime[{device[d].device, device[d].stream}]);
        }
        if (i + 1 < points)
          cpu += table ? t(5) : measured.t5[i];
      }
      applyWaitCallsBefore(INFINITY);
      cpu += table ? t(3) : measured.t3;
    }
    // Host time after the last op up to the end of the iteration's span
    // (the optimizer's Python, the profiler's step), measured like the
    // gaps between ops; with a table, its iteration tail. The whole trace's
    // span ends with its last event, host or device: nothing after the last
    // op is host work there.
    if (!windows.empty() && previousEnd)
      cpu += options.table ? options.table->iterationTailUs()
                           : std::max(0.0, span.end() - *previousEnd);
    result.predictedHost = cpu;
    result.predictedDevice = deviceEnd();
    result.measuredParts = partsOf(measuredHostEnd, measuredBusy);
    result.predictedParts = partsOf(cpu, predictedBusy);
    // A ProfilerStep span is host time: inside a run of adjacent steps the
    // device work still queued belongs to the next step's span, and at the
    // end of the run it is only the profiler's flush.
    result.predicted =
        nextIsAdjacent || carried ? cpu : std::max(cpu, result.predictedDevice);
    results.push_back(std::move(result));
  }
  return results;
}

} // namespace trace
} // namespace perf
