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
  // Most ops wait for one or two others: sorted without a sort's call.
  auto mine = depList.begin() + op.firstDep;
  if (deps.size() == 2) {
    if (mine[0] > mine[1])
      std::swap(mine[0], mine[1]);
    else if (mine[0] == mine[1])
      depList.pop_back();
  } else if (deps.size() > 2) {
    std::sort(mine, depList.end());
    depList.erase(std::unique(mine, depList.end()), depList.end());
  }
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

/// The clocks a walk keeps, in slots that each spec names once: a step has
/// a few host threads and streams and millions of launches, so a launch
/// finds its clocks by index rather than by a map lookup.
struct Clocks {
  /// Per host thread (a device's), with whether an op ran on it yet.
  std::vector<int64_t> hostDevice;
  std::vector<double> host;
  std::vector<uint8_t> hostUsed;
  /// Per host thread: the driver's launch queue of its device.
  std::vector<LaunchQueue> queues;
  /// Per (device, stream); a stream no kernel ran on has `last` -1.
  std::vector<StreamState> streams;
  /// Per op spec: its host thread, and for a Sync the streams it waits for.
  std::vector<uint32_t> opHost;
  std::vector<llvm::SmallVector<uint32_t, 2>> syncStreams;
  /// Per kernel spec: its stream, or a collective's participants' streams.
  std::vector<llvm::SmallVector<uint32_t, 1>> kernelStreams;

  Clocks(const std::vector<OpSpec> &opSpecs,
         const std::vector<KernelSpec> &kernelSpecs, unsigned queueDepth) {
    std::map<int64_t, uint32_t> hostSlots;
    std::map<StreamKey, uint32_t> streamSlots;
    auto streamSlot = [&](int64_t device, int64_t stream) {
      auto [it, fresh] = streamSlots.try_emplace(
          {device, stream}, static_cast<uint32_t>(streams.size()));
      if (fresh)
        streams.emplace_back();
      return it->second;
    };
    for (const KernelSpec &ks : kernelSpecs) {
      llvm::SmallVector<uint32_t, 1> slots;
      if (ks.group.empty())
        slots.push_back(streamSlot(ks.device, ks.stream));
      for (int64_t d : ks.group)
        slots.push_back(streamSlot(d, ks.stream));
      kernelStreams.push_back(std::move(slots));
    }
    for (const OpSpec &spec : opSpecs)
      hostSlots.try_emplace(spec.device, 0);
    // Host threads in the order of their devices, as the results list them.
    for (auto &[device, slot] : hostSlots) {
      slot = static_cast<uint32_t>(hostDevice.size());
      hostDevice.push_back(device);
    }
    host.assign(hostDevice.size(), 0);
    hostUsed.assign(hostDevice.size(), 0);
    queues.assign(hostDevice.size(), LaunchQueue(queueDepth));
    for (const OpSpec &spec : opSpecs) {
      opHost.push_back(hostSlots[spec.device]);
      llvm::SmallVector<uint32_t, 2> waits;
      if (spec.kind == OpSpec::Kind::Sync)
        for (auto &[key, slot] : streamSlots)
          if (key.first == spec.device &&
              (spec.syncStream < 0 || key.second == spec.syncStream))
            waits.push_back(slot);
      syncStreams.push_back(std::move(waits));
    }
  }
};
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
/// after the one before it ends), so the runs are merged by their starts
/// instead of sorted (the union's length does not depend on the order of
/// intervals that start together); a run that is not in order (a negative
/// kernel gap) is sorted first.
static double unionLength(Runs &runs,
                          const std::vector<ScheduledKernel> &kernels,
                          const std::vector<KernelSpec> &specs,
                          bool kernelsOnly) {
  auto earlier = [&](uint32_t a, uint32_t b) {
    return kernels[a].startUs < kernels[b].startUs;
  };
  // The unmerged rest of each run.
  llvm::SmallVector<llvm::ArrayRef<uint32_t>, 4> rest;
  for (auto &[stream, list] : runs) {
    if (list.empty())
      continue;
    if (!std::is_sorted(list.begin(), list.end(), earlier))
      std::stable_sort(list.begin(), list.end(), earlier);
    rest.push_back(list);
  }
  // A heap of the runs' next intervals where a device has many streams; a
  // scan of the few heads otherwise, which is cheaper than a heap's moves.
  constexpr size_t kScanned = 8;
  using Head = std::pair<uint32_t, size_t>; // a kernel, its run
  auto later = [&](const Head &a, const Head &b) {
    return earlier(b.first, a.first);
  };
  std::vector<Head> heap;
  if (rest.size() > kScanned) {
    for (size_t r = 0; r < rest.size(); ++r)
      heap.push_back({rest[r].front(), r});
    std::make_heap(heap.begin(), heap.end(), later);
  }
  auto next = [&]() -> int64_t {
    if (rest.size() <= kScanned) {
      int64_t best = -1;
      for (size_t r = 0; r < rest.size(); ++r)
        if (!rest[r].empty() &&
            (best < 0 || earlier(rest[r].front(), rest[best].front())))
          best = static_cast<int64_t>(r);
      if (best < 0)
        return -1;
      uint32_t index = rest[best].front();
      rest[best] = rest[best].drop_front();
      return index;
    }
    if (heap.empty())
      return -1;
    std::pop_heap(heap.begin(), heap.end(), later);
    auto [index, run] = heap.back();
    heap.pop_back();
    rest[run] = rest[run].drop_front();
    if (!rest[run].empty()) {
      heap.push_back({rest[run].front(), run});
      std::push_heap(heap.begin(), heap.end(), later);
    }
    return index;
  };
  IntervalUnion busy;
  for (int64_t index = next(); index >= 0; index = next()) {
    const ScheduledKernel &k = kernels[index];
    if (!kernelsOnly || specs[k.spec].group.empty())
      busy.add(k.startUs, endOf(k, specs));
  }
  return busy.length();
}

