//===- TraceAnalysis.cpp - Per-iteration breakdown and replay -------------===//

#include "perf/Trace/TraceAnalysis.h"

#include "llvm/ADT/STLExtras.h"
#include <algorithm>
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
    // Union of busy intervals clipped to the span.
    double coveredUntil = span.start;
    for (size_t i : byStart) {
      const DeviceEvent &d = device[i];
      if (d.end() <= span.start)
        continue;
      if (d.start >= span.end())
        break;
      double from = std::max({d.start, coveredUntil, span.start});
      double to = std::min(d.end(), span.end());
      if (to > from) {
        row.gpuActive += to - from;
        coveredUntil = to;
      }
      if (d.start < span.start)
        continue;
      ++row.deviceEvents;
      row.deviceTimeByKind[classifyDeviceEvent(d).str()] += d.dur;
      std::string owner = ownerOp[i] >= 0 ? trace.ops()[ownerOp[i]].name
                                          : std::string("(no op)");
      row.deviceTimeByOp[owner] += d.dur;
    }
    row.gpuIdle = std::max(0.0, row.span - row.gpuActive);
    result.push_back(std::move(row));
  }
  return result;
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
  for (const StepSpan &span : spans) {
    ReplayResult result;
    result.name = span.name;
    result.measured = span.dur;
    double cpu = 0;
    std::map<std::pair<int64_t, int64_t>, double> streamTime;
    auto deviceEnd = [&] {
      double end = 0;
      for (auto &entry : streamTime)
        end = std::max(end, entry.second);
      return end;
    };
    // The first op's T1 is its gap from the iteration start.
    std::optional<double> previousEnd = span.start;
    for (size_t index : trace.topLevelOps()) {
      const HostOp &op = trace.ops()[index];
      if (op.start < span.start || op.start >= span.end())
        continue;
      ++result.ops;
      OpOverheadSample measured =
          measureOpOverheads(trace, index, previousEnd, options.profiler);
      previousEnd = previousEnd ? std::max(*previousEnd, op.end()) : op.end();
      const OverheadTable *table = options.table;
      auto t = [&](unsigned type) { return table->lookup(op.name, type); };
      cpu += table ? t(1) : measured.t1.value_or(0);
      if (!measured.hasLaunches) {
        cpu += table ? t(5) : measured.t5.front();
        continue;
      }
      cpu += table ? t(2) : measured.t2;
      size_t points = measured.launchPoints.size();
      for (size_t i = 0; i < points; ++i) {
        const RuntimeCall &call = calls[measured.launchPoints[i]];
        if (call.launched.empty()) {
          // A synchronizing call: the host waits for the device.
          cpu = std::max(cpu, deviceEnd());
        } else {
          double t4 = table ? table->lookupRuntime(call.name) : measured.t4[i];
          for (size_t d : call.launched) {
            const DeviceEvent &event = device[d];
            double &stream = streamTime[{event.device, event.stream}];
            double start = std::max(stream + options.inStreamGap, cpu + t4 / 2);
            stream = start + event.dur;
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
      cpu += table ? t(3) : measured.t3;
    }
    result.predictedHost = cpu;
    result.predictedDevice = deviceEnd();
    result.predicted = std::max(cpu, result.predictedDevice);
    results.push_back(std::move(result));
  }
  return results;
}

} // namespace trace
} // namespace perf
