//===- Schedule.cpp - Generalized Algorithm 1 -----------------------------===//

#include "perf/Schedule/Schedule.h"
#include "perf/Support/HugePages.h"
#include "perf/Support/IntervalUnion.h"
#include "perf/Support/Launch.h"
#include "llvm/Support/ErrorHandling.h"
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

using namespace perf;

static_assert(sizeof(void *) != 8 ||
                  (sizeof(ScheduledKernel) <= 24 && sizeof(ScheduledOp) <= 16),
              "a step holds one of each per kernel and op: keep them small");

void KernelRange::push_back(size_t kernel) {
  constexpr size_t kMaxFirst = (size_t(1) << 40) - 1;
  constexpr size_t kMaxCount = (size_t(1) << 24) - 1;
  if (count == 0) {
    if (kernel > kMaxFirst)
      llvm::report_fatal_error("a schedule holds at most 2^40 kernels");
    first = kernel;
  } else if (kernel != first + count) {
    llvm::report_fatal_error("an op's kernels must be added to the schedule "
                             "one after another, just before the op");
  }
  if (count == kMaxCount)
    llvm::report_fatal_error("an op launches at most 2^24 kernels");
  ++count;
}

void Schedule::reserve(size_t ops, size_t kernels) {
  reserveHuge(opList, ops);
  reserveHuge(kernelList, kernels);
  // Most ops wait for one or two others.
  depList.reserve(ops + ops / 2);
}

uint32_t Schedule::addKernelSpec(KernelSpec spec) {
  if (kernelSpecs.size() == UINT32_MAX)
    llvm::report_fatal_error("a schedule holds at most 2^32 - 1 kernel specs");
  kernelSpecs.push_back(std::move(spec));
  return static_cast<uint32_t>(kernelSpecs.size() - 1);
}

size_t Schedule::addKernel(uint32_t spec) {
  // Kernel indices are kept in 31 bits (ScheduledKernel::predecessor).
  if (kernelList.size() == INT32_MAX)
    llvm::report_fatal_error("a schedule holds at most 2^31 - 1 kernels");
  if (spec >= kernelSpecs.size())
    llvm::report_fatal_error("a kernel names a spec the schedule lacks");
  ScheduledKernel kernel;
  kernel.spec = spec;
  kernelList.push_back(kernel);
  return kernelList.size() - 1;
}

uint32_t Schedule::addOpSpec(const OpSpec &spec) {
  if (opSpecs.size() == UINT32_MAX)
    llvm::report_fatal_error("a schedule holds at most 2^32 - 1 op specs");
  opSpecs.push_back(spec);
  return static_cast<uint32_t>(opSpecs.size() - 1);
}

size_t Schedule::addOp(uint32_t spec, llvm::ArrayRef<uint32_t> deps) {
  if (opList.size() == UINT32_MAX)
    llvm::report_fatal_error("a schedule holds at most 2^32 - 1 ops");
  if (spec >= opSpecs.size())
    llvm::report_fatal_error("an op names a spec the schedule lacks");
  if (depList.size() + deps.size() > UINT32_MAX)
    llvm::report_fatal_error("a schedule holds at most 2^32 - 1 "
                             "dependencies");
  ScheduledOp op;
  op.spec = spec;
  op.firstDep = static_cast<uint32_t>(depList.size());
  for (uint32_t dep : deps) {
    if (dep >= opList.size())
      llvm::report_fatal_error("an op depends on an op added after it");
    depList.push_back(dep);
  }
  auto mine = depList.begin() + op.firstDep;
  std::sort(mine, depList.end());
  depList.erase(std::unique(mine, depList.end()), depList.end());
  // The kernels added since the previous op are this op's.
  for (size_t k = firstUnowned; k < kernelList.size(); ++k)
    op.kernels.push_back(k);
  firstUnowned = kernelList.size();
  opList.push_back(op);
  return opList.size() - 1;
}

