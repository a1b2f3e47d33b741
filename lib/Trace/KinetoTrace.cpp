//===- KinetoTrace.cpp - Kineto (PyTorch profiler) trace reader -----------===//

#include "perf/Trace/KinetoTrace.h"
#include "perf/Trace/ExecutionTrace.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Trace/TraceFile.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_set>

using namespace llvm;

namespace perf {
namespace trace {

/// An error about the trace file `origin` as a whole (the one format).
static Error traceError(StringRef origin, const Twine &message) {
  return perf::fileError(origin, message);
}

bool RuntimeCall::isSynchronizing() const {
  StringRef n(name);
  return n.contains("Synchronize") || n == "cudaMemcpy" || n == "hipMemcpy" ||
         n == "cudaMemset" || n == "cudaFree";
}

namespace {
enum class EventClass {
  Ignored,
  Operator,
  Annotation,
  Runtime,
  Kernel,
  Memcpy,
  Memset,
  Flow
};
} // namespace

static EventClass classify(StringRef category) {
  return StringSwitch<EventClass>(category)
      .Cases({"cpu_op", "Operator"}, EventClass::Operator)
      .Case("user_annotation", EventClass::Annotation)
      .Cases({"cuda_runtime", "Runtime", "cuda_driver"}, EventClass::Runtime)
      .Cases({"kernel", "Kernel"}, EventClass::Kernel)
      .Cases({"gpu_memcpy", "Memcpy"}, EventClass::Memcpy)
      .Cases({"gpu_memset", "Memset"}, EventClass::Memset)
      .Cases({"ac2g", "async"}, EventClass::Flow)
      .Default(EventClass::Ignored);
}

/// Microsecond timestamp; integers stay exact before the base is subtracted.
static double timestampOf(const json::Value *value, int64_t base) {
  if (!value)
    return 0;
  // Exact in int64 unless the difference overflows (a damaged trace), then
  // in double.
  int64_t difference;
  if (std::optional<int64_t> i = value->getAsInteger())
    return llvm::SubOverflow(*i, base, difference)
               ? static_cast<double>(*i) - static_cast<double>(base)
               : static_cast<double>(difference);
  return value->getAsNumber().value_or(0) - static_cast<double>(base);
}

static int64_t argInteger(const json::Object *args,
                          std::initializer_list<StringRef> keys,
                          int64_t fallback) {
  if (!args)
    return fallback;
  for (StringRef key : keys)
    if (const json::Value *v = args->get(key))
      return asLooseInteger(v, fallback);
  return fallback;
}

static void readDims(const json::Object *args, StringRef key, int64_t out[3]) {
  if (!args)
    return;
  if (const json::Array *dims = args->getArray(key))
    for (size_t i = 0; i < 3 && i < dims->size(); ++i)
      out[i] = (*dims)[i].getAsInteger().value_or(0);
}

Expected<KinetoTrace> KinetoTrace::load(StringRef path) {
  Expected<json::Value> root = perf::readJsonFile(path);
  if (!root)
    return root.takeError();
  return parse(*root, path);
}

Expected<KinetoTrace> KinetoTrace::parse(const json::Value &root,
                                         StringRef origin) {
  const json::Array *events = nullptr;
  const json::Object *top = root.getAsObject();
  if (top)
    events = top->getArray("traceEvents");
  else
    events = root.getAsArray();
  if (!events)
    return traceError(origin, "not a Kineto trace (no \"traceEvents\")");
  if (top) {
    if (const json::Value *version = top->get("schemaVersion")) {
      std::optional<int64_t> v = version->getAsInteger();
      if (!v || *v != 1)
        return traceError(origin, "unknown Kineto schemaVersion (supported: "
                                  "1)");
    }
    if (top->get("nodes") && !top->get("traceEvents"))
      return traceError(origin, "this is an execution trace, not a Kineto "
                                "trace");
  }

  KinetoTrace trace;
  // Pass 1: time base and host process.
  int64_t base = INT64_MAX;
  std::map<int64_t, unsigned> operatorsPerPid;
  for (const json::Value &event : *events) {
    const json::Object *e = event.getAsObject();
    if (!e || e->getString("ph").value_or("") != "X")
      continue;
    if (const json::Value *ts = e->get("ts")) {
      int64_t t = ts->getAsInteger().value_or(
          saturatingInt64(std::floor(ts->getAsNumber().value_or(0))));
      base = std::min(base, t);
    }
    if (classify(e->getString("cat").value_or("")) == EventClass::Operator)
      ++operatorsPerPid[asLooseInteger(e->get("pid"), 0)];
  }
  if (base == INT64_MAX)
    base = 0;
  trace.base = static_cast<double>(base);
  unsigned best = 0;
  for (auto &[p, count] : operatorsPerPid)
    if (count > best) {
      best = count;
      trace.pid = p;
    }

  std::map<int64_t, KinetoTrace::GpuProperties> deviceNames;
  if (top)
    if (const json::Array *props = top->getArray("deviceProperties"))
      for (const json::Value &prop : *props)
        if (const json::Object *p = prop.getAsObject()) {
          KinetoTrace::GpuProperties &gpu =
              deviceNames[p->getInteger("id").value_or(0)];
          gpu.name = p->getString("name").value_or("").str();
          gpu.numSms = p->getInteger("numSms").value_or(0);
          gpu.memBytes = p->getNumber("totalGlobalMem").value_or(0);
          gpu.computeMajor = p->getInteger("computeMajor").value_or(0);
          gpu.computeMinor = p->getInteger("computeMinor").value_or(0);
        }

  // Pass 2: events.
  std::map<int64_t, size_t> runtimeByCorrelation;
  // Flow finish events keyed by (tid, ts in ns): correlation for device
  // events whose args lack it.
  std::map<std::pair<int64_t, int64_t>, int64_t> flowFinish;
  // Flow ids are the trace's, any int64 (DenseSet reserves two).
  std::unordered_set<int64_t> flowStarts, flowEnds;
  std::set<int64_t> threadSet;
  for (const json::Value &event : *events) {
    const json::Object *e = event.getAsObject();
    if (!e)
      continue;
    StringRef phase = e->getString("ph").value_or("");
    EventClass cls = classify(e->getString("cat").value_or(""));
    if (cls == EventClass::Ignored)
      continue;
    const json::Object *args = e->getObject("args");
    double ts = timestampOf(e->get("ts"), base);
    int64_t pidOf = asLooseInteger(e->get("pid"), 0);
    int64_t tid = asLooseInteger(e->get("tid"), 0);
    if (cls == EventClass::Flow) {
      int64_t id = asLooseInteger(e->get("id"), -1);
      if (phase == "s")
        flowStarts.insert(id);
      else if (phase == "f") {
        flowEnds.insert(id);
        flowFinish[{tid, static_cast<int64_t>(std::llround(ts * 1000))}] = id;
      }
      continue;
    }
    if (phase != "X")
      continue;
    double dur = e->getNumber("dur").value_or(0);
    StringRef name = e->getString("name").value_or("");
    switch (cls) {
    case EventClass::Operator:
    case EventClass::Annotation: {
      if (pidOf != trace.pid) {
        ++trace.stats.otherProcessEvents;
        continue;
      }
      if (name.starts_with("ProfilerStep#"))
        trace.stepSpans.push_back({name.str(), ts, dur});
      HostOp op;
      op.name = name.str();
      op.tid = tid;
      op.start = ts;
      op.dur = dur;
      op.externalId = argInteger(args, {"External id", "external id"}, -1);
      op.rfId = argInteger(args, {"Record function id"}, -1);
      op.sequenceNumber = argInteger(args, {"Sequence number"}, -1);
      op.isAnnotation = cls == EventClass::Annotation || isAnnotationName(name);
      if (args) {
        if (const json::Array *dims = args->getArray("Input Dims"))
          for (const json::Value &d : *dims) {
            std::vector<int64_t> shape;
            if (const json::Array *a = d.getAsArray())
              for (const json::Value &x : *a)
                shape.push_back(x.getAsInteger().value_or(-1));
            op.inputDims.push_back(std::move(shape));
          }
        if (const json::Array *types = args->getArray("Input type"))
          for (const json::Value &t : *types)
            op.inputTypes.push_back(t.getAsString().value_or("").str());
      }
      threadSet.insert(tid);
      trace.hostOps.push_back(std::move(op));
      break;
    }
    case EventClass::Runtime: {
      if (pidOf != trace.pid) {
        ++trace.stats.otherProcessEvents;
        continue;
      }
      RuntimeCall call;
      call.name = name.str();
      call.tid = tid;
      call.start = ts;
      call.dur = dur;
      call.correlation = argInteger(args, {"correlation"}, -1);
      if (call.correlation >= 0)
        runtimeByCorrelation[call.correlation] = trace.runtime.size();
      threadSet.insert(tid);
      trace.runtime.push_back(std::move(call));
      break;
    }
    case EventClass::Kernel:
    case EventClass::Memcpy:
    case EventClass::Memset: {
      DeviceEvent d;
      d.kind = cls == EventClass::Kernel   ? DeviceEventKind::Kernel
               : cls == EventClass::Memcpy ? DeviceEventKind::Memcpy
                                           : DeviceEventKind::Memset;
      d.name = name.str();
      d.device = argInteger(args, {"device"}, pidOf);
      d.stream = argInteger(args, {"stream"}, tid);
      d.start = ts;
      d.dur = dur;
      d.correlation = argInteger(args, {"correlation"}, -1);
      if (d.correlation < 0) {
        auto it = flowFinish.find(
            {tid, static_cast<int64_t>(std::llround(ts * 1000))});
        if (it != flowFinish.end())
          d.correlation = it->second;
      }
      readDims(args, "grid", d.grid);
      readDims(args, "block", d.block);
      d.bytes = argInteger(args, {"bytes"}, 0);
      trace.device.push_back(std::move(d));
      break;
    }
    default:
      break;
    }
  }
  for (int64_t id : flowStarts)
    if (flowEnds.count(id))
      ++trace.stats.flowPairs;

  // Device work -> runtime call.
  std::set<std::pair<int64_t, int64_t>> streamSet;
  for (size_t i = 0, e = trace.device.size(); i < e; ++i) {
    DeviceEvent &d = trace.device[i];
    streamSet.insert({d.device, d.stream});
    auto it = runtimeByCorrelation.find(d.correlation);
    if (d.correlation < 0 || it == runtimeByCorrelation.end()) {
      ++trace.stats.deviceUnlinked;
      continue;
    }
    d.runtimeIndex = it->second;
    trace.runtime[it->second].launched.push_back(i);
  }
  trace.stats.deviceEvents = trace.device.size();
  trace.stats.runtimeCalls = trace.runtime.size();
  trace.streamList.assign(streamSet.begin(), streamSet.end());
  trace.threads.assign(threadSet.begin(), threadSet.end());

  // The GPU the kernels ran on (device of the first device event), else
  // device 0.
  int64_t gpuId = trace.device.empty() ? 0 : trace.device.front().device;
  auto nameIt = deviceNames.find(gpuId);
  if (nameIt == deviceNames.end())
    nameIt = deviceNames.begin();
  if (nameIt != deviceNames.end())
    trace.gpu = nameIt->second;

  llvm::sort(trace.stepSpans, [](const StepSpan &a, const StepSpan &b) {
    return a.start < b.start;
  });
  for (const DeviceEvent &d : trace.device)
    trace.deviceEnds.push_back(d.end());
  llvm::sort(trace.deviceEnds);
  trace.buildHostTree();
  return trace;
}

double KinetoTrace::lastDeviceEndAtOrBefore(double time) const {
  auto it = std::upper_bound(deviceEnds.begin(), deviceEnds.end(), time);
  return it == deviceEnds.begin() ? -INFINITY : *std::prev(it);
}

void KinetoTrace::buildHostTree() {
  // Per thread: host events and runtime calls, outer before inner.
  struct Item {
    double start, end;
    bool isRuntime;
    size_t index;
  };
  std::map<int64_t, std::vector<Item>> perThread;
  for (size_t i = 0, e = hostOps.size(); i < e; ++i)
    perThread[hostOps[i].tid].push_back(
        {hostOps[i].start, hostOps[i].end(), false, i});
  for (size_t i = 0, e = runtime.size(); i < e; ++i)
    perThread[runtime[i].tid].push_back(
        {runtime[i].start, runtime[i].end(), true, i});
  // Timestamps rounded by the profiler may make a child end a hair after its
  // parent.
  constexpr double slack = 1e-3;
  for (auto &[tid, items] : perThread) {
    llvm::sort(items, [](const Item &a, const Item &b) {
      if (a.start != b.start)
        return a.start < b.start;
      if (a.end != b.end)
        return a.end > b.end;
      return !a.isRuntime && b.isRuntime;
    });
    // Stack of host events and, per level, the top-level operator at or
    // below it (-1 if none).
    SmallVector<std::pair<size_t, int64_t>> stack;
    for (const Item &item : items) {
      while (!stack.empty() &&
             !(item.start >= hostOps[stack.back().first].start - slack &&
               item.end <= hostOps[stack.back().first].end() + slack))
        stack.pop_back();
      int64_t enclosing = stack.empty() ? -1 : (int64_t)stack.back().first;
      int64_t topOp = stack.empty() ? -1 : stack.back().second;
      if (item.isRuntime) {
        RuntimeCall &call = runtime[item.index];
        call.opIndex = enclosing;
        if (topOp >= 0)
          hostOps[topOp].runtimeCalls.push_back(item.index);
        else
          ++stats.runtimeOutsideOps;
        continue;
      }
      HostOp &op = hostOps[item.index];
      op.parent = enclosing;
      int64_t newTop = topOp;
      if (topOp >= 0)
        hostOps[topOp].nestedStarts.push_back(op.start);
      else if (!op.isAnnotation) {
        newTop = item.index;
        topLevel.push_back(item.index);
      }
      stack.push_back({item.index, newTop});
    }
  }
  llvm::sort(topLevel, [&](size_t a, size_t b) {
    if (hostOps[a].start != hostOps[b].start)
      return hostOps[a].start < hostOps[b].start;
    return hostOps[a].tid < hostOps[b].tid;
  });
}

std::vector<size_t> KinetoTrace::deviceEventsOf(size_t opIndex) const {
  std::vector<size_t> result;
  for (size_t call : hostOps[opIndex].runtimeCalls)
    for (size_t d : runtime[call].launched)
      result.push_back(d);
  return result;
}

std::vector<StepSpan> KinetoTrace::spansFromMarker(StringRef marker) const {
  std::vector<double> starts;
  for (const HostOp &op : hostOps)
    if (StringRef(op.name).starts_with(marker))
      starts.push_back(op.start);
  llvm::sort(starts);
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<StepSpan> spans;
  for (size_t i = 1; i < starts.size(); ++i)
    spans.push_back({formatv("{0}#{1}", marker, i - 1).str(), starts[i - 1],
                     starts[i] - starts[i - 1]});
  return spans;
}

std::vector<StepSpan> KinetoTrace::iterations(std::string *how) const {
  std::vector<StepSpan> spans;
  for (const StepSpan &step : stepSpans)
    if (llvm::any_of(topLevel, [&](size_t index) {
          double start = hostOps[index].start;
          return start >= step.start && start < step.end();
        }))
      spans.push_back(step);
  if (!spans.empty()) {
    if (how) {
      *how = (Twine(spans.size()) + " ProfilerStep spans").str();
      if (spans.size() < stepSpans.size())
        *how += (" (" + Twine(stepSpans.size() - spans.size()) +
                 " without ops left out)")
                    .str();
    }
    return spans;
  }
  // Without ProfilerStep, a training loop still marks its steps: PyTorch's
  // optimizers record Optimizer.zero_grad#... and Optimizer.step#... once
  // per step.
  for (StringRef marker : {"Optimizer.zero_grad", "Optimizer.step"}) {
    spans = spansFromMarker(marker);
    if (spans.empty())
      continue;
    if (how)
      *how = (Twine(spans.size()) + " iterations between '" + marker +
              "' annotations (no ProfilerStep spans)")
                 .str();
    return spans;
  }
  if (how)
    *how = "no ProfilerStep spans and no optimizer step: whole trace as one "
           "iteration";
  return spans;
}

/// The longest common subsequence of `a` and `b`: the index pairs it
/// matches, in order. Exact for up to kMaxCells cells of the dynamic
/// program (one byte each); beyond, `a` is cut to the stretch where `b`'s
/// first and last names occur so the table stays in bounds.
static std::vector<std::pair<size_t, size_t>>
alignSequences(ArrayRef<unsigned> a, ArrayRef<unsigned> b) {
  constexpr size_t kMaxCells = size_t(1) << 27;
  size_t offset = 0;
  if (!b.empty() && a.size() * b.size() > kMaxCells) {
    size_t span = std::max<size_t>(1, kMaxCells / b.size());
    // Start where b's first name first occurs, so a window of one
    // iteration of a long profile lines up.
    auto it = llvm::find(a, b.front());
    offset = it == a.end() ? 0 : size_t(it - a.begin());
    a = a.slice(offset, std::min(span, a.size() - offset));
  }
  size_t n = a.size(), m = b.size();
  // Lengths by rows, and per cell which way the optimum came.
  enum : uint8_t { Diagonal, Up, Left };
  std::vector<uint8_t> from(n * m);
  std::vector<uint32_t> previous(m + 1, 0), current(m + 1, 0);
  for (size_t i = 1; i <= n; ++i) {
    current[0] = 0;
    for (size_t j = 1; j <= m; ++j) {
      uint8_t &way = from[(i - 1) * m + (j - 1)];
      if (a[i - 1] == b[j - 1]) {
        current[j] = previous[j - 1] + 1;
        way = Diagonal;
      } else if (previous[j] >= current[j - 1]) {
        current[j] = previous[j];
        way = Up;
      } else {
        current[j] = current[j - 1];
        way = Left;
      }
    }
    std::swap(previous, current);
  }
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = n, j = m; i > 0 && j > 0;) {
    uint8_t way = from[(i - 1) * m + (j - 1)];
    if (way == Diagonal) {
      pairs.push_back({offset + i - 1, j - 1});
      --i;
      --j;
    } else if (way == Up) {
      --i;
    } else {
      --j;
    }
  }
  std::reverse(pairs.begin(), pairs.end());
  return pairs;
}

KinetoTrace::EtLinkResult
KinetoTrace::linkExecutionTrace(const ExecutionTrace &et) {
  EtLinkResult result;
  result.pidMismatch = et.pid() != 0 && et.pid() != pid;
  for (size_t index : topLevel) {
    HostOp &op = hostOps[index];
    int64_t key = op.rfId >= 0 ? op.rfId : op.externalId;
    const ExecNode *node = key >= 0 ? et.findByRfId(key) : nullptr;
    if (!node) {
      ++result.unlinked;
      continue;
    }
    if (node->name != op.name) {
      ++result.nameMismatch;
      continue;
    }
    op.etNode = node->id;
    ++result.linked;
  }
  const std::vector<size_t> &etOps = et.topLevelOps();
  if (!etOps.empty() && result.linked * 2 < etOps.size()) {
    // Many traces number record functions differently in the two files:
    // align the op-name sequences instead.
    StringMap<unsigned> ids;
    auto idOf = [&](StringRef name) {
      return ids.try_emplace(name, ids.size()).first->second;
    };
    std::vector<unsigned> kinetoNames, etNames;
    for (size_t index : topLevel)
      kinetoNames.push_back(idOf(hostOps[index].name));
    for (size_t index : etOps)
      etNames.push_back(idOf(et.nodes()[index].name));
    // Where the profile repeats the ET's iteration, the match lands on the
    // last copy (the traceback starts at the end): a warmed-up step. Two
    // traces whose names agree on less than half of the ET's ops are not of
    // the same program.
    std::vector<std::pair<size_t, size_t>> pairs =
        alignSequences(kinetoNames, etNames);
    if (pairs.size() > result.linked && 2 * pairs.size() >= etOps.size()) {
      for (size_t index : topLevel)
        hostOps[index].etNode = -1;
      result = EtLinkResult{};
      result.pidMismatch = et.pid() != 0 && et.pid() != pid;
      result.alignedByName = true;
      for (auto [k, e] : pairs)
        hostOps[topLevel[k]].etNode = et.nodes()[etOps[e]].id;
      result.linked = pairs.size();
      result.unlinked = topLevel.size() - pairs.size();
    }
  }
  result.etUnlinked =
      etOps.size() - std::min<size_t>(etOps.size(), result.linked);
  // Kernels the link loses: unlinked ops with device work between the first
  // and the last linked op.
  size_t first = topLevel.size(), last = 0;
  for (size_t k = 0; k < topLevel.size(); ++k)
    if (hostOps[topLevel[k]].etNode >= 0) {
      first = std::min(first, k);
      last = k;
    }
  for (size_t k = first; k <= last && k < topLevel.size(); ++k)
    if (hostOps[topLevel[k]].etNode < 0 && !deviceEventsOf(topLevel[k]).empty())
      ++result.unlinkedWithDeviceWork;
  return result;
}

StringRef classifyDeviceEvent(const DeviceEvent &event) {
  if (event.kind == DeviceEventKind::Memcpy)
    return "memcpy";
  if (event.kind == DeviceEventKind::Memset)
    return "memset";
  std::string lower = StringRef(event.name).lower();
  StringRef n(lower);
  if (n.contains("nccl") || n.contains("rccl"))
    return "nccl";
  if (n.contains("conv") || n.contains("scudnn") || n.contains("fprop") ||
      n.contains("dgrad") || n.contains("wgrad") || n.contains("winograd"))
    return "conv";
  if (n.contains("gemm") || n.contains("cutlass") || n.contains("xmma") ||
      n.contains("gemv") || n.contains("matmul") || n.contains("cublas"))
    return "gemm";
  if (n.contains("embedding"))
    return "embedding";
  if (n.contains("softmax"))
    return "softmax";
  if (n.contains("norm") || n.contains("bn_fw") || n.contains("bn_bw"))
    return "norm";
  if (n.contains("reduce"))
    return "reduce";
  if (n.contains("elementwise") || n.contains("vectorized") ||
      n.contains("unrolled") || n.contains("fill") || n.contains("copy") ||
      n.contains("pointwise") || n.contains("triton"))
    return "elementwise";
  return "other";
}

} // namespace trace
} // namespace perf
