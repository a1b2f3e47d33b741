//===- FuseConvBiasAct.cpp - --perf-fuse-conv-bias-act --------------------===//
//
// cuDNN's cudnnConvolutionBiasActivationForward runs a convolution, its bias
// add and a pointwise activation in one kernel (Benanza's first fusion
// pattern). The fused kernel is priced as the convolution: the bias and
// activation happen in its epilogue, so their traffic disappears.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "perf/Transforms/UnrolledWalk.h"
#include "llvm/ADT/StringSet.h"

namespace perf {
#define GEN_PASS_DEF_FUSECONVBIASACT
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

/// Activations cuDNN's fused convolution epilogue supports.
static bool isFusableActivation(StringRef fn) {
  static const llvm::StringSet<> activations = {"relu", "sigmoid", "tanh",
                                                "clip", "elu",     "identity"};
  return activations.contains(fn);
}

static StringRef fnOf(ElementwiseOp op) {
  return op.getFn() ? *op.getFn() : StringRef();
}

/// Output elements of a forward convolution.
static int64_t convOutputElements(Conv2dOp conv) {
  KernelDesc d = conv.getKernelDesc();
  return d.batch * d.outChannels * d.outH() * d.outW();
}

/// An element-wise kernel that can join `conv`'s epilogue.
static ElementwiseOp epilogueCandidate(Operation *op, Conv2dOp conv) {
  auto ew = dyn_cast_or_null<ElementwiseOp>(op);
  if (!ew || ew.getPass() != TrainingPass::Fwd ||
      ew.getDevice() != conv.getDevice() ||
      static_cast<int64_t>(ew.getElements()) != convOutputElements(conv))
    return nullptr;
  return ew;
}

/// The single op that consumes every result of `op`, when there is one.
static FrameworkOp soleConsumer(FrameworkOp op) {
  if (op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
    return nullptr;
  return dyn_cast<FrameworkOp>(*op->getResult(0).getUsers().begin());
}

namespace {
struct FuseConvBiasActPass
    : perf::impl::FuseConvBiasActBase<FuseConvBiasActPass> {
  using FuseConvBiasActBase::FuseConvBiasActBase;

  void runOnOperation() override {
    if (failed(requireUnrolled(getOperation(), getArgument())))
      return signalPassFailure();
    Builder b(&getContext());
    GraphOp graph = getOperation();
    int64_t fused = 0;
    for (Operation &op : graph.getBodyBlock()) {
      auto fw = dyn_cast<FrameworkOp>(op);
      if (!fw || !fw.getBodyBlockOrNull())
        continue;
      Block &body = *fw.getBodyBlockOrNull();
      Operation *last = &body.back();
      auto conv = dyn_cast<Conv2dOp>(last);
      // The convolution must end its op, or be followed there only by its
      // bias add.
      ElementwiseOp bias;
      if (!conv) {
        auto ew = dyn_cast<ElementwiseOp>(last);
        if (!ew || fnOf(ew) != "bias" || !last->getPrevNode())
          continue;
        conv = dyn_cast<Conv2dOp>(last->getPrevNode());
        if (!conv || !epilogueCandidate(last, conv))
          continue;
        bias = ew;
      }
      if (conv.getPass() != TrainingPass::Fwd || conv->hasAttr(kFusedAttr))
        continue;
      SmallVector<Attribute> parts;
      if (bias) {
        parts.push_back(b.getStringAttr("bias"));
        bias->erase();
      }
      // An activation op right after, that only this op feeds.
      if (FrameworkOp next = soleConsumer(fw))
        if (Block *nextBody = next.getBodyBlockOrNull())
          if (llvm::hasSingleElement(*nextBody) && next.getInputs().size() == 1)
            if (ElementwiseOp act = epilogueCandidate(&nextBody->front(), conv))
              if (isFusableActivation(fnOf(act))) {
                parts.push_back(b.getStringAttr(fnOf(act)));
                act->erase();
                next.getBody().getBlocks().clear();
              }
      if (parts.empty())
        continue;
      conv->setAttr(kFusedAttr, b.getArrayAttr(parts));
      ++fused;
    }
    if (fused)
      graph->setAttr(kFusedConvBiasActAttr, b.getI64IntegerAttr(fused));
  }
};
} // namespace
