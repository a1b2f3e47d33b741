//===- UnrollRepeat.cpp - --perf-unroll-repeat ----------------------------===//

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"

namespace perf {
#define GEN_PASS_DEF_UNROLLREPEAT
#include "perf/Transforms/Passes.h.inc"
} // namespace perf

using namespace perf;
using namespace mlir;

/// Replaces `repeat`, whose body holds no repeat, by its copies.
static void unroll(RepeatOp repeat) {
  OpBuilder builder(repeat);
  Block &body = repeat.getBodyBlock();
  SmallVector<Value> carried(repeat.getInits());
  for (uint64_t i = 0, e = repeat.getCount(); i < e; ++i) {
    IRMapping mapping;
    mapping.map(body.getArguments(), carried);
    for (Operation &op : body.without_terminator())
      builder.clone(op, mapping);
    for (auto [slot, yielded] : llvm::zip(carried, repeat.getYielded()))
      slot = mapping.lookupOrDefault(yielded);
  }
  repeat.replaceAllUsesWith(carried);
  repeat.erase();
}

namespace {
struct UnrollRepeatPass : perf::impl::UnrollRepeatBase<UnrollRepeatPass> {
  void runOnOperation() override {
    // Post-order: a nested repeat is unrolled inside its parent's body
    // before the parent is copied.
    SmallVector<RepeatOp> repeats;
    getOperation().walk<WalkOrder::PostOrder>(
        [&](RepeatOp repeat) { repeats.push_back(repeat); });
    for (RepeatOp repeat : repeats)
      unroll(repeat);
  }
};
} // namespace
