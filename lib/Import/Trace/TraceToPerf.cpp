//===- TraceToPerf.cpp - Build the perf dialect from PyTorch traces -------===//
//
// One perf.op per top-level operator, in launch order. With an Execution
// Trace, operands and results follow tensor ids (the last op that wrote a
// tensor produces it), and kernels are inferred from op names and shapes
// (TraceKernels.h). A linked Kineto trace then supplies what ran: each
// measured device event takes the place of the next inferred kernel of the
// same class (so it keeps its typed shape for transforms), or becomes a
// generic kernel / copy of its own; inferred kernels that did not run are
// dropped. Measured kernels carry perf.latency_us with
// perf.cost_model = "measured", and their device and stream.
//
//===----------------------------------------------------------------------===//

#include "perf/Import/ImportTranslation.h"
#include "perf/Import/TraceImport.h"
#include "perf/Import/TraceKernels.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfAttrs.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/GpuSpec.h"
#include "perf/Trace/ExecutionTrace.h"
#include "perf/Trace/KinetoTrace.h"
#include "perf/Trace/TraceAnalysis.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

using namespace perf;
using namespace perf::trace;
using namespace mlir;

namespace {

Type tensorType(MLIRContext *ctx, const TensorArg &t) {
  SmallVector<int64_t> dims;
  for (int64_t d : t.shape)
    dims.push_back(d < 0 ? ShapedType::kDynamic : d);
  return RankedTensorType::get(
      dims, getElementType(ctx, dtypeFromTraceName(t.dtype)));
}

/// Builds the graph and counts what the warnings report.
class GraphBuilder {
public:
  GraphBuilder(MLIRContext *ctx, Location loc) : ctx(ctx), b(ctx), loc(loc) {}

  MLIRContext *ctx;
  OpBuilder b;
  Location loc;
  unsigned measuredKernels = 0, typedMeasured = 0, droppedInferred = 0;
  unsigned invalidInferred = 0, syncs = 0;
  /// Whether an inferred kernel was above the dialect's limits (reported;
  /// the import fails rather than price the op without it).
  bool kernelBeyondLimits = false;
  /// Start of the measured iteration, when known before the kernels are
  /// built.
  std::optional<double> origin;
  /// The trace the measured events come from (their launching calls).
  const KinetoTrace *trace = nullptr;
  llvm::MapVector<StringRef, unsigned> unknownOps;
  std::vector<std::string> unknownStorage;

  /// `work` as `event` ran it: its measured time, placement and name.
  WorkAttr withLatency(WorkAttr work, const DeviceEvent &event) {
    // Its launch is priced as the call that made it (a memset's
    // cudaMemsetAsync, a ROCm trace's hipLaunchKernel), as the replay does;
    // the usual one goes unsaid. A call that launched several events (a
    // cudaGraphLaunch) is paid once in the replay, and a kernel pays its
    // own launch, so those kernels keep their kind's.
    StringAttr launchCall;
    if (trace && event.runtimeIndex >= 0) {
      const RuntimeCall &call = trace->runtimeCalls()[event.runtimeIndex];
      if (call.launched.size() == 1 && call.name != defaultLaunchCall(work))
        launchCall = b.getStringAttr(call.name);
    }
    ++measuredKernels;
    WorkAttr placed = work.withDevice(event.device).withStream(event.stream);
    if (auto kernel = dyn_cast<KernelWork>(placed))
      placed = kernel.withKernelName(event.name);
    return placed.with([&](NamedAttrList &attrs) {
      attrs.set(kLatencyAttr, b.getF64FloatAttr(event.dur));
      // Where the trace ran it, from the iteration's start: the predicted
      // timeline shows it beside the prediction.
      if (origin)
        attrs.set(kMeasuredStartAttr,
                  b.getF64FloatAttr(std::max(0.0, event.start - *origin)));
      attrs.set(kCostModelAttr, b.getStringAttr("measured"));
      if (launchCall)
        attrs.set(kLaunchCallAttr, launchCall);
      if (copiesPageableMemory(event))
        attrs.set(kCopyInCallAttr, b.getUnitAttr());
      if (work.isCollective())
        attrs.set("trace.kernel_name", b.getStringAttr(event.name));
    });
  }

