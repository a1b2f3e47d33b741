//===- LowerBound.cpp - --perf-lower-bound --------------------------------===//
//
// Benanza's analyzer (Li et al., Sec. III-D): per-layer and per-model MACs,
// FLOPs and bytes, the unique layers a benchmark generator would have to
// measure, and two "lower-bound" latencies that ignore framework overhead:
// sequential (every kernel one after the other) and parallel (the critical
// path of the layer DAG, data-independent layers overlapped). Their ratio is
// what parallel execution of independent branches could gain.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Schedule/Schedule.h"
#include "perf/Support/KernelSignature.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ReportOutput.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

namespace perf {
#define GEN_PASS_DEF_LOWERBOUND
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct Counts {
  double macs = 0, flops = 0, bytes = 0, us = 0;
  void add(const Counts &o) {
    macs += o.macs;
    flops += o.flops;
    bytes += o.bytes;
    us += o.us;
  }
};

struct Layer {
  std::string name, opName;
  int64_t kernels = 0;
  Counts counts;
  /// Index of the first layer with the same kernels.
  size_t uniqueId = 0;
};

struct PathStep {
  std::string kernel, layer;
  double start, end;
};

struct GraphBound {
  std::string graph, phase, target;
  std::vector<Layer> layers;
  Counts total;
  std::map<std::string, double> flopsByPass;
  int64_t kernels = 0, uniqueKernels = 0, uniqueLayers = 0;
  double sequentialUs = 0, parallelUs = 0;
  std::vector<PathStep> criticalPath;
};

/// Multiply-adds of GEMM-like work, as Benanza's Table I counts them.
double macsOf(const KernelDesc &d) {
  switch (d.kind) {
  case KernelKind::Gemm:
  case KernelKind::Conv2d:
    return d.totalFlops() / 2;
  case KernelKind::Attention:
    return 2.0 * d.batch * d.heads * double(d.m) * d.m * d.k;
  default:
    return 0;
  }
}

std::string passName(WorkAttr work) {
  return stringifyTrainingPass(work.getTrainingPass()).str();
}

/// What makes two kernels the same benchmark: kind, pass, element type,
/// shape signature and fused epilogue.
std::string kernelKey(WorkAttr kernel, const KernelDesc &d) {
  std::string key = kernelKindName(d.kind).str() + "/" + passName(kernel) +
                    "/" + dtypeName(d.dtype).str() + "/" + kernelSignature(d);
  if (auto fused = kernel.getAs<ArrayAttr>(kFusedAttr))
    for (Attribute part : fused)
      if (auto s = dyn_cast<StringAttr>(part))
        key += "+" + s.str();
  if (!d.op.empty() && isa<ElementwiseWork, GenericWork>(kernel))
    key += "/" + d.op;
  return key;
}

FailureOr<GraphBound> analyze(GraphOp graph) {
  GraphBound g;
  g.graph = graph.getSymName().str();
  g.phase = graph.getPhase().str();
  g.target = "unknown";
  if (GpuAttr gpu = graph.getGpuTarget())
    g.target = gpu.getSpec().name;

  Schedule schedule;
  llvm::DenseMap<Operation *, uint32_t> opIndex;
  // Kernel-less ops (Reshape) pass their producers on to their consumers.
  llvm::DenseMap<Operation *, SmallVector<uint32_t>> forwarded;
  llvm::StringMap<size_t> layerIds;
  llvm::StringSet<> kernelKeys;
  std::vector<std::pair<WorkAttr, size_t>> kernelLayer;
  int64_t nextStream = 0;

  for (Operation &op : graph.getBodyBlock()) {
    auto fw = dyn_cast<FrameworkOp>(op);
    if (!fw)
      continue;
    SmallVector<uint32_t> deps;
    for (Value in : fw.getInputs()) {
      Operation *def = in.getDefiningOp();
      if (!def)
        continue;
      if (auto it = opIndex.find(def); it != opIndex.end())
        deps.push_back(it->second);
      else if (auto f = forwarded.find(def); f != forwarded.end())
        deps.append(f->second.begin(), f->second.end());
    }
    llvm::sort(deps);
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    if (!fw.hasWork()) {
      forwarded[fw] = std::move(deps);
      continue;
    }

    Layer layer;
    layer.opName = fw.getOpName().str();
    if (auto name = fw->getAttrOfType<StringAttr>("onnx.name"))
      layer.name = name.str();
    else
      layer.name = layer.opName;
    OpSpec sop;
    sop.device = fw.getDevice();
    // Every layer on its own stream: only data dependencies order kernels
    // of different layers.
    int64_t stream = nextStream++;
    std::string layerKey = layer.opName;
    for (WorkAttr work : fw.getWorkList()) {
      auto latency = work.getAs<FloatAttr>(kLatencyAttr);
      if (!latency)
        return fw.emitWorkError(work)
               << "has no 'perf.latency_us'; run --perf-kernel-cost (and "
                  "--perf-comm-cost for collectives) before "
                  "--perf-lower-bound";
      KernelSpec k;
      k.latencyUs = latency.getValueAsDouble();
      k.stream = stream;
      Counts c;
      c.us = k.latencyUs;
      if (work.isKernel()) {
        KernelDesc d = work.getKernelDesc();
        c.flops = d.totalFlops();
        c.bytes = d.totalBytes();
        c.macs = macsOf(d);
        k.device = work.getDeviceId();
        std::string key = kernelKey(work, d);
        kernelKeys.insert(key);
        layerKey += "|" + key;
        g.flopsByPass[passName(work)] += c.flops;
      } else {
        k.device = fw.getDevice();
        c.bytes = static_cast<double>(work.getCollectiveBytes());
        ArrayRef<int64_t> group = work.getGroupIds();
        k.group.assign(group.begin(), group.end());
        if (!llvm::is_contained(k.group, k.device))
          k.group.push_back(k.device);
        std::string key = work.getKindName().str() + "/" +
                          std::to_string(work.getCollectiveBytes());
        kernelKeys.insert(key);
        layerKey += "|" + key;
      }
      layer.counts.add(c);
      ++layer.kernels;
      schedule.addKernel(std::move(k));
      kernelLayer.push_back({work, g.layers.size()});
    }
    auto [it, inserted] = layerIds.try_emplace(layerKey, g.layers.size());
    layer.uniqueId = it->second;
    g.total.add(layer.counts);
    g.kernels += layer.kernels;
    opIndex[fw] = static_cast<uint32_t>(schedule.addOp(sop, deps));
    g.layers.push_back(std::move(layer));
  }
  g.uniqueLayers = layerIds.size();
  g.uniqueKernels = kernelKeys.size();

  ScheduleOptions options;
  options.kernelGapUs = 0;
  ScheduleResult result = schedule.run(options);
  g.sequentialUs = result.sumKernelUs;
  g.parallelUs = 0;
  for (size_t k = 0, e = schedule.kernels().size(); k < e; ++k)
    g.parallelUs = std::max(g.parallelUs, schedule.endUs(k));
  for (size_t i : result.criticalPath) {
    auto [work, layer] = kernelLayer[i];
    g.criticalPath.push_back(
        {work.getKindName().str() + "/" + passName(work), g.layers[layer].name,
         schedule.kernels()[i].startUs, schedule.endUs(i)});
  }
  return g;
}

void printText(const GraphBound &g, bool layers, llvm::raw_ostream &os) {
  os << "perf lower bound: @" << g.graph << " (" << g.phase << ") on "
     << g.target << "\n";
  os << llvm::format("  layers            %12lld  (%lld unique)\n",
                     (long long)g.layers.size(), (long long)g.uniqueLayers);
  os << llvm::format("  kernels           %12lld  (%lld unique)\n",
                     (long long)g.kernels, (long long)g.uniqueKernels);
  os << llvm::format("  total MACs        %16.6e\n", g.total.macs);
  os << llvm::format("  total FLOPs       %16.6e\n", g.total.flops);
  for (const auto &[pass, flops] : g.flopsByPass)
    os << llvm::format("    %-8s FLOPs  %16.6e\n", pass.c_str(), flops);
  os << llvm::format("  total bytes       %16.6e\n", g.total.bytes);
  os << llvm::format("  sequential lower bound %12.3f us  (sum of kernels)\n",
                     g.sequentialUs);
  os << llvm::format("  parallel lower bound   %12.3f us  (critical path, "
                     "%.3fx faster)\n",
                     g.parallelUs,
                     g.parallelUs > 0 ? g.sequentialUs / g.parallelUs : 1.0);
  if (layers) {
    os << "  per layer:\n";
    os << llvm::format("    %5s %-24s %-22s %4s %12s %12s %12s %12s %5s\n", "#",
                       "layer", "op", "krn", "MACs", "FLOPs", "bytes", "us",
                       "same");
    for (size_t i = 0; i < g.layers.size(); ++i) {
      const Layer &l = g.layers[i];
      std::string same =
          l.uniqueId == i ? std::string("-") : std::to_string(l.uniqueId);
      os << llvm::format(
          "    %5zu %-24s %-22s %4lld %12.4e %12.4e %12.4e %12.3f %5s\n", i,
          l.name.c_str(), l.opName.c_str(), (long long)l.kernels, l.counts.macs,
          l.counts.flops, l.counts.bytes, l.counts.us, same.c_str());
    }
  }
  os << "  critical path (" << g.criticalPath.size() << " kernels, "
     << llvm::format("%.3f", g.parallelUs) << " us):\n";
  for (const PathStep &p : g.criticalPath)
    os << llvm::format("    %12.3f .. %12.3f us  %-20s %s\n", p.start, p.end,
                       p.kernel.c_str(), p.layer.c_str());
}

llvm::json::Value toJson(const GraphBound &g) {
  auto counts = [](const Counts &c) {
    return llvm::json::Object{
        {"macs", c.macs}, {"flops", c.flops}, {"bytes", c.bytes}, {"us", c.us}};
  };
  llvm::json::Array layers, path;
  for (size_t i = 0; i < g.layers.size(); ++i) {
    const Layer &l = g.layers[i];
    llvm::json::Object o = counts(l.counts);
    o["layer"] = l.name;
    o["op"] = l.opName;
    o["kernels"] = l.kernels;
    o["same_as"] = static_cast<int64_t>(l.uniqueId);
    layers.push_back(std::move(o));
  }
  for (const PathStep &p : g.criticalPath)
    path.push_back(llvm::json::Object{{"kernel", p.kernel},
                                      {"layer", p.layer},
                                      {"start_us", p.start},
                                      {"end_us", p.end}});
  llvm::json::Object byPass;
  for (const auto &[pass, flops] : g.flopsByPass)
    byPass[pass] = flops;
  llvm::json::Object total = counts(g.total);
  return llvm::json::Object{
      {"graph", g.graph},
      {"phase", g.phase},
      {"target", g.target},
      {"num_layers", static_cast<int64_t>(g.layers.size())},
      {"unique_layers", g.uniqueLayers},
      {"num_kernels", g.kernels},
      {"unique_kernels", g.uniqueKernels},
      {"total", std::move(total)},
      {"flops_by_pass", std::move(byPass)},
      {"sequential_us", g.sequentialUs},
      {"parallel_us", g.parallelUs},
      {"layers", std::move(layers)},
      {"critical_path", std::move(path)},
  };
}

struct LowerBoundPass : perf::impl::LowerBoundBase<LowerBoundPass> {
  using LowerBoundBase::LowerBoundBase;

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    if (format != "text" && format != "json") {
      getOperation().emitError("--perf-lower-bound: format must be text or "
                               "json, got '")
          << format.getValue() << "'";
      return signalPassFailure();
    }
    if (failed(writeGraphReport(
            getOperation(), format, output, "perf.lower_bound/1", analyze,
            [](const GraphBound &g) { return toJson(g); },
            [&](const GraphBound &g, llvm::raw_ostream &os) {
              printText(g, layers, os);
            })))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
