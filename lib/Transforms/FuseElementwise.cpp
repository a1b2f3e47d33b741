//===- FuseElementwise.cpp - --perf-fuse-elementwise ----------------------===//
//
// Element-wise kernels are memory bound: a chain of them writes and reads
// every intermediate tensor. Fused (as XLA, TorchInductor or TensorRT do),
// the chain reads its external inputs once and writes its result once. The
// fused kernel lives in the last op of the chain, which transitively waits
// for every input of the chain.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"

namespace perf {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

static bool isFusable(WorkAttr work) {
  auto elementwise = dyn_cast<ElementwiseWork>(work);
  return elementwise && elementwise.getPass() == TrainingPass::Fwd;
}

/// Two fusable kernels (isFusable) over the same elements, device and type.
static bool compatible(WorkAttr first, WorkAttr second) {
  auto a = cast<ElementwiseWork>(first), b = cast<ElementwiseWork>(second);
  return a.getElements() == b.getElements() &&
         a.getDeviceId() == b.getDeviceId() && a.getDtype() == b.getDtype();
}

static StringRef fnOf(ElementwiseWork work) {
  StringRef fn = work.getFn();
  return fn.empty() ? StringRef("elementwise") : fn;
}

/// The parts a (possibly already fused) kernel is made of.
static void appendParts(Builder &b, ElementwiseWork work,
                        SmallVectorImpl<Attribute> &parts) {
  if (auto fused = work.getAs<ArrayAttr>(kFusedAttr)) {
    parts.append(fused.begin(), fused.end());
    return;
  }
  parts.push_back(b.getStringAttr(fnOf(work)));
}

/// `consumer` with `producer` folded in: the consumer reads the producer's
/// output as one of its inputs. The caller drops `producer`.
static WorkAttr fuseInto(Builder &b, WorkAttr producerWork,
                         WorkAttr consumerWork) {
  auto producer = cast<ElementwiseWork>(producerWork);
  auto consumer = cast<ElementwiseWork>(consumerWork);
  SmallVector<Attribute> parts;
  appendParts(b, producer, parts);
  appendParts(b, consumer, parts);
  // The intermediate is no longer an input of the consumer.
  int64_t inputs =
      std::max<int64_t>(1, producer.getInputs() + consumer.getInputs() - 1);
  double flops = producer.getFlopsPerElement() + consumer.getFlopsPerElement();
  std::string fn;
  for (Attribute p : parts)
    fn += (fn.empty() ? "" : "+") + cast<StringAttr>(p).getValue().str();
  ElementwiseWork fused =
      consumer.withInputs(inputs).withFlopsPerElement(flops).withFn(fn);
  return fused.with([&](NamedAttrList &attrs) {
    attrs.set(kFusedAttr, b.getArrayAttr(parts));
    for (StringRef stale : {kLatencyAttr, kCostModelAttr})
      attrs.erase(stale);
  });
}

namespace {
struct FuseElementwisePass
    : perf::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    Builder b(&getContext());
    GraphOp graph = getOperation();
    int64_t removed = 0;
    for (Operation &op : graph.getBodyBlock()) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw || !fw.hasWork())
        continue;
      SmallVector<WorkAttr> work(fw.getWorkList());

      // Across ops: the producer's last kernel feeds this op's first one
      // through a tensor nobody else reads.
      if (isFusable(work.front())) {
        for (Value in : fw.getInputs()) {
          auto producer = in.getDefiningOp<FrameworkOp>();
          if (!producer || !in.hasOneUse() || producer->getNumResults() != 1 ||
              !producer.hasWork())
            continue;
          ArrayRef<WorkAttr> pwork = producer.getWorkList();
          WorkAttr last = pwork.back();
          if (!isFusable(last) || !compatible(last, work.front()))
            continue;
          work.front() = fuseInto(b, last, work.front());
          ++removed;
          producer.setWorkList(pwork.drop_back());
          break;
        }
      }

      // Within the op: consecutive element-wise kernels form a chain.
      SmallVector<WorkAttr> chained;
      chained.reserve(work.size());
      for (WorkAttr w : work) {
        if (!chained.empty() && isFusable(chained.back()) && isFusable(w) &&
            compatible(chained.back(), w)) {
          w = fuseInto(b, chained.back(), w);
          chained.pop_back();
          ++removed;
        }
        chained.push_back(w);
      }
      if (ArrayRef<WorkAttr>(chained) != fw.getWorkList())
        fw.setWorkList(chained);
    }
    if (removed)
      graph->setAttr(kFusedElementwiseAttr, b.getI64IntegerAttr(removed));
  }
};
} // namespace
