//===- Timeline.cpp - A computed schedule as a Chrome trace ---------------===//
//
// Chrome Trace Event format: "X" complete events (ts, dur in us), "M"
// metadata naming processes and threads, and "s"/"f" flow events binding
// the end of one slice to the start of another.
//
//===----------------------------------------------------------------------===//

#include "perf/Schedule/Timeline.h"
#include <map>
#include <optional>
#include <set>

using namespace perf;
namespace json = llvm::json;

namespace {
/// Host thread track of a process.
constexpr int64_t kHostTrack = 0;

int64_t streamTrack(int64_t stream) { return 1 + stream; }

json::Object slice(llvm::StringRef name, llvm::StringRef category, int64_t pid,
                   int64_t tid, double start, double end,
                   json::Object args = {}) {
  // json::Value keeps a StringRef without copying: names are copied here,
  // since the labels they point into do not outlive the call.
  json::Object e{{"name", name.str()}, {"cat", category.str()},
                 {"ph", "X"},          {"pid", pid},
                 {"tid", tid},         {"ts", start},
                 {"dur", end - start}};
  if (!args.empty())
    e["args"] = std::move(args);
  return e;
}

/// One end of a flow arrow: "s" leaves the slice enclosing `ts` on (pid,
/// tid), "f" with binding point "e" arrives at the slice enclosing `ts`.
json::Object flow(llvm::StringRef phase, llvm::StringRef name, int64_t id,
                  int64_t pid, int64_t tid, double ts) {
  json::Object e{
      {"name", name.str()}, {"cat", "flow"}, {"ph", phase.str()}, {"id", id},
      {"pid", pid},         {"tid", tid},    {"ts", ts}};
  if (phase == "f")
    e["bp"] = "e";
  return e;
}

json::Object metadata(llvm::StringRef what, int64_t pid,
                      std::optional<int64_t> tid, const std::string &name) {
  json::Object e{{"name", what.str()},
                 {"ph", "M"},
                 {"pid", pid},
                 {"args", json::Object{{"name", name}}}};
  if (tid)
    e["tid"] = *tid;
  return e;
}
} // namespace