namespace {
/// Where a stream stands: when it drains and which kernel ran last.
struct StreamState {
  double readyUs = 0;
  int32_t last = -1;
};
using StreamKey = std::pair<int64_t, int64_t>; // (device, stream)
} // namespace

/// A device's busy intervals, one run per stream in the order the stream
/// ran them, as indices into the kernel list (4 bytes per kernel where an
/// interval would take 24: a step can hold millions).
using Runs = std::map<int64_t, std::vector<uint32_t>>;

/// When `kernel` ends: its spec's latency after its start (the sum the walk
/// makes when it places the kernel, so the same time).
static double endOf(const ScheduledKernel &kernel,
                    const std::vector<KernelSpec> &specs) {
  return kernel.startUs + specs[kernel.spec].latencyUs;
}

/// Length of the union of the runs' intervals, the collectives' left out
/// with `kernelsOnly`. A stream's work is in order (each interval starts
/// after the one before it ends), so the runs are merged instead of sorted;
/// a run that is not in order (a negative kernel gap) is sorted first.
static double unionLength(Runs &runs,
                          const std::vector<ScheduledKernel> &kernels,
                          const std::vector<KernelSpec> &specs,
                          bool kernelsOnly) {
  auto before = [&](uint32_t a, uint32_t b) {
    return std::make_pair(kernels[a].startUs, endOf(kernels[a], specs)) <
           std::make_pair(kernels[b].startUs, endOf(kernels[b], specs));
  };
  using Head = std::pair<uint32_t, size_t>; // a kernel, its run
  std::vector<std::vector<uint32_t> *> lists;
  std::vector<size_t> next;
  std::vector<Head> heap;
  for (auto &[stream, list] : runs) {
    if (list.empty())
      continue;
    if (!std::is_sorted(list.begin(), list.end(), before))
      std::sort(list.begin(), list.end(), before);
    heap.push_back({list.front(), lists.size()});
    lists.push_back(&list);
    next.push_back(1);
  }
  auto later = [&](const Head &a, const Head &b) {
    return before(b.first, a.first);
  };
  std::make_heap(heap.begin(), heap.end(), later);
  IntervalUnion busy;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    auto [index, run] = heap.back();
    heap.pop_back();
    if (next[run] < lists[run]->size()) {
      heap.push_back({(*lists[run])[next[run]++], run});
      std::push_heap(heap.begin(), heap.end(), later);
    }
    const ScheduledKernel &k = kernels[index];
    if (!kernelsOnly || specs[k.spec].group.empty())
      busy.add(k.startUs, endOf(k, specs));
  }
  return busy.length();
}

using HostClocks = std::map<int64_t, double>;
using StreamClocks = std::map<StreamKey, StreamState>;
/// Per device, the driver's launch queue.
using LaunchQueues = std::map<int64_t, LaunchQueue>;

