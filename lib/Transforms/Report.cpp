//===- Report.cpp - --perf-report -----------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/MemoryAnalysis.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ReportOutput.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <numeric>

namespace perf {
#define GEN_PASS_DEF_REPORT
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct KindTotal {
  double us = 0;
  int64_t count = 0;
  KindTotal &operator+=(const KindTotal &other) {
    us += other.us;
    count += other.count;
    return *this;
  }
};

/// What the report says about one graph, gathered once and printed as text
/// or JSON.
struct GraphSummary {
  std::string name, target, phase;
  double e2e = 0, active = 0, idle = 0, host = 0, sumKernels = 0;
  bool hostBound = false;
  /// The host overhead table that priced the step (perf.host_table), if
  /// one was given.
  std::string hostTable;
  /// Steps of the steady-state walk (0: only one step was walked).
  int64_t iterations = 0;
  double steadyState = 0;
  int64_t numOps = 0, numKernels = 0;
  std::map<std::string, KindTotal> byKind, byOp;
  std::map<std::string, int64_t> byModel;
  /// The kernels the db model could not find (perf.db_misses).
  std::vector<KernelCostMiss> dbMisses;
  /// Measured kernels moved from another GPU (perf.retarget), if any.
  DictionaryAttr retarget;
  SmallVector<DictionaryAttr> devices;
  struct PathEntry {
    /// Names owned by the context (a path can be a million kernels long).
    StringRef kernel, op;
    double start, end;
  };
  std::vector<PathEntry> criticalPath;
  /// Peak memory per device and the GPU's.
  std::vector<DeviceMemory> memory;
  double memoryCapacity = 0;
  bool outOfMemory = false;
};

double f64(DictionaryAttr dict, StringRef key) {
  if (auto a = dict.getAs<FloatAttr>(key))
    return a.getValueAsDouble();
  return 0;
}

StringRef str(DictionaryAttr dict, StringRef key) {
  if (auto a = dict.getAs<StringAttr>(key))
    return a.getValue();
  return "";
}

/// The name=count entries of an integer dictionary.
std::vector<std::pair<StringRef, int64_t>> counts(DictionaryAttr dict,
                                                  StringRef key) {
  std::vector<std::pair<StringRef, int64_t>> out;
  if (auto inner = dict.getAs<DictionaryAttr>(key))
    for (NamedAttribute entry : inner)
      if (auto n = dyn_cast<IntegerAttr>(entry.getValue()))
        out.push_back({entry.getName().getValue(), n.getInt()});
  return out;
}

int64_t i64(DictionaryAttr dict, StringRef key) {
  if (auto a = dict.getAs<IntegerAttr>(key))
    return a.getInt();
  return 0;
}

FailureOr<GraphSummary> summarize(GraphOp graph,
                                  const UnrolledWalk::Size &size) {
  auto estimate = graph->getAttrOfType<DictionaryAttr>(kEstimateAttr);
  if (!estimate) {
    graph.emitError("no estimate to report; run --perf-critical-path first");
    return failure();
  }
  GraphSummary s;
  s.name = graph.getSymName().str();
  s.phase = graph.getPhase().str();
  s.target = "unknown";
  if (GpuAttr gpu = graph.getGpuTarget())
    s.target = gpu.getSpec().name;
  else if (auto traced = graph->getAttrOfType<DictionaryAttr>(kTraceDeviceAttr))
    s.target = (str(traced, "name") + " (from the trace, as measured)").str();
  s.e2e = f64(estimate, "e2e_us");
  s.active = f64(estimate, "gpu_active_us");
  s.idle = f64(estimate, "idle_us");
  s.host = f64(estimate, "host_us");
  if (auto table = graph->getAttrOfType<StringAttr>(kHostTableAttr))
    s.hostTable = table.str();
  s.sumKernels = f64(estimate, "sum_kernel_us");
  if (auto b = estimate.getAs<BoolAttr>("host_bound"))
    s.hostBound = b.getValue();
  if (auto n = estimate.getAs<IntegerAttr>("iterations")) {
    s.iterations = n.getInt();
    s.steadyState = f64(estimate, "steady_state_us");
  }
  if (auto misses = graph->getAttrOfType<ArrayAttr>(kDbMissesAttr))
    for (Attribute a : misses) {
      auto miss = dyn_cast<DictionaryAttr>(a);
      if (!miss)
        continue;
      auto str = [&](StringRef key) {
        auto v = miss.getAs<StringAttr>(key);
        return v ? v.str() : std::string();
      };
      s.dbMisses.push_back(
          {str("device"), str("dtype"), str("kind"), str("signature")});
    }
  s.retarget = graph->getAttrOfType<DictionaryAttr>(kRetargetAttr);
  if (auto devs = estimate.getAs<ArrayAttr>("devices"))
    for (Attribute d : devs)
      s.devices.push_back(cast<DictionaryAttr>(d));

  // Sums over the unrolled graph (an op in a repeat body counts once per
  // copy) and the critical path's kernels, named by their place in the
  // unrolled launch order (--perf-critical-path's), found in one walk. Keyed
  // by work kinds and what the context uniques (op names, string
  // attributes) while a million kernels are added up, by strings once at
  // the end.
  llvm::DenseMap<WorkKind, KindTotal> byKind;
  llvm::DenseMap<StringAttr, KindTotal> byOp;
  llvm::DenseMap<StringAttr, int64_t> byModel;
  int64_t comm = 0, unpriced = 0;
  auto path = estimate.getAs<DenseI64ArrayAttr>("critical_path");
  auto times = estimate.getAs<DenseF64ArrayAttr>("critical_path_times_us");
  if (!path || !times || times.size() != 2 * path.size())
    path = {};
  // The path's places in the launch order of their kernels: the path runs
  // in time order, mostly launch order too (a path through one stream
  // follows launches), where no permutation is needed.
  ArrayRef<int64_t> pathIndices =
      path ? path.asArrayRef() : ArrayRef<int64_t>();
  std::vector<uint32_t> byLaunch;
  if (!llvm::is_sorted(pathIndices)) {
    byLaunch.resize(pathIndices.size());
    std::iota(byLaunch.begin(), byLaunch.end(), 0u);
    llvm::stable_sort(byLaunch, [&](uint32_t l, uint32_t r) {
      return pathIndices[l] < pathIndices[r];
    });
  }
  auto place = [&](size_t k) -> size_t {
    return byLaunch.empty() ? k : byLaunch[k];
  };
  // Filled as the walk finds each kernel; an index past the graph's kernels
  // names nothing and is left out.
  s.criticalPath.resize(pathIndices.size());
  size_t nextOnPath = 0;
  // What the sums read of a piece of work, read once per distinct piece
  // (a step repeats its kernels).
  struct WorkFacts {
    double latencyUs = 0;
    StringAttr model;
  };
  llvm::DenseMap<WorkAttr, WorkFacts> facts;
  auto factsOf = [&](WorkAttr work) -> const WorkFacts & {
    auto [it, fresh] = facts.try_emplace(work);
    if (fresh) {
      if (auto latency = work.getAs<FloatAttr>(kLatencyAttr))
        it->second.latencyUs = latency.getValueAsDouble();
      it->second.model = work.getAs<StringAttr>(kCostModelAttr);
    }
    return it->second;
  };
  // Ops alike in name and work list (a step's layers) are counted in the
  // walk and added up once each after it, in the order first seen (the
  // sums' order, and so their rounding, the same in every run).
  llvm::MapVector<std::pair<StringAttr, ArrayAttr>, int64_t> launches;
  auto count = [&](FrameworkOp fw, int64_t copies) {
    launches[{fw.getOpNameAttr(), fw.getWorkAttr()}] += copies;
  };
  // Adds the kernels of ops named `name` launching `list`, `copies` times.
  auto addUp = [&](StringAttr name, ArrayAttr list, int64_t copies) {
    KindTotal &opTotal = byOp[name];
    for (WorkAttr work : list.getAsRange<WorkAttr>()) {
      const WorkFacts &f = factsOf(work);
      double us = f.latencyUs * double(copies);
      byKind[work.getKind()] += {us, copies};
      opTotal += {us, copies};
      if (f.model)
        byModel[f.model] += copies;
      else if (work.isCollective())
        comm += copies;
      else
        unpriced += copies;
    }
  };
  // An op in a repeat body is counted once, with its copies, after the walk
  // (in program order).
  bool repeated = false;
  int64_t kernelIndex = 0;
  UnrolledWalk unrolled(/*indexInstances=*/false);
  (void)unrolled.run(graph, [&](Operation *op, CopyId copy) {
    ++s.numOps;
    auto fw = dyn_cast<FrameworkOp>(op);
    if (!fw || !fw.hasWork())
      return success();
    if (copy == 0)
      count(fw, 1);
    else
      repeated = true;
    for (WorkAttr work : fw.getWorkList()) {
      for (; nextOnPath < pathIndices.size() &&
             pathIndices[place(nextOnPath)] <= kernelIndex;
           ++nextOnPath) {
        size_t n = place(nextOnPath);
        if (pathIndices[n] == kernelIndex)
          s.criticalPath[n] = {work.getKindName(), fw.getOpName(), times[2 * n],
                               times[2 * n + 1]};
      }
      ++kernelIndex;
    }
    return success();
  });
  if (repeated)
    UnrolledWalk::forEachHostOp(graph, [&](Operation *op, int64_t copies) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (fw && fw.hasWork() && op->getBlock() != &graph.getBodyBlock())
        count(fw, copies);
    });
  for (const auto &[key, copies] : launches)
    addUp(key.first, key.second, copies);
  s.numKernels = kernelIndex;
  for (const auto &[kind, total] : byKind)
    s.byKind[stringifyWorkKind(kind).str()] += total;
  for (const auto &[name, total] : byOp)
    if (total.count > 0)
      s.byOp[name.str()] += total;
  for (const auto &[name, count] : byModel)
    s.byModel[name.str()] += count;
  if (comm)
    s.byModel["comm"] += comm;
  if (unpriced)
    s.byModel["unpriced"] += unpriced;
  MemoryAnalysis memory(graph, size);
  s.memory.assign(memory.devices().begin(), memory.devices().end());
  s.memoryCapacity = memory.capacity();
  s.outOfMemory = memory.outOfMemory();
  llvm::erase_if(s.criticalPath, [](const GraphSummary::PathEntry &p) {
    return p.kernel.empty();
  });
  return s;
}