  /// The inferred work; null when its sizes are not all positive (shapes
  /// the trace did not record).
  WorkAttr buildKernel(const DeviceWork &work, int64_t device) {
    WorkAttr built;
    if (const auto *kernel = std::get_if<KernelDesc>(&work)) {
      FailureOr<WorkAttr> kernelWork = buildKernelWork(ctx, *kernel, [&] {
        return emitError(loc) << "an inferred kernel is beyond the limits: ";
      });
      if (failed(kernelWork))
        kernelBeyondLimits = true;
      else
        built = *kernelWork;
    } else {
      const auto &collective = std::get<CollectiveDesc>(work);
      SmallVector<int64_t> group;
      for (int64_t r = 0; r < collective.groupSize; ++r)
        group.push_back(r);
      if (!llvm::is_contained(group, device))
        group.push_back(device);
      FailureOr<WorkAttr> collectiveWork =
          buildCollectiveWork(ctx, collective, group, [&] {
            return emitError(loc)
                   << "an inferred collective is beyond the limits: ";
          });
      if (failed(collectiveWork))
        kernelBeyondLimits = true;
      else
        built = *collectiveWork;
    }
    if (!built) {
      ++invalidInferred;
      return nullptr;
    }
    built = built.withDevice(device);
    return built;
  }

  /// A measured event no inferred kernel describes; null when it is beyond
  /// the limits (reported; the import fails).
  WorkAttr buildMeasured(const DeviceEvent &e) {
    KernelDesc d;
    if (e.kind == DeviceEventKind::Memcpy && e.bytes > 0) {
      d.kind = KernelKind::Memcpy;
      StringRef n(e.name);
      d.copyKind = n.contains("HtoD")   ? MemcpyKind::HostToDevice
                   : n.contains("DtoH") ? MemcpyKind::DeviceToHost
                                        : MemcpyKind::DeviceToDevice;
      d.bytes = static_cast<double>(e.bytes);
    } else {
      d.bytes = static_cast<double>(std::max<int64_t>(e.bytes, 0));
    }
    FailureOr<WorkAttr> work = buildKernelWork(ctx, d, [&] {
      return emitError(loc)
             << "device event '" << e.name << "' is beyond the limits: ";
    });
    if (failed(work)) {
      kernelBeyondLimits = true;
      return nullptr;
    }
    return withLatency(*work, e);
  }

  /// The device work of one op, appended to `work`: measured events matched
  /// to the inferred kernels when `measured` is given, else the inferred
  /// kernels.
  void emitWork(ArrayRef<DeviceWork> inferred,
                const std::vector<const DeviceEvent *> *measured,
                int64_t device, SmallVectorImpl<WorkAttr> &work) {
    if (!measured) {
      for (const DeviceWork &k : inferred)
        if (WorkAttr built = buildKernel(k, device))
          work.push_back(built);
      return;
    }
    std::vector<bool> used(inferred.size(), false);
    for (const DeviceEvent *e : *measured) {
      StringRef cls = classifyDeviceEvent(*e);
      WorkAttr built;
      for (size_t i = 0; i < inferred.size() && !built; ++i) {
        if (used[i] || !measuredMatches(cls, inferred[i]))
          continue;
        used[i] = true;
        built = buildKernel(inferred[i], e->device);
      }
      if (built) {
        work.push_back(withLatency(built, *e));
        ++typedMeasured;
      } else if (WorkAttr measured = buildMeasured(*e)) {
        work.push_back(measured);
      }
    }
    droppedInferred += llvm::count(used, false);
  }

  void noteUnknown(const std::vector<std::string> &names) {
    for (const std::string &n : names) {
      unknownStorage.push_back(n);
      ++unknownOps[StringAttr::get(ctx, n).getValue()];
    }
  }

