//===- KernelCost.cpp - --perf-kernel-cost --------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"
#include "perf/CostModel/KernelCostModel.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Schedule/MeasuredRetarget.h"
#include "perf/Transforms/GraphTarget.h"
#include "perf/Transforms/GraphWalk.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/RepeatedAttrs.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseMap.h"
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace perf {
#define GEN_PASS_DEF_KERNELCOST
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct KernelCostPass : perf::impl::KernelCostBase<KernelCostPass> {
  using KernelCostBase::KernelCostBase;

  // Options are checked before any pass runs.
  LogicalResult initialize(MLIRContext *context) override {
    Location loc = UnknownLoc::get(context);
    if (computeEfficiency <= 0 || computeEfficiency > 1 ||
        memoryEfficiency <= 0 || memoryEfficiency > 1)
      return emitError(loc, "compute-efficiency and memory-efficiency must "
                            "be in (0, 1]");
    if (!parseRetargetMethod(retarget))
      return emitError(loc, "retarget must be ratio, shrunk or wave, got '")
             << retarget << "'";
    // The stack is built once, when the pass manager starts, and shared by
    // every run of the pass (a pipeline run on many modules, or a clone of
    // the pass): its models load here, so a missing model folder or
    // database is reported before any pass runs. The learned models read a
    // kind's boosters when a graph first launches kernels of that kind
    // (KernelCostStack::prepare): reading every kind's was most of the
    // estimate of a small step.
    if (stack)
      return success();
    options = CostModelOptions();
    options.computeEfficiency = computeEfficiency;
    options.memoryEfficiency = memoryEfficiency;
    options.databasePath = database;
    options.mlModelDir = mlModelDir;
    order = model.empty() ? std::string(models) : model;
    CostModelOptions lazy = options;
    lazy.pricedKinds.emplace();
    llvm::Expected<KernelCostStack> created =
        createKernelCostStack(order, lazy);
    if (!created) {
      emitInputError(loc, created.takeError());
      return failure();
    }
    stack = std::make_shared<KernelCostStack>(std::move(*created));
    return success();
  }

  /// The models, built by initialize().
  std::shared_ptr<KernelCostStack> stack;
  CostModelOptions options;
  std::string order;

  void runOnOperation() override {
    std::optional<RetargetMethod> method = parseRetargetMethod(retarget);
    // Built when a graph measured on another GPU first needs it.
    std::optional<MeasuredRetarget> retargeter;

    Builder builder(&getContext());
    LogicalResult result = forEachGraph(getOperation(), [&](GraphOp graph) {
      if (auto traceDevice =
              graph->getAttrOfType<DictionaryAttr>(kTraceDeviceAttr))
        if (!graph.getGpuTarget() || !graph->hasAttr(kMeasuredOnAttr)) {
          // A trace of a GPU the catalog does not know: its measured
          // kernels need no figures, anything else does.
          LogicalResult ok = checkTraceDevice(graph, traceDevice);
          if (failed(ok))
            return failure();
          if (!graph.getGpuTarget())
            return success();
        }
      FailureOr<GpuSpec> gpu = getGraphGpu(graph);
      if (failed(gpu))
        return failure();
      auto measuredOn = graph->getAttrOfType<GpuAttr>(kMeasuredOnAttr);
      bool move = measuredOn && measuredOn != graph.getGpuTarget();
      if (move && !retargeter) {
        auto created = MeasuredRetarget::create(*method, order, options);
        if (!created) {
          graph.emitError(llvm::toString(created.takeError()));
          return failure();
        }
        retargeter.emplace(std::move(*created));
      }
      int64_t moved = 0;
      std::map<std::string, int64_t> keptByKind;
      // A step repeats its kernels (every layer of a transformer), and
      // identical kernels are one WorkAttr: each is priced (or moved) once.
      // Distinct work with one description (on another stream, say) is
      // priced once per graph, the distinct descriptions in parallel on the
      // context's threads (the stack's models are thread-safe), and each
      // distinct work list rewritten once.
      constexpr size_t kNoPrice = ~size_t(0);
      struct Outcome {
        /// The kernel with its price: known for a measured kernel when it
        /// is first seen, for the others once the prices are in.
        WorkAttr priced;
        /// Index of its description among the distinct ones to price.
        size_t price = kNoPrice;
        /// Measured and moved to the target, or kept as measured (no
        /// model covers it): counted per launch.
        bool moved = false, kept = false;
      };
      llvm::DenseMap<WorkAttr, Outcome> outcomes;
      std::unordered_map<KernelDesc, size_t, KernelDescHash> distinctIndex;
      std::vector<const KernelDesc *> distinct;
      SmallVector<FrameworkOp> withKernels;
      size_t missesBefore = stack->misses().size();
      auto decide = [&](WorkAttr kernel) {
        Outcome out;
        // A latency measured on the hardware (imported traces) beats any
        // model; measured on another GPU, it is moved to the target.
        if (hasMeasuredLatency(kernel)) {
          if (!move) {
            out.priced = restoreMeasured(kernel, builder);
            return out;
          }
          double measured = measuredLatency(kernel);
          RetargetedLatency priced = retargeter->retarget(
              kernel.getKernelDesc(), measured, measuredOn.getSpec(), *gpu);
          out.priced = kernel.with([&](NamedAttrList &attrs) {
            attrs.set(kMeasuredLatencyAttr, builder.getF64FloatAttr(measured));
            attrs.set(kLatencyAttr, builder.getF64FloatAttr(priced.latencyUs));
            attrs.set(kCostModelAttr,
                      builder.getStringAttr(priced.model.empty()
                                                ? std::string("measured")
                                                : "measured*" + priced.model));
          });
          out.kept = priced.model.empty();
          out.moved = !out.kept;
          return out;
        }
        auto [it, fresh] =
            distinctIndex.try_emplace(kernel.getKernelDesc(), distinct.size());
        if (fresh)
          distinct.push_back(&it->first);
        out.price = it->second;
        return out;
      };
      UnrolledWalk::forEachHostOp(graph, [&](Operation *op, int64_t) {
        auto fw = dyn_cast<FrameworkOp>(op);
        if (!fw)
          return;
        bool launchesKernels = false;
        for (WorkAttr work : fw.getWorkList()) {
          if (!work.isKernel())
            continue;
          launchesKernels = true;
          auto [it, fresh] = outcomes.try_emplace(work);
          if (fresh)
            it->second = decide(work);
          if (it->second.kept)
            ++keptByKind[work.getKindName().str()];
          else if (it->second.moved)
            ++moved;
        }
        if (launchesKernels)
          withKernels.push_back(fw);
      });
      std::set<KernelKind> kinds;
      for (const KernelDesc *kernel : distinct)
        kinds.insert(kernel->kind);
      if (llvm::Error e = stack->prepare(
              std::vector<KernelKind>(kinds.begin(), kinds.end()))) {
        emitInputError(graph.getLoc(), std::move(e));
        return failure();
      }
      std::vector<KernelCost> costs(distinct.size());
      auto price = [&](size_t i) {
        costs[i] = stack->estimate(*distinct[i], *gpu);
      };
      // The context's threads start when first given work, about a
      // millisecond here, more than pricing a few hundred kernels takes.
      constexpr size_t kFewToPriceInParallel = 256;
      if (distinct.size() < kFewToPriceInParallel)
        for (size_t i = 0; i < distinct.size(); ++i)
          price(i);
      else
        mlir::parallelFor(&getContext(), 0, distinct.size(), price);
      // Both attributes in one new dictionary per distinct kernel.
      std::vector<std::pair<FloatAttr, StringAttr>> priceAttrs;
      priceAttrs.reserve(costs.size());
      for (const KernelCost &cost : costs)
        priceAttrs.push_back({builder.getF64FloatAttr(cost.latencyUs),
                              builder.getStringAttr(cost.model)});
      for (auto &[work, out] : outcomes)
        if (out.price != kNoPrice)
          out.priced = work.with([&](NamedAttrList &attrs) {
            attrs.set(kLatencyAttr, priceAttrs[out.price].first);
            attrs.set(kCostModelAttr, priceAttrs[out.price].second);
          });
      // One key: the graph's prices rewrite equal lists equally.
      RepeatedWorkUpdater<int> updater(&getContext());
      for (FrameworkOp fw : withKernels)
        updater.rewrite(fw, 0, [&](WorkAttr work) {
          return work.isKernel() ? outcomes.find(work)->second.priced : work;
        });
      if (move)
        graph->setAttr(kRetargetAttr, retargetSummary(builder, measuredOn,
                                                      retargeter->getMethod(),
                                                      moved, keptByKind));
      else
        graph->removeAttr(kRetargetAttr);
      // Kernels the database does not have, each once, on the first graph
      // that asked for it: what perf-bench --from should measure.
      // Priced in parallel, the database recorded its misses in any order:
      // they are listed sorted, the same whatever the thread count.
      std::vector<KernelCostMiss> misses = stack->misses();
      std::sort(misses.begin() + missesBefore, misses.end(),
                [](const KernelCostMiss &a, const KernelCostMiss &b) {
                  return std::tie(a.device, a.dtype, a.kind, a.signature) <
                         std::tie(b.device, b.dtype, b.kind, b.signature);
                });
      SmallVector<Attribute> missAttrs;
      for (size_t i = missesBefore; i < misses.size(); ++i)
        missAttrs.push_back(builder.getDictionaryAttr({
            builder.getNamedAttr("device",
                                 builder.getStringAttr(misses[i].device)),
            builder.getNamedAttr("dtype",
                                 builder.getStringAttr(misses[i].dtype)),
            builder.getNamedAttr("kind", builder.getStringAttr(misses[i].kind)),
            builder.getNamedAttr("signature",
                                 builder.getStringAttr(misses[i].signature)),
        }));
      if (missAttrs.empty())
        graph->removeAttr(kDbMissesAttr);
      else
        graph->setAttr(kDbMissesAttr, builder.getArrayAttr(missAttrs));
      return success();
    });
    if (failed(result))
      signalPassFailure();
  }

  /// A graph measured on a GPU known only by its trace's deviceProperties
  /// (`traceDevice`) can be estimated where every kernel was measured and
  /// the target is that GPU; anything else needs the GPU's figures.
  static LogicalResult checkTraceDevice(GraphOp graph,
                                        DictionaryAttr traceDevice) {
    int64_t measured = 0, unmeasured = 0;
    graph.walk([&](FrameworkOp fw) {
      for (WorkAttr work : fw.getWorkList())
        if (work.isKernel())
          ++(hasMeasuredLatency(work) ? measured : unmeasured);
    });
    auto name = traceDevice.getAs<StringAttr>("name");
    StringRef device = name ? name.getValue() : "?";
    if (!graph.getGpuTarget()) {
      if (unmeasured == 0)
        return success();
      return graph.emitError()
             << "graph @" << graph.getSymName() << " ran on '" << device
             << "' (the trace's deviceProperties), which the catalog does "
                "not know: its "
             << unmeasured
             << " kernels without a measurement need a GPU's figures; give "
                "--perf-device or --perf-device-file, or import the trace "
                "with --trace-device=<device JSON>";
    }
    if (measured == 0)
      return success();
    return graph.emitError()
           << "the " << measured << " kernels measured on '" << device
           << "' cannot be moved to " << graph.getGpuTarget().getSpec().name
           << ": the catalog does not know the GPU they ran on; import the "
              "trace with --trace-device=<catalog name or device JSON>";
  }

  /// The latency measured on the hardware: kept aside when an earlier run
  /// moved the kernel to another GPU.
  static double measuredLatency(WorkAttr kernel) {
    if (auto kept = kernel.getAs<FloatAttr>(kMeasuredLatencyAttr))
      return kept.getValueAsDouble();
    return kernel.getAs<FloatAttr>(kLatencyAttr).getValueAsDouble();
  }

  /// Back on the GPU it was measured on, a moved kernel takes its measured
  /// latency again.
  static WorkAttr restoreMeasured(WorkAttr kernel, Builder &builder) {
    if (!kernel.has(kMeasuredLatencyAttr))
      return kernel;
    double measured = measuredLatency(kernel);
    return kernel.with([&](NamedAttrList &attrs) {
      attrs.set(kLatencyAttr, builder.getF64FloatAttr(measured));
      attrs.set(kCostModelAttr, builder.getStringAttr("measured"));
      attrs.erase(kMeasuredLatencyAttr);
    });
  }

  static DictionaryAttr
  retargetSummary(Builder &builder, GpuAttr from, RetargetMethod method,
                  int64_t moved, const std::map<std::string, int64_t> &kept) {
    SmallVector<NamedAttribute> keptKinds;
    int64_t keptTotal = 0;
    for (const auto &[kind, n] : kept) {
      keptKinds.push_back(
          builder.getNamedAttr(kind, builder.getI64IntegerAttr(n)));
      keptTotal += n;
    }
    return builder.getDictionaryAttr({
        builder.getNamedAttr("from",
                             builder.getStringAttr(from.getSpec().name)),
        builder.getNamedAttr("method",
                             builder.getStringAttr(retargetMethodName(method))),
        builder.getNamedAttr("moved", builder.getI64IntegerAttr(moved)),
        builder.getNamedAttr("kept", builder.getI64IntegerAttr(keptTotal)),
        builder.getNamedAttr("kept_kinds",
                             builder.getDictionaryAttr(keptKinds)),
    });
  }
};
} // namespace