void printText(const GraphSummary &s, llvm::raw_ostream &os) {
  auto pct = [&](double part) { return s.e2e > 0 ? 100 * part / s.e2e : 0; };
  os << "perf estimate: @" << s.name << " (" << s.phase << ") on " << s.target
     << "\n";
  os << llvm::format("  end-to-end time   %12.3f us\n", s.e2e);
  if (s.iterations > 1)
    os << llvm::format("  steady-state step %12.3f us  (step %lld of %lld "
                       "back to back)\n",
                       s.steadyState, (long long)s.iterations,
                       (long long)s.iterations);
  os << llvm::format("  GPU active        %12.3f us  (%5.1f%%)\n", s.active,
                     pct(s.active));
  os << llvm::format("  GPU idle          %12.3f us  (%5.1f%%)\n", s.idle,
                     pct(s.idle));
  os << llvm::format("  host time         %12.3f us  (%s-bound)\n", s.host,
                     s.hostBound ? "host" : "device");
  if (!s.hostTable.empty())
    os << "  host overheads    " << s.hostTable << "\n";
  os << llvm::format(
      "  sum of kernels    %12.3f us  (%lld kernels, %lld ops)\n", s.sumKernels,
      (long long)s.numKernels, (long long)s.numOps);
  os << "  device time by kernel kind:\n";
  for (const auto &[kind, t] : s.byKind)
    os << llvm::format("    %-16s %12.3f us  %6lld\n", kind.c_str(), t.us,
                       (long long)t.count);
  os << "  priced by:";
  for (const auto &[model, n] : s.byModel)
    os << " " << model << "=" << n;
  os << "\n";
  if (s.retarget) {
    os << "  measured on " << str(s.retarget, "from") << ": "
       << i64(s.retarget, "moved") << " kernels moved to " << s.target << " ("
       << str(s.retarget, "method") << "), " << i64(s.retarget, "kept")
       << " with no model kept as measured";
    auto kept = counts(s.retarget, "kept_kinds");
    for (auto [i, kind] : llvm::enumerate(kept))
      os << (i ? ", " : " (") << kind.first << "=" << kind.second;
    os << (kept.empty() ? "\n" : ")\n");
  }
  if (!s.dbMisses.empty()) {
    // The first few; the JSON report and perf.db_misses have them all.
    constexpr size_t shown = 5;
    os << "  not in the perf database: " << s.dbMisses.size()
       << " kernel shapes (measure them with perf-bench --from)\n";
    for (size_t i = 0; i < std::min(shown, s.dbMisses.size()); ++i)
      os << "    " << s.dbMisses[i].kind << " " << s.dbMisses[i].signature
         << "\n";
    if (s.dbMisses.size() > shown)
      os << "    ... and " << s.dbMisses.size() - shown << " more\n";
  }
  if (s.devices.size() > 1) {
    os << "  per device:\n";
    for (DictionaryAttr d : s.devices)
      os << llvm::format(
          "    gpu%-3lld active %12.3f us  end %12.3f us  exposed comm "
          "%10.3f us\n",
          (long long)cast<IntegerAttr>(d.get("device")).getInt(),
          f64(d, "active_us"), f64(d, "end_us"), f64(d, "exposed_comm_us"));
  }
  if (llvm::any_of(s.memory,
                   [](const DeviceMemory &m) { return m.peak() > 0; })) {
    constexpr double kGB = 1024.0 * 1024.0 * 1024.0;
    os << "  memory per device (GiB):\n";
    for (const DeviceMemory &m : s.memory) {
      os << llvm::format("    gpu%-3lld weights %8.3f  gradients %8.3f  "
                         "optimizer %8.3f  buckets %8.3f  activations %8.3f  "
                         "peak %8.3f",
                         static_cast<long long>(m.device), m.parameters / kGB,
                         m.gradients / kGB, m.optimizerStates / kGB,
                         m.gradientBuckets / kGB, m.activationPeak / kGB,
                         m.peak() / kGB);
      if (s.memoryCapacity > 0)
        os << llvm::format(" of %.3f%s", s.memoryCapacity / kGB,
                           m.peak() > s.memoryCapacity ? "  OUT OF MEMORY"
                                                       : "");
      os << "\n";
    }
  }
  os << "  critical path (" << s.criticalPath.size() << " kernels):\n";
  size_t shown = 0;
  for (const auto &p : s.criticalPath) {
    if (shown++ == 20) {
      os << "    ... " << (s.criticalPath.size() - 20) << " more\n";
      break;
    }
    os << llvm::format("    %10.3f .. %10.3f us  %-14s %s\n", p.start, p.end,
                       p.kernel.str().c_str(), p.op.str().c_str());
  }
}