  void warnUnknown() {
    if (unknownOps.empty())
      return;
    unsigned total = 0;
    std::string list;
    std::vector<std::pair<StringRef, unsigned>> sorted(unknownOps.begin(),
                                                       unknownOps.end());
    llvm::stable_sort(sorted,
                      [](auto &a, auto &b) { return a.second > b.second; });
    for (auto [name, count] : sorted) {
      total += count;
      if (list.size() < 200)
        list += (list.empty() ? "" : ", ") + name.str() + " x" +
                std::to_string(count);
    }
    emitWarning(loc) << total
                     << " ops have no kernel rule and launch nothing: " << list;
  }
};

/// The op's own measured device events, in launch order.
std::vector<const DeviceEvent *> measuredEvents(const KinetoTrace &trace,
                                                size_t opIndex) {
  std::vector<const DeviceEvent *> events;
  for (size_t d : trace.deviceEventsOf(opIndex))
    events.push_back(&trace.deviceEvents()[d]);
  return events;
}

/// Whether the host waits for the device inside op `opIndex`.
/// What op `opIndex` waited for the device on, in order: its synchronizing
/// runtime calls (by name, with the stream a cudaStreamSynchronize waited
/// for when the trace tells it), or one unnamed wait for a device-to-host
/// copy into pageable memory (it returns when the copy is done).
struct DeviceWait {
  std::string call;
  std::optional<std::pair<int64_t, int64_t>> stream;
};
std::vector<DeviceWait> deviceWaits(const KinetoTrace &trace, size_t opIndex) {
  std::vector<DeviceWait> waits;
  bool copiesBack = false;
  for (size_t c : trace.ops()[opIndex].runtimeCalls) {
    const RuntimeCall &call = trace.runtimeCalls()[c];
    if (call.isSynchronizing() && call.launched.empty())
      waits.push_back({call.name, call.syncedStream});
    for (size_t d : call.launched) {
      const DeviceEvent &e = trace.deviceEvents()[d];
      copiesBack |= e.kind == DeviceEventKind::Memcpy &&
                    StringRef(e.name).contains("DtoH");
    }
  }
  if (waits.empty() && copiesBack)
    waits.push_back({});
  return waits;
}

/// A perf.sync per wait of op `opIndex`, naming the synchronizing call so
/// its own cost (perf-trace's table, runtime.<call>) is priced after it.
/// Returns the first (null if the op waits for nothing).
SyncOp emitWaits(GraphBuilder &gb, const KinetoTrace &trace, size_t opIndex,
                 int64_t device) {
  SyncOp first;
  for (const DeviceWait &wait : deviceWaits(trace, opIndex)) {
    IntegerAttr stream;
    if (wait.stream && wait.stream->first == device)
      stream = gb.b.getI64IntegerAttr(wait.stream->second);
    auto sync =
        SyncOp::create(gb.b, gb.loc, gb.b.getI64IntegerAttr(device), stream);
    if (!wait.call.empty())
      sync->setAttr("call", gb.b.getStringAttr(wait.call));
    ++gb.syncs;
    if (!first)
      first = sync;
  }
  return first;
}

/// The ops a cross-stream wait orders, as (waiting op, op waited for) pairs
/// of top-level op indices: the op waited for launched the last device work
/// on the recorded stream before the cudaEventRecord, the waiting op the
/// first on the waiting stream after the cudaStreamWaitEvent. Only ops that
/// start in `span` take part, walked in host order.
std::map<size_t, std::vector<size_t>> waitEdges(const KinetoTrace &trace,
                                                const StepSpan &span) {
  std::map<size_t, std::vector<size_t>> edges;
  const std::vector<StreamWait> &waits = trace.streamWaits();
  if (waits.empty())
    return edges;
  using StreamKey = std::pair<int64_t, int64_t>;
  std::map<StreamKey, size_t> lastOpOn;
  std::map<size_t, size_t> recordedOp; // wait -> op waited for
  std::map<StreamKey, std::vector<size_t>> pending;
  for (size_t index : trace.topLevelOps()) {
    const HostOp &host = trace.ops()[index];
    if (host.start < span.start || host.start >= span.end())
      continue;
    for (size_t c : host.runtimeCalls) {
      for (size_t w : trace.waitsRecordedBy(c)) {
        auto last = lastOpOn.find({waits[w].device, waits[w].waitOnStream});
        if (last != lastOpOn.end())
          recordedOp[w] = last->second;
      }
      for (size_t w : trace.waitsIssuedBy(c))
        if (auto op = recordedOp.find(w); op != recordedOp.end())
          pending[{waits[w].device, waits[w].stream}].push_back(op->second);
      for (size_t d : trace.runtimeCalls()[c].launched) {
        const DeviceEvent &e = trace.deviceEvents()[d];
        StreamKey key{e.device, e.stream};
        lastOpOn[key] = index;
        auto waiting = pending.find(key);
        if (waiting == pending.end())
          continue;
        for (size_t from : waiting->second)
          if (from != index && !llvm::is_contained(edges[index], from))
            edges[index].push_back(from);
        pending.erase(waiting);
      }
    }
  }
  return edges;
}

/// The device most measured events ran on (the GPU of this rank).
int64_t primaryDevice(const KinetoTrace &trace) {
  std::map<int64_t, unsigned> counts;
  for (const DeviceEvent &e : trace.deviceEvents())
    ++counts[e.device];
  int64_t best = 0;
  unsigned bestCount = 0;
  for (auto [d, n] : counts)
    if (n > bestCount) {
      best = d;
      bestCount = n;
    }
  return best;
}

/// The catalog GPU of a deviceProperties name: the name or an alias, else
/// the chip family of a board variant the catalog does not list (DGX Station
/// V100s, A100 PG509), with a remark.
const GpuSpec *catalogGpuOf(StringRef name, Location loc) {
  if (const GpuSpec *spec = lookupGpu(name))
    return spec;
  std::string lower = name.lower();
  for (StringRef family : {"h200", "h100", "a100", "a10", "l40s", "l4", "v100",
                           "t4", "p100", "p4", "mi300x", "mi250x"}) {
    if (!StringRef(lower).contains(family))
      continue;
    std::string key = family.str();
    if (family == "a100" && StringRef(lower).contains("80gb"))
      key += "-80gb";
    const GpuSpec *spec = lookupGpu(key);
    if (spec)
      emitRemark(loc) << "GPU '" << name << "' from deviceProperties is "
                      << "priced as catalog GPU " << spec->name;
    return spec;
  }
  return nullptr;
}

/// The GPU the trace ran on (--trace-device, else the catalog GPU of its
/// deviceProperties) becomes the graph's target and `perf.measured_on`, the
/// GPU its measured kernels move from. A GPU the catalog does not know
/// leaves both unset and keeps what deviceProperties says of it
/// (`perf.trace_device`): a step of measured kernels needs nothing more.
LogicalResult setTarget(GraphOp graph, const KinetoTrace &trace,
                        const TraceImportOptions &options, Location loc) {
  std::optional<GpuSpec> spec;
  const KinetoTrace::GpuProperties &props = trace.gpuProperties();
  if (!options.traceDevice.empty()) {
    llvm::Expected<GpuSpec> named =
        StringRef(options.traceDevice).ends_with(".json")
            ? loadGpuSpecFile(options.traceDevice)
            : lookupGpuOrError(options.traceDevice);
    if (!named) {
      emitError(loc) << "--trace-device: " << llvm::toString(named.takeError());
      return failure();
    }
    spec = *named;
  } else if (!props.name.empty()) {
    if (const GpuSpec *known = catalogGpuOf(props.name, loc))
      spec = *known;
  }
  Builder b(graph.getContext());
  if (!spec) {
    emitWarning(loc) << (props.name.empty()
                             ? std::string("the Kineto trace has no "
                                           "deviceProperties")
                             : "GPU '" + props.name +
                                   "' from deviceProperties is not in the "
                                   "catalog")
                     << ": measured kernels are estimated as measured; a "
                        "kernel without a measurement, or a move to another "
                        "GPU, needs its figures (--trace-device=<device "
                        "JSON>)";
    // What the trace recorded; traces written before these fields lack them.
    SmallVector<NamedAttribute> known{b.getNamedAttr(
        "name",
        b.getStringAttr(props.name.empty() ? "unnamed GPU" : props.name))};
    if (props.numSms > 0)
      known.push_back(b.getNamedAttr("sms", b.getI64IntegerAttr(props.numSms)));
    if (props.memBytes > 0)
      known.push_back(b.getNamedAttr(
          "mem_gib",
          b.getF64FloatAttr(props.memBytes / (1024.0 * 1024 * 1024))));
    if (props.computeMajor > 0)
      known.push_back(b.getNamedAttr(
          "compute_capability",
          b.getStringAttr(std::to_string(props.computeMajor) + "." +
                          std::to_string(props.computeMinor))));
    graph->setAttr(kTraceDeviceAttr, b.getDictionaryAttr(known));
    return success();
  }
  auto gpu = GpuAttr::get(graph.getContext(), *spec);
  graph.setTargetAttr(gpu);
  graph->setAttr(kMeasuredOnAttr, gpu);
  return success();
}

void setMeasured(GraphOp graph, const StepSpan &span) {
  Builder b(graph.getContext());
  graph->setAttr(kMeasuredTimeAttr, b.getF64FloatAttr(span.dur));
  graph->setAttr(kMeasuredIterationAttr, b.getStringAttr(span.name));
}

bool isTrainingOpName(StringRef name) {
  return name.contains("Backward") || name.contains("backward") ||
         name.starts_with("Optimizer.") || name.contains("_foreach_") ||
         name.contains("_fused_adam") || name.contains("_fused_sgd");
}

/// The iteration windows of a Kineto trace, as perf-trace computes them.
std::vector<StepSpan> iterationWindows(const KinetoTrace &trace,
                                       const TraceImportOptions &options) {
  if (!options.iterationMarker.empty())
    return trace.spansFromMarker(options.iterationMarker);
  return trace.iterations();
}

OwningOpRef<ModuleOp> createModule(MLIRContext *ctx, Location loc,
                                   GraphOp &graph) {
  ctx->loadDialect<PerfDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module->getBody());
  graph = GraphOp::create(b, loc, "step");
  return module;
}

} // namespace