void perf::appendTimelineEvents(const Schedule &schedule,
                                const TimelineGraph &graph, int64_t pidBase,
                                int64_t &nextFlowId, json::Array &events) {
  const std::vector<ScheduledOp> &ops = schedule.ops();
  const std::vector<ScheduledKernel> &kernels = schedule.kernels();
  // Tracks in use, named once each below.
  std::map<int64_t, std::set<int64_t>> tracks;
  auto kernelInfo = [&](size_t k) -> const TimelineKernel & {
    static const TimelineKernel unnamed{"kernel", "kernel", "", 0, 0, -1};
    return k < graph.kernels.size() ? graph.kernels[k] : unnamed;
  };

  for (size_t i = 0; i < ops.size(); ++i) {
    const ScheduledOp &op = ops[i];
    const OpSpec &spec = schedule.opSpec(i);
    const OpTimes &times = schedule.opTimes(i);
    int64_t pid = pidBase + spec.device;
    tracks[pid].insert(kHostTrack);
    llvm::StringRef name =
        i < graph.opNames.size() ? llvm::StringRef(graph.opNames[i]) : "op";
    bool sync = spec.kind == OpSpec::Kind::Sync;
    events.push_back(slice(name, sync ? "sync" : "host", pid, kHostTrack,
                           times.hostStartUs, times.hostEndUs,
                           json::Object{{"T1_us", spec.t1},
                                        {"T2_us", spec.t2},
                                        {"T3_us", spec.t3},
                                        {"T5_us", spec.t5}}));
    // The host op's phases as nested slices, in the order the schedule
    // spends them (Schedule.cpp): T1, then for a sync the wait and T5; for
    // an op with kernels T2, each launch (T4) with T5 between launches, T3.
    double t = times.hostStartUs;
    auto phase = [&](llvm::StringRef what, double dur) {
      if (dur > 0)
        events.push_back(slice(what, "overhead", pid, kHostTrack, t, t + dur));
      t += dur;
    };
    phase("T1 framework", spec.t1);
    if (sync) {
      double wait = times.hostEndUs - spec.t5 - t;
      phase("wait", wait > 0 ? wait : 0);
      phase("T5", spec.t5);
      continue;
    }
    if (op.kernels.empty()) {
      phase("T5", spec.t5);
      continue;
    }
    phase("T2 dispatch", spec.t2);
    for (size_t j = 0; j < op.kernels.size(); ++j) {
      size_t k = op.kernels[j];
      const ScheduledKernel &kernel = kernels[k];
      const KernelSpec &ks = schedule.kernelSpec(k);
      const TimelineKernel &info = kernelInfo(k);
      double launchStart = t;
      phase("T4 launch", ks.launchUs);
      // The launch's arrow leaves the host where the kernel becomes ready
      // (half-way through the call, Algorithm 1) and ends on the kernel.
      int64_t id = nextFlowId++;
      events.push_back(flow("s", "launch", id, pid, kHostTrack,
                            launchStart + ks.launchUs / 2));
      // A collective runs on every participant; a kernel on its device.
      std::vector<int64_t> devices(ks.group.begin(), ks.group.end());
      if (devices.empty())
        devices.push_back(ks.device);
      for (int64_t device : devices) {
        int64_t kpid = pidBase + device;
        int64_t tid = streamTrack(ks.stream);
        tracks[kpid].insert(tid);
        json::Object args{{"kind", std::string(info.kind)},
                          {"model", std::string(info.model)},
                          {"T4_us", ks.launchUs},
                          {"latency_us", ks.latencyUs}};
        if (info.flops > 0)
          args["flops"] = info.flops;
        if (info.bytes > 0)
          args["bytes"] = info.bytes;
        if (!ks.group.empty())
          args["group"] = json::Array(ks.group);
        events.push_back(
            slice(info.name, ks.group.empty() ? "kernel" : "collective", kpid,
                  tid, kernel.startUs, schedule.endUs(k), std::move(args)));
        if (device == ks.device)
          events.push_back(flow("f", "launch", id, kpid, tid, kernel.startUs));
        if (info.measuredStartUs >= 0 && device == ks.device) {
          int64_t mtid = kMeasuredTrackBase + ks.stream;
          tracks[kpid].insert(mtid);
          events.push_back(
              slice(info.name, "measured", kpid, mtid, info.measuredStartUs,
                    info.measuredStartUs + info.measuredLatencyUs));
        }
      }
      // A start held back by work on another stream or device: an arrow
      // from the end of that work.
      if (kernel.predecessor >= 0 &&
          (kernel.boundBy == ScheduledKernel::Bound::Dependency ||
           kernel.boundBy == ScheduledKernel::Bound::Participants)) {
        const KernelSpec &fromSpec = schedule.kernelSpec(kernel.predecessor);
        if (fromSpec.stream != ks.stream || fromSpec.device != ks.device ||
            !fromSpec.group.empty()) {
          int64_t wait = nextFlowId++;
          llvm::StringRef why =
              kernel.boundBy == ScheduledKernel::Bound::Dependency
                  ? "waits for"
                  : "waits for participant";
          // Flow events bind to the slice enclosing their time: the
          // source's last instant inside it, the target's first.
          events.push_back(flow("s", why, wait, pidBase + fromSpec.device,
                                streamTrack(fromSpec.stream),
                                schedule.endUs(kernel.predecessor) -
                                    1e-3 * fromSpec.latencyUs));
          events.push_back(flow("f", why, wait, pidBase + ks.device,
                                streamTrack(ks.stream), kernel.startUs));
        }
      }
      if (j + 1 != op.kernels.size())
        phase("T5", spec.t5);
    }
    phase("T3", spec.t3);
  }

  for (const auto &[pid, tids] : tracks) {
    events.push_back(metadata("process_name", pid, std::nullopt,
                              "GPU " + std::to_string(pid - pidBase) + " (" +
                                  graph.device + ") @" + graph.name));
    for (int64_t tid : tids) {
      std::string name = tid == kHostTrack ? "host thread"
                         : tid >= kMeasuredTrackBase
                             ? "stream " +
                                   std::to_string(tid - kMeasuredTrackBase) +
                                   " (measured)"
                             : "stream " + std::to_string(tid - 1);
      events.push_back(metadata("thread_name", pid, tid, name));
      events.push_back(
          json::Object{{"name", "thread_sort_index"},
                       {"ph", "M"},
                       {"pid", pid},
                       {"tid", tid},
                       {"args", json::Object{{"sort_index", tid}}}});
    }
  }
}

void perf::printTimeline(llvm::raw_ostream &os, const json::Array &events) {
  os << "{\"otherData\": {\"schema\": \"perf.timeline/1\"}, "
        "\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
  for (size_t i = 0; i < events.size(); ++i)
    os << (i ? ",\n" : "\n") << events[i];
  os << "\n]}\n";
}
