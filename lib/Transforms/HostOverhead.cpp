//===- HostOverhead.cpp - --perf-host-overhead ----------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/InputDiagnostics.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/HostOverheadTable.h"
#include "perf/Support/TupleKeyInfo.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/RepeatedAttrs.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/DenseSet.h"
#include <cmath>
#include <optional>

namespace perf {
#define GEN_PASS_DEF_HOSTOVERHEAD
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

namespace {
struct HostOverheadPass : perf::impl::HostOverheadBase<HostOverheadPass> {
  using HostOverheadBase::HostOverheadBase;

  // Options are checked before any pass runs.
  LogicalResult initialize(MLIRContext *context) override {
    if (!(scale > 0) || !std::isfinite(scale))
      return emitError(UnknownLoc::get(context),
                       "host overhead scale must be a positive number, got ")
             << scale;
    if (launch != "auto" && launch != "eager" && launch != "cuda-graph")
      return emitError(UnknownLoc::get(context),
                       "host overhead launch must be auto, eager or "
                       "cuda-graph, got '")
             << launch << "'";
    // The table is read once, before any pass runs, and shared by every
    // graph.
    overheads = std::make_shared<HostOverheadTable>();
    if (!table.empty()) {
      llvm::Expected<HostOverheadTable> loaded =
          HostOverheadTable::resolve(table);
      if (!loaded) {
        emitInputError(UnknownLoc::get(context), loaded.takeError());
        return failure();
      }
      *overheads = std::move(*loaded);
    }
    return success();
  }

  std::shared_ptr<HostOverheadTable> overheads;