/// Imports the trace read from `path`.
static OwningOpRef<ModuleOp> importKineto(MLIRContext *ctx, StringRef path,
                                          llvm::Expected<KinetoTrace> loaded,
                                          const TraceImportOptions &options) {
  Location loc = FileLineColLoc::get(ctx, path, 0, 0);
  if (!loaded) {
    emitInputError(loc, loaded.takeError());
    return nullptr;
  }
  KinetoTrace &trace = *loaded;
  if (trace.topLevelOps().empty()) {
    emitError(loc) << "the Kineto trace has no operator events (cpu_op)";
    return nullptr;
  }
  std::vector<StepSpan> windows = iterationWindows(trace, options);
  StepSpan span = wholeTraceSpan(trace);
  if (options.iteration >= 0 && !windows.empty()) {
    if (options.iteration >= static_cast<int64_t>(windows.size())) {
      emitError(loc) << "--iteration=" << options.iteration
                     << " is out of range: the trace has " << windows.size()
                     << " iterations";
      return nullptr;
    }
    span = windows[options.iteration];
  } else if (options.iteration >= 0 && !options.iterationMarker.empty()) {
    emitError(loc) << "no iterations found with --iteration-marker="
                   << options.iterationMarker;
    return nullptr;
  } else {
    span.name = "whole trace";
  }

  GraphOp graph;
  OwningOpRef<ModuleOp> module = createModule(ctx, loc, graph);
  GraphBuilder gb(ctx, loc);
  gb.trace = &trace;
  OpBuilder &b = gb.b;
  module->getOperation()->setAttr("trace.kineto", b.getStringAttr(path));
  if (failed(setTarget(graph, trace, options, loc)))
    return nullptr;
  setMeasured(graph, span);
  gb.origin = span.start;
  int64_t device = primaryDevice(trace);

  b.setInsertionPointToEnd(&graph.getBodyBlock());
  bool training = false;
  unsigned ops = 0;
  // A cross-stream wait is a dependency of the waiting op on the op waited
  // for, carried by a `none` result (no tensor flows; the order does).
  std::map<size_t, std::vector<size_t>> waitsFor = waitEdges(trace, span);
  std::set<size_t> waitedFor;
  for (auto &[to, from] : waitsFor)
    waitedFor.insert(from.begin(), from.end());
  std::map<size_t, Value> orderToken;
  // The window of the last op seen: the first op of each iteration enters
  // the iteration (HostOverheadTable::kIterationRegion).
  size_t window = 0;
  std::optional<size_t> enteredWindow;
  for (size_t index : trace.topLevelOps()) {
    const HostOp &host = trace.ops()[index];
    if (host.start < span.start || host.start >= span.end())
      continue;
    ++ops;
    while (window < windows.size() && windows[window].end() <= host.start)
      ++window;
    bool opensIteration = window < windows.size() &&
                          host.start >= windows[window].start &&
                          enteredWindow != window;
    if (opensIteration)
      enteredWindow = window;
    StringRef region = regionEnteredBy(trace, host, opensIteration);
    training |= isTrainingOpName(host.name);
    TracedOp traced;
    traced.name = host.name;
    for (size_t i = 0; i < host.inputDims.size(); ++i) {
      TracedTensor t;
      t.shape = host.inputDims[i];
      if (i < host.inputTypes.size())
        t.dtype = host.inputTypes[i];
      traced.inputs.push_back(std::move(t));
    }
    std::vector<DeviceWork> inferred;
    inferOpKernels(traced, options.worldSize, inferred);
    std::vector<const DeviceEvent *> events = measuredEvents(trace, index);
    // A synchronizing call made outside every operator is the wait alone:
    // its perf.sync takes the call's own row of the overhead table, and the
    // region it enters.
    if (host.isBareRuntimeCall && events.empty() &&
        !deviceWaits(trace, index).empty()) {
      SyncOp sync = emitWaits(gb, trace, index, device);
      if (!region.empty())
        sync->setAttr(kEnteredRegionAttr, b.getStringAttr(region));
      continue;
    }
    OperationState state(loc, FrameworkOp::getOperationName());
    state.addAttribute("op_name", b.getStringAttr(host.name));
    if (!region.empty())
      state.addAttribute(kEnteredRegionAttr, b.getStringAttr(region));
    if (device != 0)
      state.addAttribute("device", b.getI64IntegerAttr(device));
    if (auto it = waitsFor.find(index); it != waitsFor.end())
      for (size_t from : it->second)
        if (auto token = orderToken.find(from); token != orderToken.end())
          state.addOperands(token->second);
    bool isWaitedFor = waitedFor.count(index);
    if (isWaitedFor)
      state.addTypes(b.getNoneType());
    auto op = cast<FrameworkOp>(b.create(state));
    if (isWaitedFor)
      orderToken[index] = op->getResult(0);
    if (!events.empty()) {
      SmallVector<WorkAttr> work;
      gb.emitWork(inferred, &events, device, work);
      op.setWorkList(work);
    }
    emitWaits(gb, trace, index, device);
  }
  graph.setPhase(training ? "training" : "inference");
  module->getOperation()->setAttr("trace.measured_kernels",
                                  b.getI64IntegerAttr(gb.measuredKernels));
  if (ops == 0) {
    emitError(loc) << "no top-level operator starts inside '" << span.name
                   << "'";
    return nullptr;
  }
  if (gb.kernelBeyondLimits)
    return nullptr;
  const KinetoLinkStats &stats = trace.linkStats();
  if (stats.deviceUnlinked || stats.otherProcessEvents)
    emitWarning(loc) << stats.deviceUnlinked << " of " << stats.deviceEvents
                     << " device events are not linked to a runtime call and "
                     << stats.otherProcessEvents
                     << " events of other processes are ignored";
  return module;
}

