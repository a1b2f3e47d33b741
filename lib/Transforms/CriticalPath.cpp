//===- CriticalPath.cpp - --perf-critical-path ----------------------------===//
//
// Lowers each graph to the MLIR-free Schedule, runs it, and writes the times
// back as attributes.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Schedule/LaunchList.h"
#include "perf/Schedule/Schedule.h"
#include "perf/Schedule/Timeline.h"
#include "perf/Support/HugePages.h"
#include "perf/Support/KernelSignature.h"
#include "perf/Support/Limits.h"
#include "perf/Support/TupleKeyInfo.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/GraphWalk.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ReportOutput.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"

namespace perf {
#define GEN_PASS_DEF_CRITICALPATH
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

static double getF64(WorkAttr work, StringRef name, double dflt = 0) {
  if (auto attr = work.getAs<FloatAttr>(name))
    return attr.getValueAsDouble();
  return dflt;
}

namespace {
struct CriticalPathPass : perf::impl::CriticalPathBase<CriticalPathPass> {
  using CriticalPathBase::CriticalPathBase;

  /// Where the timeline goes in process (createCriticalPath(options,
  /// timeline)); null: the `timeline` file, if named.
  std::string *timelineSink = nullptr;
  bool wantsTimeline() const { return timelineSink || !timeline.empty(); }

  // Options are checked before any pass runs.
  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    if (iterations == 0)
      return emitError(loc, "--perf-critical-path: iterations must be at "
                            "least 1");
    if (!withinLimit(iterations, kMaxIterations))
      return emitError(loc, "--perf-critical-path: ")
             << limitExceeded("iterations", iterations, kMaxIterations);
    return success();
  }

  void runOnOperation() override {
    timelineEvents = llvm::json::Array();
    launchGraphs = llvm::json::Array();
    nextFlowId = 0;
    graphsSeen = 0;
    readWorkCache.clear();
    if (failed(forEachGraph(getOperation(),
                            [&](GraphOp graph) { return runOnGraph(graph); })))
      return signalPassFailure();
    // The estimate's times are attributes: no op is added or removed, no
    // work list changes its length (the report's memory analysis reads the
    // size next).
    markAnalysesPreserved<UnrolledSizeAnalysis>();
    if (wantsTimeline()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      printTimeline(os, timelineEvents);
      if (timelineSink)
        *timelineSink = std::move(text);
      else if (failed(writeReport(getOperation(), timeline, text,
                                  /*json=*/true)))
        signalPassFailure();
    }
    if (!launchList.empty()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      printLaunchList(os, std::move(launchGraphs));
      if (failed(writeReport(getOperation(), launchList, text, /*json=*/true)))
        signalPassFailure();
    }
  }

  /// The name of each host op (a framework op's, else the op's own).
  static std::vector<std::string> opNames(ArrayRef<Operation *> hostOps) {
    std::vector<std::string> names;
    names.reserve(hostOps.size());
    for (Operation *op : hostOps)
      names.push_back(isa<FrameworkOp>(op)
                          ? cast<FrameworkOp>(op).getOpName().str()
                          : op->getName().getStringRef().str());
    return names;
  }