llvm::json::Value toJson(const GraphSummary &s) {
  llvm::json::Object kinds, ops, models;
  for (const auto &[kind, t] : s.byKind)
    kinds[kind] = llvm::json::Object{{"us", t.us}, {"count", t.count}};
  for (const auto &[op, t] : s.byOp)
    ops[op] = llvm::json::Object{{"us", t.us}, {"count", t.count}};
  for (const auto &[model, n] : s.byModel)
    models[model] = n;
  llvm::json::Array devices, path;
  for (DictionaryAttr d : s.devices)
    devices.push_back(llvm::json::Object{
        {"device", cast<IntegerAttr>(d.get("device")).getInt()},
        {"active_us", f64(d, "active_us")},
        {"end_us", f64(d, "end_us")},
        {"host_end_us", f64(d, "host_end_us")},
        {"exposed_comm_us", f64(d, "exposed_comm_us")}});
  for (const auto &p : s.criticalPath)
    path.push_back(llvm::json::Object{{"kernel", p.kernel},
                                      {"op", p.op},
                                      {"start_us", p.start},
                                      {"end_us", p.end}});
  llvm::json::Object out{
      {"graph", s.name},
      {"phase", s.phase},
      {"target", s.target},
      {"e2e_us", s.e2e},
      {"gpu_active_us", s.active},
      {"idle_us", s.idle},
      {"host_us", s.host},
      {"host_bound", s.hostBound},
      {"sum_kernel_us", s.sumKernels},
      {"num_ops", s.numOps},
      {"num_kernels", s.numKernels},
      {"by_kernel_kind", std::move(kinds)},
      {"by_op", std::move(ops)},
      {"priced_by", std::move(models)},
      {"devices", std::move(devices)},
      {"critical_path", std::move(path)},
  };
  llvm::json::Array memory;
  for (const DeviceMemory &m : s.memory)
    memory.push_back(
        llvm::json::Object{{"device", m.device},
                           {"parameter_bytes", m.parameters},
                           {"gradient_bytes", m.gradients},
                           {"optimizer_bytes", m.optimizerStates},
                           {"bucket_bytes", m.gradientBuckets},
                           {"activation_peak_bytes", m.activationPeak},
                           {"peak_bytes", m.peak()}});
  out["memory"] = llvm::json::Object{{"capacity_bytes", s.memoryCapacity},
                                     {"out_of_memory", s.outOfMemory},
                                     {"devices", std::move(memory)}};
  if (!s.dbMisses.empty()) {
    llvm::json::Array misses;
    for (const KernelCostMiss &m : s.dbMisses)
      misses.push_back(llvm::json::Object{{"device", m.device},
                                          {"dtype", m.dtype},
                                          {"kind", m.kind},
                                          {"signature", m.signature}});
    out["db_misses"] = std::move(misses);
  }
  if (s.retarget) {
    llvm::json::Object kept;
    for (auto [kind, n] : counts(s.retarget, "kept_kinds"))
      kept[kind] = n;
    out["retarget"] = llvm::json::Object{{"from", str(s.retarget, "from")},
                                         {"method", str(s.retarget, "method")},
                                         {"moved", i64(s.retarget, "moved")},
                                         {"kept", i64(s.retarget, "kept")},
                                         {"kept_kinds", std::move(kept)}};
  }
  if (s.iterations > 1) {
    out["iterations"] = s.iterations;
    out["steady_state_us"] = s.steadyState;
  }
  if (!s.hostTable.empty())
    out["host_table"] = s.hostTable;
  return out;
}