OwningOpRef<ModuleOp>
perf::importKinetoTrace(MLIRContext *ctx, StringRef path,
                        const TraceImportOptions &options) {
  return importKineto(ctx, path, KinetoTrace::load(path), options);
}

OwningOpRef<ModuleOp>
perf::importKinetoTrace(MLIRContext *ctx, llvm::MemoryBufferRef file,
                        const TraceImportOptions &options) {
  return importKineto(
      ctx, file.getBufferIdentifier(),
      KinetoTrace::loadBytes(file.getBuffer(), file.getBufferIdentifier()),
      options);
}

/// Imports the execution trace read from `path`.
static OwningOpRef<ModuleOp> importEt(MLIRContext *ctx, StringRef path,
                                      llvm::Expected<ExecutionTrace> loaded,
                                      const TraceImportOptions &options) {
  Location loc = FileLineColLoc::get(ctx, path, 0, 0);
  if (!loaded) {
    emitInputError(loc, loaded.takeError());
    return nullptr;
  }
  ExecutionTrace &et = *loaded;
  if (et.topLevelOps().empty()) {
    emitError(loc) << "the execution trace has no operators";
    return nullptr;
  }

  std::optional<KinetoTrace> kineto;
  // Keyed by the trace's ids, any int64 (DenseMap reserves two).
  std::unordered_map<int64_t, size_t> kinetoOpOfNode;
  if (!options.kinetoPath.empty()) {
    llvm::Expected<KinetoTrace> k = KinetoTrace::load(options.kinetoPath);
    if (!k) {
      emitInputError(FileLineColLoc::get(ctx, options.kinetoPath, 0, 0),
                     k.takeError());
      return nullptr;
    }
    kineto.emplace(std::move(*k));
    KinetoTrace::EtLinkResult link = kineto->linkExecutionTrace(et);
    for (size_t index : kineto->topLevelOps())
      if (kineto->ops()[index].etNode >= 0)
        kinetoOpOfNode[kineto->ops()[index].etNode] = index;
    if (link.linked == 0) {
      emitError(loc) << "no op of the Kineto trace '" << options.kinetoPath
                     << "' links to the execution trace (pid " << et.pid()
                     << " vs " << kineto->hostPid() << ", " << link.nameMismatch
                     << " name mismatches)";
      return nullptr;
    }
    size_t etOps = et.topLevelOps().size();
    if (link.pidMismatch || link.linked < etOps)
      emitWarning(loc) << "linked " << link.linked << " of " << etOps
                       << " ET ops to the Kineto trace"
                       << (link.alignedByName ? " by op-name alignment" : "")
                       << " (" << link.nameMismatch << " name mismatches"
                       << (link.pidMismatch
                               ? ", pid " + std::to_string(et.pid()) +
                                     " differs from the Kineto host pid " +
                                     std::to_string(kineto->hostPid())
                               : std::string())
                       << "); unlinked ops keep their inferred kernels";
  }

  GraphOp graph;
  OwningOpRef<ModuleOp> module = createModule(ctx, loc, graph);
  GraphBuilder gb(ctx, loc);
  OpBuilder &b = gb.b;
  module->getOperation()->setAttr("trace.et", b.getStringAttr(path));
  module->getOperation()->setAttr("trace.schema", b.getStringAttr(et.schema()));
  if (et.brokenParentLinks())
    module->getOperation()->setAttr(
        "trace.broken_parent_links",
        b.getI64IntegerAttr(et.brokenParentLinks()));
  int64_t device = 0;
  if (kineto) {
    gb.trace = &*kineto;
    module->getOperation()->setAttr("trace.kineto",
                                    b.getStringAttr(options.kinetoPath));
    if (failed(setTarget(graph, *kineto, options, loc)))
      return nullptr;
    device = primaryDevice(*kineto);
  }

  b.setInsertionPointToEnd(&graph.getBodyBlock());
  std::unordered_map<int64_t, Value> tensorValue;
  bool training = false;
  double firstStart = -1, lastEnd = 0;
  for (size_t index : et.topLevelOps()) {
    const ExecNode &node = et.nodes()[index];
    training |= isTrainingOpName(node.name);
    SmallVector<Value> operands;
    for (const TensorArg &t : node.inputs) {
      auto it = tensorValue.find(t.tensorId);
      if (it != tensorValue.end() && !llvm::is_contained(operands, it->second))
        operands.push_back(it->second);
    }
    OperationState state(NameLoc::get(b.getStringAttr(node.name), loc),
                         FrameworkOp::getOperationName());
    state.addOperands(operands);
    for (const TensorArg &t : node.outputs)
      state.addTypes(tensorType(ctx, t));
    state.addAttribute("op_name", b.getStringAttr(node.name));
    state.addAttribute("trace.node", b.getI64IntegerAttr(node.id));
    if (device != 0)
      state.addAttribute("device", b.getI64IntegerAttr(device));
    auto op = cast<FrameworkOp>(b.create(state));
    for (auto [t, result] : llvm::zip(node.outputs, op->getResults()))
      tensorValue[t.tensorId] = result;

    std::vector<std::string> unknown;
    std::vector<DeviceWork> inferred =
        inferNodeKernels(et, index, options.worldSize, &unknown);
    std::optional<size_t> kIndex;
    if (kineto)
      if (auto it = kinetoOpOfNode.find(node.id); it != kinetoOpOfNode.end())
        kIndex = it->second;
    std::vector<const DeviceEvent *> events;
    if (kIndex) {
      events = measuredEvents(*kineto, *kIndex);
      const HostOp &host = kineto->ops()[*kIndex];
      if (StringRef region = kineto->enteredRegion(host); !region.empty())
        op->setAttr(kEnteredRegionAttr, b.getStringAttr(region));
      if (firstStart < 0)
        firstStart = host.start;
      lastEnd = std::max(lastEnd, host.end());
      for (const DeviceEvent *e : events)
        lastEnd = std::max(lastEnd, e->end());
    } else {
      gb.noteUnknown(unknown);
    }
    SmallVector<WorkAttr> work;
    gb.emitWork(inferred, kIndex ? &events : nullptr, device, work);
    op.setWorkList(work);
    if (kIndex)
      emitWaits(gb, *kineto, *kIndex, device);
  }
  graph.setPhase(training ? "training" : "inference");

  if (kineto && firstStart >= 0) {
    // The measured iteration: the ProfilerStep (or marker span) holding the
    // first linked op, else the linked ops' own extent.
    StepSpan span{"linked ops", firstStart, lastEnd - firstStart};
    for (const StepSpan &s : iterationWindows(*kineto, options))
      if (firstStart >= s.start && firstStart < s.end()) {
        span = s;
        break;
      }
    setMeasured(graph, span);
    module->getOperation()->setAttr("trace.measured_kernels",
                                    b.getI64IntegerAttr(gb.measuredKernels));
  }
  if (gb.kernelBeyondLimits)
    return nullptr;
  gb.warnUnknown();
  if (gb.invalidInferred)
    emitWarning(loc) << gb.invalidInferred
                     << " inferred kernels have unknown shapes and are left "
                        "out";
  return module;
}