  /// Calls `each` with every piece of work of `hostOps`, in the
  /// schedule's order (the host ops' work lists one after the other), its
  /// op, and its label. A step repeats its kernels: `describe` makes each
  /// distinct piece's label once.
  template <typename Label>
  static void forEachLabelledWork(
      ArrayRef<Operation *> hostOps, function_ref<Label(WorkAttr)> describe,
      function_ref<void(FrameworkOp, WorkAttr, const Label &)> each) {
    llvm::DenseMap<WorkAttr, Label> described;
    for (Operation *op : hostOps) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw)
        continue;
      for (WorkAttr work : fw.getWorkList()) {
        auto it = described.find(work);
        if (it == described.end())
          it = described.try_emplace(work, describe(work)).first;
        each(fw, work, it->second);
      }
    }
  }

  /// What a launch list says of a graph's ops and kernels, in the
  /// schedule's order: a kernel's database key, a collective's bytes.
  static LaunchGraph launchLabels(GraphOp graph,
                                  ArrayRef<Operation *> hostOps) {
    LaunchGraph labels;
    labels.name = graph.getSymName().str();
    if (GpuAttr gpu = graph.getGpuTarget())
      labels.device = gpu.getSpec().name;
    labels.opNames = opNames(hostOps);
    forEachLabelledWork<LaunchKernel>(
        hostOps,
        [](WorkAttr work) {
          LaunchKernel k;
          if (work.isKernel()) {
            KernelDesc desc = work.getKernelDesc();
            k.kind = kernelKindName(desc.kind).str();
            k.dtype = dtypeName(desc.dtype).str();
            k.signature = kernelSignature(desc);
          } else {
            CollectiveDesc desc = work.getCollectiveDesc();
            k.kind = work.getKindName().str();
            k.dtype = dtypeName(desc.dtype).str();
            k.bytes = desc.bytes;
          }
          return k;
        },
        [&](FrameworkOp, WorkAttr, const LaunchKernel &k) {
          labels.kernels.push_back(k);
        });
    return labels;
  }

  /// The names and figures the timeline shows for a graph's ops and kernels,
  /// in the schedule's order.
  static TimelineGraph timelineLabels(GraphOp graph,
                                      ArrayRef<Operation *> hostOps) {
    TimelineGraph labels;
    labels.name = graph.getSymName().str();
    labels.device = "unknown GPU";
    if (GpuAttr gpu = graph.getGpuTarget())
      labels.device = gpu.getSpec().name;
    labels.opNames = opNames(hostOps);
    forEachLabelledWork<TimelineKernel>(
        hostOps,
        [](WorkAttr work) {
          TimelineKernel d;
          if (work.isKernel()) {
            KernelDesc desc = work.getKernelDesc();
            d.kind = kernelKindName(desc.kind).str();
            d.flops = desc.totalFlops();
            d.bytes = desc.totalBytes();
          } else {
            d.kind = work.getKindName().str();
          }
          if (auto kernel = dyn_cast<KernelWork>(work))
            d.name = kernel.getKernelName().str();
          if (auto model = work.getAs<StringAttr>(kCostModelAttr))
            d.model = model.str();
          // Measured on hardware: the latency the trace gave, kept in
          // perf.measured_latency_us once moved to another GPU.
          if (hasMeasuredLatency(work)) {
            d.measuredStartUs = getF64(work, kMeasuredStartAttr, -1);
            d.measuredLatencyUs =
                getF64(work, kMeasuredLatencyAttr, getF64(work, kLatencyAttr));
          }
          return d;
        },
        [&](FrameworkOp fw, WorkAttr work, const TimelineKernel &d) {
          TimelineKernel k = d;
          // A kernel without its library name is named by its op.
          auto kernel = dyn_cast<KernelWork>(work);
          if (!kernel || kernel.getKernelName().empty())
            k.name = fw.getOpName().str() + " " + k.kind;
          labels.kernels.push_back(std::move(k));
        });
    return labels;
  }

  llvm::json::Array timelineEvents;
  llvm::json::Array launchGraphs;
  int64_t nextFlowId = 0;
  int64_t graphsSeen = 0;

  /// What the schedule needs of a host op, read from its attributes and
  /// kept in the schedule as specs; the same for every copy of a repeated
  /// op.
  struct HostOpTemplate {
    uint32_t opSpec = 0;
    SmallVector<uint32_t, 2> kernelSpecs;
  };

  /// What the schedule needs of a piece of work, the same wherever it is
  /// launched (but for a collective's device, its op's); failure when it
  /// has no price. A step launches the same work many times: each distinct
  /// piece is read once.
  llvm::DenseMap<WorkAttr, KernelSpec> readWorkCache;

  FailureOr<KernelSpec> readWork(WorkAttr work) {
    if (auto it = readWorkCache.find(work); it != readWorkCache.end())
      return it->second;
    auto latency = work.getAs<FloatAttr>(kLatencyAttr);
    if (!latency)
      return failure();
    KernelSpec k;
    k.latencyUs = latency.getValueAsDouble();
    k.launchUs = getF64(work, kLaunchAttr);
    k.copyInCall = work.has(kCopyInCallAttr);
    k.stream = work.getStreamId();
    if (work.isKernel()) {
      k.device = work.getDeviceId();
    } else {
      ArrayRef<int64_t> group = work.getGroupIds();
      k.group.assign(group.begin(), group.end());
    }
    readWorkCache.try_emplace(work, k);
    return k;
  }

  /// Reads what the schedule needs of `op` and keeps it in `schedule`.
  FailureOr<HostOpTemplate> readHostOp(Operation &op, Schedule &schedule) {
    HostOpTemplate t;
    OpSpec sop;
    if (auto sync = dyn_cast<SyncOp>(op)) {
      sop.kind = OpSpec::Kind::Sync;
      sop.device = sync.getDevice();
      sop.syncStream = sync.getStream() ? int64_t(*sync.getStream()) : -1;
      if (auto o = getDiscardable<DenseF64ArrayAttr>(&op, kOverheadAttr)) {
        sop.t1 = o[0];
        // The call's own cost after the wait (--perf-host-overhead).
        if (o.size() == 4)
          sop.t5 = o[3];
      }
      t.opSpec = schedule.addOpSpec(sop);
      return t;
    }
    auto fw = dyn_cast<FrameworkOp>(op);
    if (!fw)
      return op.emitOpError("cannot be scheduled inside a perf.graph");
    sop.device = fw.getDevice();
    if (auto o = getDiscardable<DenseF64ArrayAttr>(&op, kOverheadAttr)) {
      if (o.size() != 4)
        return op.emitOpError("'perf.overhead_us' must hold T1, T2, T3, "
                              "T5");
      sop.t1 = o[0];
      sop.t2 = o[1];
      sop.t3 = o[2];
      sop.t5 = o[3];
    }
    for (WorkAttr work : fw.getWorkList()) {
      FailureOr<KernelSpec> k = readWork(work);
      if (failed(k))
        return fw.emitWorkError(work)
               << "has no 'perf.latency_us'; run --perf-kernel-cost (and "
                  "--perf-comm-cost for collectives) first";
      // A collective runs on the device of the op that launches it, which
      // takes part.
      if (work.isCollective()) {
        k->device = fw.getDevice();
        if (!llvm::is_contained(k->group, k->device))
          k->group.push_back(k->device);
      }
      t.kernelSpecs.push_back(schedule.addKernelSpec(std::move(*k)));
    }
    t.opSpec = schedule.addOpSpec(sop);
    return t;
  }

  LogicalResult runOnGraph(GraphOp graph) {
    Schedule schedule;
    // The schedule's ops are the unrolled graph's host ops in the order
    // UnrolledWalk visits them: op i is instance i. A kernel-less op i
    // forwards its dependencies, schedule.deps(i).
    // The dependencies of the op being read.
    SmallVector<uint32_t, 8> deps;
    // Host ops in the schedule's order, a repeated op once per copy: for
    // the per-op annotations, the timeline and the launch list only (8
    // bytes an op that an estimate does not need). Op i's kernels are
    // schedule.ops()[i].kernels, its work list in order.
    const bool keepOps = annotate || wantsTimeline() || !launchList.empty();
    SmallVector<Operation *> hostOps;
    // What the schedule reads of a framework op is its device, its work
    // list and its perf.* attributes: ops alike in these (every copy of a
    // repeated op, and the layers of a step written out) share one template,
    // read once.
    // The device by its attribute: uniqued, so equal devices are one
    // pointer, and reading the integer out of it is dearer than the lookup.
    using TemplateKey = std::tuple<ArrayAttr, DictionaryAttr, IntegerAttr>;
    std::vector<HostOpTemplate> templateList;
    llvm::DenseMap<TemplateKey, unsigned, TupleKeyInfo<TemplateKey>> templates;
    // A repeat body's ops come again in every copy: after the first, their
    // template is found by the op (a pointer's hash) instead of the key,
    // which reads the op's attributes again.
    llvm::DenseMap<Operation *, unsigned> bodyTemplates;

    const UnrolledWalk::Size &size =
        getChildAnalysis<UnrolledSizeAnalysis>(graph).size;
    schedule.reserve(size.hostOps, size.deviceWork);
    if (keepOps)
      reserveHuge(hostOps, size.hostOps);
    UnrolledWalk unrolled;
    unrolled.reserve(size);
    LogicalResult walked = unrolled.run(graph, [&](Operation *op, CopyId copy) {
      HostOpTemplate read;
      const HostOpTemplate *t = &read;
      if (auto fw = dyn_cast<FrameworkOp>(op)) {
        auto known = copy != 0 ? bodyTemplates.find(op) : bodyTemplates.end();
        unsigned index;
        if (known != bodyTemplates.end()) {
          index = known->second;
        } else {
          auto [it, fresh] = templates.try_emplace(
              TemplateKey{fw.getWorkAttr(), op->getDiscardableAttrDictionary(),
                          fw.getDeviceAttr()},
              unsigned(templateList.size()));
          if (fresh) {
            FailureOr<HostOpTemplate> r = readHostOp(*op, schedule);
            if (failed(r))
              return failure();
            templateList.push_back(std::move(*r));
          }
          index = it->second;
          if (copy != 0)
            bodyTemplates.try_emplace(op, index);
        }
        t = &templateList[index];
      } else {
        FailureOr<HostOpTemplate> r = readHostOp(*op, schedule);
        if (failed(r))
          return failure();
        read = std::move(*r);
      }
      deps.clear();
      if (auto fw = dyn_cast<FrameworkOp>(op)) {
        for (Value input : fw.getInputs()) {
          std::optional<UnrolledWalk::Producer> from =
              unrolled.producerOf(input, copy);
          if (!from)
            continue;
          size_t producer = from->instance;
          // A kernel-less producer (Reshape, or an op emptied by fusion)
          // stands for its own producers.
          if (schedule.ops()[producer].kernels.empty())
            deps.append(schedule.deps(producer).begin(),
                        schedule.deps(producer).end());
          else
            deps.push_back(producer);
        }
        for (uint32_t k : t->kernelSpecs)
          schedule.addKernel(k);
      }
      schedule.addOp(t->opSpec, deps);
      if (keepOps)
        hostOps.push_back(op);
      return success();
    });
    if (failed(walked))
      return failure();

    ScheduleOptions options;
    options.kernelGapUs = kernelGap;
    options.iterations = iterations;
    // Only the annotations and the timeline read when each op ran.
    options.opTimes = annotate || wantsTimeline();
    // Checked by the dialect's verifier: 0 to UINT32_MAX.
    if (auto depth = graph->getAttrOfType<IntegerAttr>(kLaunchQueueDepthAttr))
      options.launchQueueDepth = static_cast<unsigned>(depth.getInt());
    // Checked by the dialect's verifier: finite, non-negative.
    if (auto tail = graph->getAttrOfType<FloatAttr>(kHostTailAttr))
      options.hostTailUs = tail.getValueAsDouble();
    ScheduleResult result = schedule.run(options);
    if (!launchList.empty())
      launchGraphs.push_back(
          launchListGraph(schedule, result, launchLabels(graph, hostOps)));
    if (wantsTimeline()) {
      // Graphs share the trace, a thousand process ids apart.
      appendTimelineEvents(schedule, timelineLabels(graph, hostOps),
                           1000 * graphsSeen++, nextFlowId, timelineEvents);
    }

    Builder b(&getContext());
    // Per-op times are for reading the IR; without it (an estimate whose IR
    // is not printed) they are most of this pass's cost on large graphs.
    if (annotate) {
      // Both times in one new attribute dictionary per op and kernel (a
      // setAttr each would unique two dictionaries per op, the second one
      // discarding the first), and one new work list per op. An op in a
      // repeat body keeps the times of its last copy.
      StringAttr startName = b.getStringAttr(kStartAttr);
      StringAttr endName = b.getStringAttr(kEndAttr);
      auto setTimes = [&](NamedAttrList &attrs, double startUs, double endUs) {
        attrs.set(startName, b.getF64FloatAttr(startUs));
        attrs.set(endName, b.getF64FloatAttr(endUs));
      };
      const std::vector<ScheduledKernel> &kernels = schedule.kernels();
      SmallVector<WorkAttr> work;
      for (auto [index, op, sop] : llvm::enumerate(hostOps, schedule.ops())) {
        NamedAttrList attrs(op->getDiscardableAttrDictionary());
        const OpTimes &times = schedule.opTimes(index);
        setTimes(attrs, times.hostStartUs, times.hostEndUs);
        op->setDiscardableAttrs(attrs.getDictionary(&getContext()));
        auto fw = dyn_cast<FrameworkOp>(op);
        if (!fw || !fw.hasWork())
          continue;
        work.assign(fw.getWorkList().begin(), fw.getWorkList().end());
        for (size_t i = 0, e = work.size(); i < e; ++i) {
          size_t k = sop.kernels[i];
          work[i] = work[i].with([&](NamedAttrList &pieceAttrs) {
            setTimes(pieceAttrs, kernels[k].startUs, schedule.endUs(k));
          });
        }
        fw.setWorkList(work);
      }
    }

    SmallVector<Attribute> devices;
    for (const DeviceTimes &d : result.devices)
      devices.push_back(b.getDictionaryAttr({
          b.getNamedAttr("device", b.getI64IntegerAttr(d.device)),
          b.getNamedAttr("active_us", b.getF64FloatAttr(d.activeUs)),
          b.getNamedAttr("end_us", b.getF64FloatAttr(d.endUs)),
          b.getNamedAttr("host_end_us", b.getF64FloatAttr(d.hostEndUs)),
          b.getNamedAttr("exposed_comm_us", b.getF64FloatAttr(d.exposedCommUs)),
      }));
    SmallVector<int64_t> path(result.criticalPath.begin(),
                              result.criticalPath.end());
    SmallVector<double> pathTimes;
    for (size_t k : result.criticalPath) {
      pathTimes.push_back(schedule.kernels()[k].startUs);
      pathTimes.push_back(schedule.endUs(k));
    }
    SmallVector<NamedAttribute> estimate = {
        b.getNamedAttr("e2e_us", b.getF64FloatAttr(result.e2eUs)),
        b.getNamedAttr("gpu_active_us", b.getF64FloatAttr(result.gpuActiveUs)),
        b.getNamedAttr("idle_us", b.getF64FloatAttr(result.idleUs)),
        b.getNamedAttr("host_us", b.getF64FloatAttr(result.hostUs)),
        b.getNamedAttr("sum_kernel_us", b.getF64FloatAttr(result.sumKernelUs)),
        b.getNamedAttr("host_bound", b.getBoolAttr(result.hostBound)),
        b.getNamedAttr("devices", b.getArrayAttr(devices)),
        b.getNamedAttr("critical_path", b.getDenseI64ArrayAttr(path)),
        b.getNamedAttr("critical_path_times_us",
                       b.getDenseF64ArrayAttr(pathTimes)),
    };
    if (iterations > 1) {
      estimate.push_back(b.getNamedAttr(
          "steady_state_us", b.getF64FloatAttr(result.steadyStateUs)));
      estimate.push_back(b.getNamedAttr(
          "iterations", b.getI64IntegerAttr(int64_t(iterations))));
    }
    graph->setAttr(kEstimateAttr, b.getDictionaryAttr(estimate));
    return success();
  }
};
} // namespace

std::unique_ptr<Pass>
perf::createCriticalPath(const CriticalPathOptions &options,
                         std::string &timeline) {
  auto pass = std::make_unique<CriticalPathPass>(options);
  pass->timelineSink = &timeline;
  return pass;
}
