//===- PaiBreakdown.cpp - --perf-pai-breakdown ----------------------------===//
//
// The analytical breakdown of Wang et al., "Characterizing Deep Learning
// Training Workloads on Alibaba-PAI" (IISWC 2019), Sec. II-B:
//
//   T_total = T_d + T_c + T_w            (no overlap, by construction)
//   T_d = S_d / B_d                      input I/O over PCIe
//   T_c = #FLOPs / peak + S_mem / B_mem  compute-bound + memory-bound kernels
//   T_w = S_w / B_w                      weight/gradient traffic
//
// with every capacity at 70% of nominal. The medium of T_w follows Table II
// of the paper: PCIe (1wng), Ethernet and PCIe (PS/Worker), NVLink
// (AllReduce-Local), Ethernet and NVLink (AllReduce-Cluster).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/GraphTarget.h"
#include "perf/Transforms/GraphWalk.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/ReportOutput.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <set>

namespace perf {
#define GEN_PASS_DEF_PAIBREAKDOWN
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct Breakdown {
  double td = 0, tcCompute = 0, tcMemory = 0, tw = 0;
  double inputBytes = 0, weightBytes = 0, flops = 0, memBytes = 0;
  double total() const { return td + tcCompute + tcMemory + tw; }
};

bool isComputeBound(KernelKind kind) {
  return kind == KernelKind::Gemm || kind == KernelKind::Conv2d ||
         kind == KernelKind::Attention;
}

struct PaiBreakdownPass : perf::impl::PaiBreakdownBase<PaiBreakdownPass> {
  using PaiBreakdownBase::PaiBreakdownBase;

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    static const char *archs[] = {"1w1g", "1wng", "ps-worker",
                                  "allreduce-local", "allreduce-cluster"};
    if (!llvm::is_contained(archs, StringRef(arch))) {
      getOperation().emitError()
          << "--perf-pai-breakdown: unknown arch '" << arch
          << "' (1w1g, 1wng, ps-worker, allreduce-local, allreduce-cluster)";
      return signalPassFailure();
    }
    if (workers < 1 || efficiency <= 0 || efficiency > 1) {
      getOperation().emitError("--perf-pai-breakdown: workers must be "
                               "positive and efficiency in (0, 1]");
      return signalPassFailure();
    }
    llvm::Expected<SystemSpec> system = loadSystemSpec(this->system);
    if (!system) {
      emitInputError(getOperation().getLoc(), system.takeError());
      return signalPassFailure();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    LogicalResult result = forEachGraph(getOperation(), [&](GraphOp graph) {
      FailureOr<GpuSpec> gpu = getGraphGpu(graph);
      if (failed(gpu))
        return failure();
      figures.clear();
      // The slowest device stands for the job (devices 1..N-1 of a
      // symmetric data- or tensor-parallel graph carry no kernels).
      int64_t worst = 0;
      Breakdown bd = compute(graph, 0, *gpu, *system);
      // Devices that run work of their own (collective-only peers and
      // parameter servers have no breakdown of their own).
      std::set<int64_t> working;
      graph.walk([&](FrameworkOp fw) {
        working.insert(fw.getDevice());
        for (WorkAttr work : fw.getWorkList())
          if (work.isKernel())
            working.insert(work.getDeviceId());
      });
      working.erase(0);
      for (int64_t d : working) {
        Breakdown other = compute(graph, d, *gpu, *system);
        if (other.total() > bd.total()) {
          bd = other;
          worst = d;
        }
      }
      print(os, graph, bd, worst);
      record(graph, bd, worst);
      return success();
    });
    if (failed(result))
      return signalPassFailure();
    if (failed(writeReport(getOperation(), output, text)))
      return signalPassFailure();
  }

  /// What the breakdown reads of a kernel, from its description: read once
  /// per distinct kernel of a graph (a step repeats them, and every device
  /// is walked).
  struct KernelFigures {
    DType dtype = DType::F32;
    /// A host-to-device copy: input I/O, not T_c.
    bool copiedIn = false;
    bool computeBound = false;
    double flops = 0, bytes = 0;
    /// The GPU's peak for the kernel's dtype and tensor-core use.
    double peakFlops = 0;
  };
  /// Of the graph being broken down (the peaks are its GPU's).
  llvm::DenseMap<WorkAttr, KernelFigures> figures;

  const KernelFigures &figuresOf(WorkAttr kernel, const GpuSpec &gpu) {
    auto [it, fresh] = figures.try_emplace(kernel);
    KernelFigures &k = it->second;
    if (!fresh)
      return k;
    KernelDesc d = kernel.getKernelDesc();
    k.dtype = d.dtype;
    k.copiedIn =
        d.kind == KernelKind::Memcpy && d.copyKind == MemcpyKind::HostToDevice;
    k.computeBound = isComputeBound(d.kind);
    k.flops = d.totalFlops();
    k.bytes = d.totalBytes();
    k.peakFlops = gpu.peakFlops(d.dtype, d.tensorCores);
    return k;
  }