/// One step: walks the ops in launch order from the clocks as they stand,
/// filling the result fields of every op and kernel.
static void walkStep(std::vector<ScheduledOp> &opList,
                     std::vector<ScheduledKernel> &kernelList,
                     const std::vector<OpSpec> &opSpecs,
                     const std::vector<KernelSpec> &kernelSpecs,
                     const std::vector<uint32_t> &depList,
                     std::vector<OpTimes> *opTimes, HostClocks &hostTime,
                     StreamClocks &streams, LaunchQueues &queues,
                     const ScheduleOptions &options) {
  auto streamOf = [&](int64_t device, int64_t stream) -> StreamState & {
    return streams[{device, stream}];
  };

  for (size_t i = 0, e = opList.size(); i < e; ++i) {
    ScheduledOp &op = opList[i];
    const OpSpec &spec = opSpecs[op.spec];
    double &host = hostTime[spec.device];
    const double hostStart = host;
    auto done = [&] {
      if (opTimes)
        (*opTimes)[i] = {hostStart, host};
    };
    host += spec.t1;

    if (spec.kind == OpSpec::Kind::Sync) {
      // The host blocks until the device (or one stream) drains.
      for (auto &[key, state] : streams)
        if (key.first == spec.device &&
            (spec.syncStream < 0 || key.second == spec.syncStream))
          host = std::max(host, state.readyUs);
      // Then the call's own cost (a cudaFree that initializes the
      // allocator, the return from a synchronize).
      host += spec.t5;
      done();
      continue;
    }

    // Data dependencies: the producing ops' device work must be done, and
    // the kernel that finished last is the one waited for.
    double depReady = 0;
    int32_t depKernel = -1;
    size_t depsEnd = i + 1 < e ? opList[i + 1].firstDep : depList.size();
    for (size_t d = op.firstDep; d < depsEnd; ++d) {
      size_t dep = depList[d];
      const ScheduledOp &producer = opList[dep];
      for (size_t k : producer.kernels)
        if (double end = endOf(kernelList[k], kernelSpecs); end > depReady) {
          depReady = end;
          depKernel = static_cast<int32_t>(k);
        }
    }

    if (op.kernels.empty()) {
      host += spec.t5;
      done();
      continue;
    }

    host += spec.t2;
    for (size_t j = 0, n = op.kernels.size(); j < n; ++j) {
      ScheduledKernel &k = kernelList[op.kernels[j]];
      const KernelSpec &ks = kernelSpecs[k.spec];
      // A full launch queue holds the call until the oldest work ends.
      LaunchQueue &queue =
          queues.try_emplace(spec.device, options.launchQueueDepth)
              .first->second;
      host = queue.admit(host);
      // Algorithm 1, line 11: the kernel starts once its stream is free
      // (plus the inter-kernel gap) and half-way through its launch call.
      double launchReady =
          host + launchReadyAfterUs(ks.launchUs, ks.latencyUs, ks.copyInCall);
      double start = launchReady;
      k.boundBy = ScheduledKernel::Bound::Host;
      k.predecessor = -1;
      auto waitFor = [&](double ready, ScheduledKernel::Bound why,
                         int32_t pred) {
        if (ready > start) {
          start = ready;
          k.boundBy = why;
          k.predecessor = pred;
        }
      };
      if (ks.group.empty()) {
        StreamState &s = streamOf(ks.device, ks.stream);
        waitFor(s.last >= 0 ? s.readyUs + options.kernelGapUs : 0,
                ScheduledKernel::Bound::Stream, s.last);
      } else {
        // A collective starts when every participant's stream is free.
        for (int64_t d : ks.group) {
          StreamState &s = streamOf(d, ks.stream);
          waitFor(s.last >= 0 ? s.readyUs + options.kernelGapUs : 0,
                  d == ks.device ? ScheduledKernel::Bound::Stream
                                 : ScheduledKernel::Bound::Participants,
                  s.last);
        }
      }
      waitFor(depReady, ScheduledKernel::Bound::Dependency, depKernel);
      k.startUs = start;
      const double end = start + ks.latencyUs;
      size_t index = op.kernels[j];
      if (ks.group.empty()) {
        StreamState &s = streamOf(ks.device, ks.stream);
        s.readyUs = end;
        s.last = static_cast<int32_t>(index);
      } else {
        for (int64_t d : ks.group) {
          StreamState &s = streamOf(d, ks.stream);
          s.readyUs = end;
          s.last = static_cast<int32_t>(index);
        }
      }
      queue.launched(end);
      host += ks.launchUs;
      if (j + 1 != n)
        host += spec.t5;
    }
    host += spec.t3;
    done();
  }
  for (auto &[device, host] : hostTime)
    host += options.hostTailUs;
}

/// When everything walked so far is done: the last host thread or stream.
static double stepEnd(const HostClocks &hostTime, const StreamClocks &streams) {
  double end = 0;
  for (const auto &[device, t] : hostTime)
    end = std::max(end, t);
  for (const auto &[key, state] : streams)
    end = std::max(end, state.readyUs);
  return end;
}

