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

static ElementwiseOp asFusable(Operation *op) {
  auto ew = dyn_cast_or_null<ElementwiseOp>(op);
  if (!ew || ew.getPass() != TrainingPass::Fwd)
    return nullptr;
  return ew;
}

static bool compatible(ElementwiseOp a, ElementwiseOp b) {
  return a.getElements() == b.getElements() && a.getDevice() == b.getDevice() &&
         a.getDtype() == b.getDtype();
}

static StringRef fnOf(ElementwiseOp op) {
  return op.getFn() ? *op.getFn() : StringRef("elementwise");
}

/// The parts a (possibly already fused) kernel is made of.
static void appendParts(Builder &b, ElementwiseOp op,
                        SmallVectorImpl<Attribute> &parts) {
  if (auto fused = op->getAttrOfType<ArrayAttr>(kFusedAttr)) {
    parts.append(fused.begin(), fused.end());
    return;
  }
  parts.push_back(b.getStringAttr(fnOf(op)));
}

/// Folds `producer` into `consumer`, which reads the producer's output as
/// one of its inputs; erases `producer`.
static void fuseInto(Builder &b, ElementwiseOp producer,
                     ElementwiseOp consumer) {
  SmallVector<Attribute> parts;
  appendParts(b, producer, parts);
  appendParts(b, consumer, parts);
  // The intermediate is no longer an input of the consumer.
  int64_t inputs = std::max<int64_t>(1, int64_t(producer.getInputs()) +
                                            int64_t(consumer.getInputs()) - 1);
  double flops = producer.getFlopsPerElement().convertToDouble() +
                 consumer.getFlopsPerElement().convertToDouble();
  std::string fn;
  for (Attribute p : parts)
    fn += (fn.empty() ? "" : "+") + cast<StringAttr>(p).getValue().str();
  consumer->setAttr("inputs", b.getI64IntegerAttr(inputs));
  consumer->setAttr("flops_per_element", b.getF64FloatAttr(flops));
  consumer->setAttr("fn", b.getStringAttr(fn));
  consumer->setAttr(kFusedAttr, b.getArrayAttr(parts));
  for (StringRef stale : {kLatencyAttr, kCostModelAttr})
    consumer->removeAttr(stale);
  producer->erase();
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
      if (!fw || !fw.getBodyBlockOrNull())
        continue;
      Block &body = *fw.getBodyBlockOrNull();

      // Across ops: the producer's last kernel feeds this op's first one
      // through a tensor nobody else reads.
      if (ElementwiseOp first = asFusable(&body.front())) {
        for (Value in : fw.getInputs()) {
          auto producer = in.getDefiningOp<FrameworkOp>();
          if (!producer || !in.hasOneUse() || producer->getNumResults() != 1 ||
              !producer.getBodyBlockOrNull())
            continue;
          Block &pbody = *producer.getBodyBlockOrNull();
          ElementwiseOp last = asFusable(&pbody.back());
          if (!last || !compatible(last, first))
            continue;
          fuseInto(b, last, first);
          ++removed;
          if (pbody.empty())
            producer.getBody().getBlocks().clear();
          break;
        }
      }

      // Within the op: consecutive element-wise kernels form a chain.
      for (Operation *k = &body.front(); k && k->getNextNode();) {
        Operation *next = k->getNextNode();
        ElementwiseOp a = asFusable(k), c = asFusable(next);
        if (a && c && compatible(a, c)) {
          fuseInto(b, a, c);
          ++removed;
        }
        k = next;
      }
    }
    if (removed)
      graph->setAttr(kFusedElementwiseAttr, b.getI64IntegerAttr(removed));
  }
};
} // namespace