  void runOnOperation() override {
    const HostOverheadTable &overheads = *this->overheads;
    Builder builder(&getContext());
    // One update per distinct value (RepeatedAttrs.h): a step's ops repeat.
    // Each value type goes under one name, so the value names the update.
    RepeatedAttrUpdater<Attribute> updater(&getContext());
    auto setOne = [&](Operation *op, StringRef name, Attribute value) {
      updater.apply(op, value,
                    [&](NamedAttrList &attrs) { attrs.set(name, value); });
    };
    // T1, T2, T3 and T5 of `name`'s row; `t5`, when given, in the T5 slot.
    // An op that enters an annotated region of a trace (`region`) takes the
    // region's T1.
    auto overheadsOf = [&](StringRef name, StringAttr region,
                           std::optional<double> t5 = std::nullopt) {
      double t1 = region ? overheads.entryT1(region.getValue(), name)
                         : overheads.get(name, Overhead::T1);
      double t[4] = {scale * t1, scale * overheads.get(name, Overhead::T2),
                     scale * overheads.get(name, Overhead::T3),
                     t5 ? *t5 : scale * overheads.get(name, Overhead::T5)};
      return builder.getDenseF64ArrayAttr(t);
    };
    // The report names the table that priced the step.
    if (!table.empty())
      getOperation()->setAttr(kHostTableAttr, builder.getStringAttr(table));
    // The launch queue the table was measured with goes with it.
    if (overheads.launchQueueDepth > 0)
      getOperation()->setAttr(
          kLaunchQueueDepthAttr,
          builder.getI64IntegerAttr(overheads.launchQueueDepth));
    // An iteration imported from a trace ends with the table's tail.
    if (overheads.iterationTail &&
        getOperation()->hasAttr(kMeasuredIterationAttr))
      getOperation()->setAttr(
          kHostTailAttr,
          builder.getF64FloatAttr(scale * overheads.iterationTailUs()));
    // Work and work lists repeat across a step's layers: each distinct one
    // is priced once. Every launch is priced the same way, under one key.
    RepeatedWorkUpdater<unsigned> launches(&getContext());
    auto priceLaunch = [&](WorkAttr work) {
      return launches.apply(work, 0, [&](NamedAttrList &attrs) {
        // The function a trace says launched it, else the one that
        // launches its kind.
        auto traced = work.getAs<StringAttr>(kLaunchCallAttr);
        StringRef call = traced ? traced.getValue() : defaultLaunchCall(work);
        attrs.set(kLaunchAttr,
                  builder.getF64FloatAttr(scale * overheads.runtimeCall(call)));
      });
    };
    // What this pass writes on a framework op (its overheads, its launches'
    // prices) depends on its name, its discardable attributes (the trace
    // region it enters) and its work list only: ops alike in these (a step
    // repeats its layers) get one dictionary and one list, made once, for
    // one lookup an op.
    struct Rewritten {
      DictionaryAttr attrs;
      ArrayAttr work;
    };
    using Key = std::tuple<StringAttr, DictionaryAttr, ArrayAttr>;
    llvm::DenseMap<Key, Rewritten, TupleKeyInfo<Key>> rewritten;
    // A step captured as a CUDA graph: the host replays it with one
    // cudaGraphLaunch, which the first op pays, and no op or kernel costs
    // the host anything of its own.
    bool captured =
        launch == "cuda-graph" ||
        (launch == "auto" && getOperation()->hasAttr(kCudaGraphAttr));
    if (captured) {
      bool first = true;
      DenseF64ArrayAttr none = builder.getDenseF64ArrayAttr({0, 0, 0, 0});
      UnrolledWalk::forEachHostOp(getOperation(), [&](Operation *op, int64_t) {
        double launch =
            first ? scale * overheads.runtimeCall("cudaGraphLaunch") : 0;
        first = false;
        setOne(op, kOverheadAttr,
               launch > 0 ? builder.getDenseF64ArrayAttr({launch, 0, 0, 0})
                          : none);
        if (auto fw = dyn_cast<FrameworkOp>(op))
          launches.rewrite(fw, 1, [&](WorkAttr work) {
            return launches.apply(work, 1, [&](NamedAttrList &attrs) {
              attrs.set(kLaunchAttr, builder.getF64FloatAttr(0));
            });
          });
      });
      return;
    }
    UnrolledWalk::forEachHostOp(getOperation(), [&](Operation *op, int64_t) {
      if (auto fw = dyn_cast<FrameworkOp>(op)) {
        DictionaryAttr before = op->getDiscardableAttrDictionary();
        auto [it, fresh] = rewritten.try_emplace(
            {fw.getOpNameAttr(), before, fw.getWorkAttr()});
        if (fresh) {
          auto region = getDiscardable<StringAttr>(op, kEnteredRegionAttr);
          setOne(op, kOverheadAttr, overheadsOf(fw.getOpName(), region));
          launches.rewrite(fw, 0, priceLaunch);
          it->second = {op->getDiscardableAttrDictionary(), fw.getWorkAttr()};
          return;
        }
        op->setDiscardableAttrs(it->second.attrs);
        if (it->second.work != fw.getWorkAttr())
          fw.setWorkAttr(it->second.work);
      } else if (isa<SyncOp>(op)) {
        // A wait imported from a trace names its call: the host time before
        // it is that call's row (a call made outside every operator is a
        // top-level op of the trace), its own cost after the wait takes the
        // T5 slot.
        auto call = op->getAttrOfType<StringAttr>("call");
        setOne(op, kOverheadAttr,
               overheadsOf(call ? call.getValue() : "cudaDeviceSynchronize",
                           getDiscardable<StringAttr>(op, kEnteredRegionAttr),
                           call ? scale * overheads.syncCall(call.getValue())
                                : 0));
      }
    });
    if (overheads.layerUs > 0)
      addLayerOverheads(scale * overheads.layerUs, builder);
  }

  /// The host time of a transformer block beyond its ops' own (the table's
  /// layer_us) goes before the block's first op, into its T1: the first op
  /// of each perf.layer in launch order.
  void addLayerOverheads(double us, Builder &builder) {
    std::optional<int64_t> previous;
    RepeatedAttrUpdater<Attribute> updater(&getContext());
    // An op of a repeat's body is visited once per copy and updated once.
    llvm::DenseSet<Operation *> updated;
    UnrolledWalk::forEachHostOp(getOperation(), [&](Operation *op, int64_t) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw)
        return;
      std::optional<int64_t> current = layerOf(op);
      bool first = current && current != previous;
      previous = current;
      auto overhead = getDiscardable<DenseF64ArrayAttr>(op, kOverheadAttr);
      if (!first || !overhead || overhead.size() != 4 ||
          !updated.insert(op).second)
        return;
      SmallVector<double, 4> t(overhead.asArrayRef());
      t[0] += us;
      Attribute value = builder.getDenseF64ArrayAttr(t);
      updater.apply(op, value, [&](NamedAttrList &attrs) {
        attrs.set(kOverheadAttr, value);
      });
    });
  }
};
} // namespace