ScheduleResult Schedule::run(const ScheduleOptions &options) {
  HostClocks hostTime;
  StreamClocks streams;
  LaunchQueues queues;
  ScheduleResult result;
  opTimeList.clear();
  if (options.opTimes)
    opTimeList.resize(opList.size());
  std::vector<OpTimes> *opTimes = options.opTimes ? &opTimeList : nullptr;
  walkStep(opList, kernelList, opSpecs, kernelSpecs, depList, opTimes, hostTime,
           streams, queues, options);

  // Totals per device: its busy intervals per stream.
  std::map<int64_t, Runs> busy;
  std::set<int64_t> communicates;
  std::map<int64_t, DeviceTimes> devices;
  int64_t lastKernel = -1;
  double lastKernelEnd = -1;
  for (size_t i = 0; i < kernelList.size(); ++i) {
    const ScheduledKernel &k = kernelList[i];
    const KernelSpec &ks = kernelSpecs[k.spec];
    const double end = endOf(k, kernelSpecs);
    result.sumKernelUs += ks.latencyUs;
    // A kernel keeps its device busy, a collective every participant.
    const int64_t device = ks.device;
    const int64_t *where = ks.group.empty() ? &device : ks.group.data();
    const int64_t *whereEnd = where + (ks.group.empty() ? 1 : ks.group.size());
    for (const int64_t *it = where; it != whereEnd; ++it) {
      int64_t d = *it;
      busy[d][ks.stream].push_back(static_cast<uint32_t>(i));
      if (!ks.group.empty())
        communicates.insert(d);
      DeviceTimes &dt = devices[d];
      dt.device = d;
      dt.endUs = std::max(dt.endUs, end);
    }
    if (end > lastKernelEnd) {
      lastKernelEnd = end;
      lastKernel = static_cast<int64_t>(i);
    }
  }
  for (auto &[d, runs] : busy)
    devices[d].activeUs =
        unionLength(runs, kernelList, kernelSpecs, /*kernelsOnly=*/false);
  // Exposed communication: busy time minus the time some kernel covers.
  for (int64_t d : communicates)
    devices[d].exposedCommUs =
        devices[d].activeUs -
        unionLength(busy[d], kernelList, kernelSpecs, /*kernelsOnly=*/true);
  for (auto &[d, t] : hostTime) {
    DeviceTimes &dt = devices[d];
    dt.device = d;
    dt.hostEndUs = t;
    result.hostUs = std::max(result.hostUs, t);
  }
  for (auto &[d, dt] : devices) {
    result.e2eUs = std::max({result.e2eUs, dt.endUs, dt.hostEndUs});
    result.gpuActiveUs = std::max(result.gpuActiveUs, dt.activeUs);
    result.devices.push_back(dt);
  }
  result.idleUs = result.e2eUs - result.gpuActiveUs;
  result.hostBound = result.hostUs > lastKernelEnd;

  // Walk back from the kernel that ends last along what each waited for.
  for (int64_t k = lastKernel; k >= 0; k = kernelList[k].predecessor) {
    result.criticalPath.push_back(static_cast<size_t>(k));
    if (result.criticalPath.size() > kernelList.size())
      break; // Defensive: predecessors always point backwards.
  }
  std::reverse(result.criticalPath.begin(), result.criticalPath.end());

  // More steps of the same loop, from the clocks the first one left; the
  // first step's per-op and per-kernel times are what the caller reads.
  result.steadyStateUs = result.e2eUs;
  if (options.iterations > 1) {
    std::vector<OpTimes> firstOpTimes = opTimeList;
    std::vector<ScheduledKernel> firstKernels = kernelList;
    double previousEnd = stepEnd(hostTime, streams);
    for (unsigned i = 1; i < options.iterations; ++i) {
      walkStep(opList, kernelList, opSpecs, kernelSpecs, depList, opTimes,
               hostTime, streams, queues, options);
      double end = stepEnd(hostTime, streams);
      result.steadyStateUs = end - previousEnd;
      previousEnd = end;
    }
    opTimeList = std::move(firstOpTimes);
    kernelList = std::move(firstKernels);
  }
  return result;
}