struct ReportPass : perf::impl::ReportBase<ReportPass> {
  using ReportBase::ReportBase;

  // Options are checked before any pass runs.
  LogicalResult initialize(MLIRContext *context) override {
    if (format != "text" && format != "json")
      return emitError(UnknownLoc::get(context),
                       "report format must be text or json, got '")
             << format << "'";
    return success();
  }

  /// Where the JSON report goes in process (createReport(options, json));
  /// null: the `output` file.
  std::string *jsonSink = nullptr;

  void runOnOperation() override {
    FailureOr<std::string> text = renderGraphReport(
        getOperation(), jsonSink ? "json" : StringRef(format),
        "perf.estimate/1",
        [&](GraphOp graph) {
          return summarize(graph,
                           getChildAnalysis<UnrolledSizeAnalysis>(graph).size);
        },
        [](const GraphSummary &s) { return toJson(s); }, printText);
    if (failed(text))
      return signalPassFailure();
    if (jsonSink)
      *jsonSink = std::move(*text);
    else if (failed(
                 writeReport(getOperation(), output, *text, format == "json")))
      return signalPassFailure();
    if (!kernelList.empty() &&
        failed(writeKernelList(getOperation(), kernelList)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

std::unique_ptr<Pass> perf::createReport(const ReportOptions &options,
                                         std::string &json) {
  auto pass = std::make_unique<ReportPass>(options);
  pass->jsonSink = &json;
  return pass;
}