  /// The breakdown of one device (one cNode in the paper's terms). Work
  /// of micro-batches after the first (pipeline copies) counts for T_c but
  /// not for the weights, which move once per step.
  Breakdown compute(GraphOp graph, int64_t device, const GpuSpec &gpu,
                    const SystemSpec &system) {
    Breakdown bd;
    const double eff = efficiency;
    double copiedIn = 0;
    graph.walk([&](FrameworkOp fw) {
      for (WorkAttr work : fw.getWorkList()) {
        if (!work.isKernel() || work.getDeviceId() != device)
          continue;
        const KernelFigures &k = figuresOf(work, gpu);
        if (k.copiedIn) {
          copiedIn += k.bytes;
          continue;
        }
        if (k.computeBound) {
          bd.flops += k.flops;
          bd.tcCompute += k.flops / (eff * k.peakFlops);
        } else {
          bd.memBytes += k.bytes;
          bd.tcMemory += k.bytes / (eff * gpu.memBandwidth);
        }
      }
    });
    auto firstMicrobatch = [](Operation *op) {
      auto mb = op->getAttrOfType<IntegerAttr>(kMicrobatchAttr);
      return !mb || mb.getInt() == 0;
    };
    // The weights: gradient bytes, else what the optimizer updates.
    double weights = 0;
    graph.walk([&](FrameworkOp op) {
      if (int64_t(op.getDevice()) == device && firstMicrobatch(op))
        weights += double(gradientBytes(op));
    });
    if (weights == 0)
      graph.walk([&](FrameworkOp fw) {
        for (WorkAttr work : fw.getWorkList())
          if (auto update = dyn_cast<OptimizerWork>(work);
              update && work.getDeviceId() == device)
            weights += double(update.getElements()) *
                       dtypeBytes(figuresOf(work, gpu).dtype);
      });
    bd.weightBytes = weights;
    bd.inputBytes = inputBytes >= 0 ? double(inputBytes) : copiedIn;

    const StringRef a = arch;
    const double w = double(workers);
    const double perNode = double(std::max(1u, system.gpusPerNode));
    // GPUs of the job on one server share its PCIe link for input.
    double local = 1;
    if (a == "1wng" || a == "allreduce-local" || a == "allreduce-cluster")
      local = std::min(w, perNode);
    const double pcie = eff * system.hostPcie.bandwidth;
    const double nvlink = eff * system.intraNode.bandwidth;
    const double ethernet = eff * system.interNode.bandwidth;
    bd.td = bd.inputBytes * local / pcie;
    if (a == "1wng")
      bd.tw = 2 * weights * local / pcie; // pull weights, push gradients
    else if (a == "ps-worker")
      bd.tw = 2 * weights / ethernet + 2 * weights / pcie;
    else if (a == "allreduce-local")
      bd.tw = 2 * (local - 1) / local * weights / nvlink;
    else if (a == "allreduce-cluster") {
      double nodes = std::ceil(w / local);
      bd.tw = 2 * (local - 1) / local * weights / nvlink +
              2 * (nodes - 1) / nodes * weights / ethernet;
    }
    // Seconds to microseconds.
    bd.td *= 1e6;
    bd.tcCompute *= 1e6;
    bd.tcMemory *= 1e6;
    bd.tw *= 1e6;
    return bd;
  }

  static double criticalPath(GraphOp graph) {
    if (auto est = graph->getAttrOfType<DictionaryAttr>(kEstimateAttr))
      if (auto e = est.getAs<FloatAttr>("e2e_us"))
        return e.getValueAsDouble();
    return -1;
  }

  void print(llvm::raw_ostream &os, GraphOp graph, const Breakdown &bd,
             int64_t device) {
    double total = bd.total();
    auto line = [&](StringRef name, double us) {
      os << llvm::format("  %-28s %12.1f us  %5.1f%%\n", name.str().c_str(), us,
                         total > 0 ? 100 * us / total : 0.0);
    };
    os << "PAI breakdown @" << graph.getSymName() << " (" << arch << ", "
       << workers << " workers, system " << system;
    if (device != 0)
      os << ", slowest device " << device;
    os << ")\n";
    line("T_d input I/O (PCIe)", bd.td);
    line("T_c compute-bound", bd.tcCompute);
    line("T_c memory-bound", bd.tcMemory);
    line("T_w weights/gradients", bd.tw);
    os << llvm::format("  %-28s %12.1f us\n", "T_total (no overlap)", total);
    double cp = criticalPath(graph);
    if (cp >= 0)
      os << llvm::format("  %-28s %12.1f us\n", "critical path", cp);
    os << llvm::format("  %-28s %12.1f\n", "throughput (steps/s x workers)",
                       total > 0 ? 1e6 * workers / total : 0.0);
  }

  void record(GraphOp graph, const Breakdown &bd, int64_t device) {
    Builder b(&getContext());
    SmallVector<NamedAttribute> fields = {
        b.getNamedAttr("arch", b.getStringAttr(arch)),
        b.getNamedAttr("device", b.getI64IntegerAttr(device)),
        b.getNamedAttr("workers", b.getI64IntegerAttr(workers)),
        b.getNamedAttr("t_d_us", b.getF64FloatAttr(bd.td)),
        b.getNamedAttr("t_c_compute_us", b.getF64FloatAttr(bd.tcCompute)),
        b.getNamedAttr("t_c_memory_us", b.getF64FloatAttr(bd.tcMemory)),
        b.getNamedAttr("t_w_us", b.getF64FloatAttr(bd.tw)),
        b.getNamedAttr("total_us", b.getF64FloatAttr(bd.total())),
        b.getNamedAttr("input_bytes", b.getF64FloatAttr(bd.inputBytes)),
        b.getNamedAttr("weight_bytes", b.getF64FloatAttr(bd.weightBytes)),
    };
    double cp = criticalPath(graph);
    if (cp >= 0)
      fields.push_back(
          b.getNamedAttr("critical_path_us", b.getF64FloatAttr(cp)));
    graph->setAttr(kPaiAttr, b.getDictionaryAttr(fields));
  }
};
} // namespace
