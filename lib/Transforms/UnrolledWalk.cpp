//===- UnrolledWalk.cpp - The host ops of a graph with repeats unrolled --===//

#include "perf/Transforms/UnrolledWalk.h"
#include "perf/Support/HugePages.h"

using namespace perf;
using namespace mlir;

LogicalResult UnrolledWalk::run(GraphOp graph, Visitor visit) {
  copies.clear();
  repeatResults.clear();
  topLevel.clear();
  offsetInCopy.clear();
  visited = 0;
  copies.push_back({0, &graph.getBodyBlock(), 0, {}});
  return walkBlock(graph.getBodyBlock(), 0, /*firstCopy=*/true, visit);
}

void UnrolledWalk::reserve(const Size &size) {
  if (indexInstances)
    reserveHuge(topLevel, size.topLevelOps);
}

LogicalResult UnrolledWalk::walkBlock(Block &block, CopyId copy, bool firstCopy,
                                      Visitor visit) {
  for (Operation &op : block) {
    if (isa<YieldOp>(op))
      continue;
    auto repeat = dyn_cast<RepeatOp>(op);
    if (!repeat) {
      if (indexInstances) {
        if (copy == 0)
          topLevel.push_back({&op, visited});
        else if (firstCopy)
          offsetInCopy.try_emplace(&op, visited - copies[copy].first);
      }
      if (failed(visit(&op, copy)))
        return failure();
      ++visited;
      continue;
    }
    Block &body = repeat.getBodyBlock();
    CopyId previous = 0;
    for (uint64_t i = 0, e = repeat.getCount(); i < e; ++i) {
      Copy next{copy, &body, visited, {}};
      // The first copy reads the initial values; every other copy what the
      // one before it yields.
      if (i == 0)
        for (Value init : repeat.getInits())
          next.args.push_back(resolve(init, copy));
      else
        for (Value yielded : repeat.getYielded())
          next.args.push_back(resolve(yielded, previous));
      copies.push_back(std::move(next));
      previous = static_cast<CopyId>(copies.size() - 1);
      if (failed(walkBlock(body, previous, firstCopy && i == 0, visit)))
        return failure();
    }
    for (auto [result, yielded] :
         llvm::zip(repeat.getResults(), repeat.getYielded()))
      repeatResults[{result, copy}] = resolve(yielded, previous);
  }
  return success();
}

ValueCopy UnrolledWalk::resolve(Value value, CopyId copy) const {
  while (true) {
    const Copy &scope = copies[copy];
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == scope.block)
        return scope.args[arg.getArgNumber()];
    } else if (value.getDefiningOp()->getBlock() == scope.block) {
      if (isa<RepeatOp>(value.getDefiningOp()))
        return repeatResults.lookup({value, copy});
      return {value, copy};
    }
    // Defined in a block around this one: the same value in every copy.
    if (copy == 0)
      return {value, 0};
    copy = scope.parent;
  }
}

size_t UnrolledWalk::topLevelIndexOf(Operation *op) const {
  // The last few ops first, comparing pointers only: no op is read.
  constexpr size_t kRecent = 16;
  size_t end = topLevel.size();
  for (size_t i = end; i > 0 && end - i < kRecent; --i)
    if (topLevel[i - 1].op == op)
      return topLevel[i - 1].instance;
  // An older op: topLevel is in the order of the graph's block, which the
  // block's own op order compares.
  ArrayRef<TopLevelOp> older =
      ArrayRef(topLevel).drop_back(std::min(end, kRecent));
  const TopLevelOp *it =
      llvm::partition_point(older, [&](const TopLevelOp &entry) {
        return entry.op->isBeforeInBlock(op);
      });
  assert(it != older.end() && it->op == op && "not a visited host op");
  return it->instance;
}

size_t UnrolledWalk::instanceOf(Operation *op, CopyId copy) const {
  if (copy == 0)
    return topLevelIndexOf(op);
  return copies[copy].first + offsetInCopy.lookup(op);
}

int64_t UnrolledWalk::copiesOf(Operation *op) {
  int64_t copies = 1;
  for (auto repeat = op->getParentOfType<RepeatOp>(); repeat;
       repeat = repeat->getParentOfType<RepeatOp>())
    copies *= static_cast<int64_t>(repeat.getCount());
  return copies;
}

static void forEachHostOpIn(Block &block, int64_t copies,
                            function_ref<void(Operation *, int64_t)> visit) {
  for (Operation &op : block) {
    if (isa<YieldOp>(op))
      continue;
    if (auto repeat = dyn_cast<RepeatOp>(op))
      forEachHostOpIn(repeat.getBodyBlock(),
                      copies * static_cast<int64_t>(repeat.getCount()), visit);
    else
      visit(&op, copies);
  }
}

void UnrolledWalk::forEachHostOp(
    GraphOp graph, function_ref<void(Operation *, int64_t)> visit) {
  forEachHostOpIn(graph.getBodyBlock(), 1, visit);
}

UnrolledWalk::Size UnrolledWalk::unrolledSize(GraphOp graph) {
  Size size;
  Block *body = &graph.getBodyBlock();
  forEachHostOp(graph, [&](Operation *op, int64_t copies) {
    size.hostOps += static_cast<size_t>(copies);
    if (op->getBlock() == body)
      ++size.topLevelOps;
    if (auto fw = dyn_cast<FrameworkOp>(op))
      size.deviceWork += static_cast<size_t>(copies) * fw.getNumWork();
  });
  return size;
}

LogicalResult perf::requireUnrolled(Operation *root, StringRef passArgument) {
  RepeatOp found;
  root->walk<WalkOrder::PreOrder>([&](GraphOp graph) {
    for (Operation &op : graph.getBodyBlock())
      if (auto repeat = dyn_cast<RepeatOp>(op)) {
        found = repeat;
        return WalkResult::interrupt();
      }
    // A graph holds no graph.
    return WalkResult::skip();
  });
  if (!found)
    return success();
  return found.emitOpError("is not supported by --")
         << passArgument << ": run --perf-unroll-repeat before it";
}