/// One step: walks the ops in launch order from the clocks as they stand,
/// filling the result fields of every op and kernel.
static void walkStep(std::vector<ScheduledOp> &opList,
                     std::vector<ScheduledKernel> &kernelList,
                     const std::vector<OpSpec> &opSpecs,
                     const std::vector<KernelSpec> &kernelSpecs,
                     const std::vector<uint32_t> &depList,
                     std::vector<OpTimes> *opTimes, Clocks &clocks,
                     const ScheduleOptions &options) {
  for (size_t i = 0, e = opList.size(); i < e; ++i) {
    ScheduledOp &op = opList[i];
    const OpSpec &spec = opSpecs[op.spec];
    const uint32_t hostSlot = clocks.opHost[op.spec];
    clocks.hostUsed[hostSlot] = 1;
    double &host = clocks.host[hostSlot];
    const double hostStart = host;
    auto done = [&] {
      if (opTimes)
        (*opTimes)[i] = {hostStart, host};
    };
    host += spec.t1;

    if (spec.kind == OpSpec::Kind::Sync) {
      // The host blocks until the device (or one stream) drains.
      for (uint32_t s : clocks.syncStreams[op.spec])
        if (clocks.streams[s].last >= 0)
          host = std::max(host, clocks.streams[s].readyUs);
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
    LaunchQueue &queue = clocks.queues[hostSlot];
    for (size_t j = 0, n = op.kernels.size(); j < n; ++j) {
      ScheduledKernel &k = kernelList[op.kernels[j]];
      const KernelSpec &ks = kernelSpecs[k.spec];
      // A full launch queue holds the call until the oldest work ends.
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
      // A kernel's own stream, or every participant's of a collective,
      // which starts when all of them are free.
      llvm::ArrayRef<uint32_t> streams = clocks.kernelStreams[k.spec];
      for (size_t p = 0; p < streams.size(); ++p) {
        const StreamState &s = clocks.streams[streams[p]];
        bool own = ks.group.empty() || ks.group[p] == ks.device;
        waitFor(s.last >= 0 ? s.readyUs + options.kernelGapUs : 0,
                own ? ScheduledKernel::Bound::Stream
                    : ScheduledKernel::Bound::Participants,
                s.last);
      }
      waitFor(depReady, ScheduledKernel::Bound::Dependency, depKernel);
      k.startUs = start;
      const double end = start + ks.latencyUs;
      const int32_t index = static_cast<int32_t>(op.kernels[j]);
      for (uint32_t slot : streams) {
        clocks.streams[slot].readyUs = end;
        clocks.streams[slot].last = index;
      }
      queue.launched(end);
      host += ks.launchUs;
      if (j + 1 != n)
        host += spec.t5;
    }
    host += spec.t3;
    done();
  }
  for (size_t h = 0; h < clocks.host.size(); ++h)
    if (clocks.hostUsed[h])
      clocks.host[h] += options.hostTailUs;
}

/// When everything walked so far is done: the last host thread or stream.
static double stepEnd(const Clocks &clocks) {
  double end = 0;
  for (size_t h = 0; h < clocks.host.size(); ++h)
    if (clocks.hostUsed[h])
      end = std::max(end, clocks.host[h]);
  for (const StreamState &state : clocks.streams)
    end = std::max(end, state.readyUs);
  return end;
}

ScheduleResult Schedule::run(const ScheduleOptions &options) {
  Clocks clocks(opSpecs, kernelSpecs, options.launchQueueDepth);
  ScheduleResult result;
  opTimeList.clear();
  if (options.opTimes)
    opTimeList.resize(opList.size());
  std::vector<OpTimes> *opTimes = options.opTimes ? &opTimeList : nullptr;
  walkStep(opList, kernelList, opSpecs, kernelSpecs, depList, opTimes, clocks,
           options);

  // Totals per device: its busy intervals per stream.
  std::map<int64_t, Runs> busy;
  std::set<int64_t> communicates;
  std::map<int64_t, DeviceTimes> devices;
  int64_t lastKernel = -1;
  double lastKernelEnd = -1;
  // Where a spec's launches go: the busy run and the totals of each device
  // it keeps busy (a kernel its device, a collective every participant),
  // found once per spec rather than per launch.
  struct Busy {
    std::vector<uint32_t> *run;
    DeviceTimes *times;
  };
  std::vector<llvm::SmallVector<Busy, 1>> busyOf(kernelSpecs.size());
  for (size_t i = 0; i < kernelList.size(); ++i) {
    const ScheduledKernel &k = kernelList[i];
    const KernelSpec &ks = kernelSpecs[k.spec];
    const double end = endOf(k, kernelSpecs);
    result.sumKernelUs += ks.latencyUs;
    llvm::SmallVector<Busy, 1> &where = busyOf[k.spec];
    if (where.empty()) {
      const int64_t device = ks.device;
      llvm::ArrayRef<int64_t> group = ks.group.empty()
                                          ? llvm::ArrayRef<int64_t>(device)
                                          : llvm::ArrayRef<int64_t>(ks.group);
      for (int64_t d : group) {
        if (!ks.group.empty())
          communicates.insert(d);
        DeviceTimes &dt = devices[d];
        dt.device = d;
        where.push_back({&busy[d][ks.stream], &dt});
      }
    }
    for (const Busy &b : where) {
      b.run->push_back(static_cast<uint32_t>(i));
      b.times->endUs = std::max(b.times->endUs, end);
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
  for (size_t h = 0; h < clocks.host.size(); ++h) {
    if (!clocks.hostUsed[h])
      continue;
    int64_t d = clocks.hostDevice[h];
    DeviceTimes &dt = devices[d];
    dt.device = d;
    dt.hostEndUs = clocks.host[h];
    result.hostUs = std::max(result.hostUs, clocks.host[h]);
  }
  for (auto &[d, dt] : devices) {
    result.e2eUs = std::max({result.e2eUs, dt.endUs, dt.hostEndUs});
    result.gpuActiveUs = std::max(result.gpuActiveUs, dt.activeUs);
    result.devices.push_back(dt);
  }
  result.idleUs = result.e2eUs - result.gpuActiveUs;

  // Walk back from the kernel that ends last along what each waited for.
  for (int64_t k = lastKernel; k >= 0; k = kernelList[k].predecessor) {
    result.criticalPath.push_back(static_cast<size_t>(k));
    if (result.criticalPath.size() > kernelList.size())
      break; // Defensive: predecessors always point backwards.
  }
  std::reverse(result.criticalPath.begin(), result.criticalPath.end());
  // The host bounds the step when it finishes last, or when the device
  // kept busy without waiting for a launch only in the step's last half:
  // the chain of kernels that ends the step starts with a kernel that
  // waited for its launch, after half the step.
  double chainStart =
      result.criticalPath.empty()
          ? 0
          : kernelList[result.criticalPath.front()].startUs;
  result.hostBound = result.hostUs > lastKernelEnd ||
                     (result.e2eUs > 0 && chainStart > 0.5 * result.e2eUs);

  // More steps of the same loop, from the clocks the first one left; the
  // first step's per-op and per-kernel times are what the caller reads.
  result.steadyStateUs = result.e2eUs;
  if (options.iterations > 1) {
    std::vector<OpTimes> firstOpTimes = opTimeList;
    std::vector<ScheduledKernel> firstKernels = kernelList;
    double previousEnd = stepEnd(clocks);
    for (unsigned i = 1; i < options.iterations; ++i) {
      walkStep(opList, kernelList, opSpecs, kernelSpecs, depList, opTimes,
               clocks, options);
      double end = stepEnd(clocks);
      result.steadyStateUs = end - previousEnd;
      previousEnd = end;
    }
    opTimeList = std::move(firstOpTimes);
    kernelList = std::move(firstKernels);
  }
  return result;
}
