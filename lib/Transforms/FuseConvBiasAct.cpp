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

static StringRef fnOf(WorkAttr work) {
  auto elementwise = dyn_cast<ElementwiseWork>(work);
  return elementwise ? elementwise.getFn() : StringRef();
}

/// Output elements of a forward convolution.
static int64_t convOutputElements(WorkAttr conv) {
  KernelDesc d = conv.getKernelDesc();
  return d.batch * d.outChannels * d.outH() * d.outW();
}

/// Whether `work` is an element-wise kernel that can join `conv`'s epilogue.
static bool isEpilogueCandidate(WorkAttr work, WorkAttr conv) {
  auto elementwise = dyn_cast<ElementwiseWork>(work);
  return elementwise && elementwise.getPass() == TrainingPass::Fwd &&
         work.getDeviceId() == conv.getDeviceId() &&
         elementwise.getElements() == convOutputElements(conv);
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
      if (!fw || !fw.hasWork())
        continue;
      SmallVector<WorkAttr> work(fw.getWorkList());
      size_t convIndex = work.size() - 1;
      // The convolution must end its op, or be followed there only by its
      // bias add.
      bool bias = false;
      if (work[convIndex].getKind() != WorkKind::Conv2d) {
        WorkAttr last = work.back();
        if (last.getKind() != WorkKind::Elementwise || fnOf(last) != "bias" ||
            work.size() < 2)
          continue;
        --convIndex;
        if (work[convIndex].getKind() != WorkKind::Conv2d ||
            !isEpilogueCandidate(last, work[convIndex]))
          continue;
        bias = true;
      }
      WorkAttr conv = work[convIndex];
      if (conv.getTrainingPass() != TrainingPass::Fwd || conv.has(kFusedAttr))
        continue;
      SmallVector<Attribute> parts;
      if (bias) {
        parts.push_back(b.getStringAttr("bias"));
        work.pop_back();
      }
      // An activation op right after, that only this op feeds.
      if (FrameworkOp next = soleConsumer(fw))
        if (next.getNumWork() == 1 && next.getInputs().size() == 1) {
          WorkAttr act = next.getWork(0);
          if (isEpilogueCandidate(act, conv) &&
              isFusableActivation(fnOf(act))) {
            parts.push_back(b.getStringAttr(fnOf(act)));
            next.setWorkList({});
          }
        }
      if (parts.empty())
        continue;
      work[convIndex] = conv.with(kFusedAttr, b.getArrayAttr(parts));
      fw.setWorkList(work);
      ++fused;
    }
    if (fused)
      graph->setAttr(kFusedConvBiasActAttr, b.getI64IntegerAttr(fused));
  }
};
} // namespace