OwningOpRef<ModuleOp>
perf::importExecutionTrace(MLIRContext *ctx, StringRef path,
                           const TraceImportOptions &options) {
  return importEt(ctx, path, ExecutionTrace::load(path), options);
}

OwningOpRef<ModuleOp>
perf::importExecutionTrace(MLIRContext *ctx, llvm::MemoryBufferRef file,
                           const TraceImportOptions &options) {
  return importEt(
      ctx, file.getBufferIdentifier(),
      ExecutionTrace::loadBytes(file.getBuffer(), file.getBufferIdentifier()),
      options);
}

void perf::registerTraceImportTranslations() {
  static llvm::cl::opt<std::string> kinetoFile(
      "kineto",
      llvm::cl::desc("Kineto trace to link to --import-pytorch-et (measured "
                     "kernels, streams, GPU)"),
      llvm::cl::init(""));
  static llvm::cl::opt<int64_t> iteration(
      "iteration",
      llvm::cl::desc("Iteration of a Kineto trace to import with "
                     "--import-kineto (ProfilerStep index; -1: whole trace)"),
      llvm::cl::init(0));
  static llvm::cl::opt<std::string> marker(
      "iteration-marker",
      llvm::cl::desc("Host event name prefix whose successive starts delimit "
                     "iterations (traces without ProfilerStep#N)"),
      llvm::cl::init(""));
  static llvm::cl::opt<int64_t> worldSize(
      "world-size",
      llvm::cl::desc("Ranks of collectives whose group the trace omits"),
      llvm::cl::init(0));
  static llvm::cl::opt<std::string> traceDevice(
      "trace-device",
      llvm::cl::desc("GPU the Kineto trace ran on: catalog name or device "
                     "JSON (default: the catalog GPU of its deviceProperties)"),
      llvm::cl::init(""));
  auto options = [] {
    TraceImportOptions o;
    o.traceDevice = traceDevice;
    o.kinetoPath = kinetoFile;
    o.iteration = iteration;
    o.iterationMarker = marker;
    o.worldSize = worldSize;
    return o;
  };
  registerImportTranslation(
      "import-pytorch-et",
      "Import a PyTorch Execution Trace (.json[.gz]) as a perf.graph",
      [options](const std::shared_ptr<llvm::SourceMgr> &mgr,
                MLIRContext *ctx) -> OwningOpRef<Operation *> {
        // The trace is read from the buffer mlir-translate read, not again.
        OwningOpRef<ModuleOp> module = importExecutionTrace(
            ctx, mgr->getMemoryBuffer(mgr->getMainFileID())->getMemBufferRef(),
            options());
        return OwningOpRef<Operation *>(module.release());
      });
  registerImportTranslation(
      "import-kineto", "Import a Kineto trace (.json[.gz]) as a perf.graph",
      [options](const std::shared_ptr<llvm::SourceMgr> &mgr,
                MLIRContext *ctx) -> OwningOpRef<Operation *> {
        // The trace is read from the buffer mlir-translate read, not again.
        OwningOpRef<ModuleOp> module = importKinetoTrace(
            ctx, mgr->getMemoryBuffer(mgr->getMainFileID())->getMemBufferRef(),
            options());
        return OwningOpRef<Operation *>(module.release());
      });
}
