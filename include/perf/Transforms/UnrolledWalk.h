//===- UnrolledWalk.h - The host ops of a graph with repeats unrolled ----===//
//
// perf.repeat stands for its body written out `count` times. The passes that
// time a step or sum over it (the critical path, the report, the memory
// analysis) need the unrolled launch order and the values each copy reads,
// but not the unrolled IR: UnrolledWalk visits every copy of every host op
// and says which copy of which value an operand stands for, so a repeated
// body is read from the IR once per copy without being cloned.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRANSFORMS_UNROLLEDWALK_H
#define PERF_TRANSFORMS_UNROLLEDWALK_H

#include "mlir/Support/LLVM.h"
#include "perf/Dialect/PerfOps.h"
#include "llvm/ADT/DenseMap.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace perf {

/// One copy of a perf.repeat body in the unrolled graph; scope 0 is the
/// graph's own body.
using CopyId = uint32_t;
/// A value of the unrolled graph: an SSA value as defined in one copy.
using ValueCopy = std::pair<mlir::Value, CopyId>;

class UnrolledWalk {
public:
  /// `indexInstances`: whether instanceOf() will be asked (it costs a
  /// vector entry per host op of the graph's own body).
  explicit UnrolledWalk(bool indexInstances = true)
      : indexInstances(indexInstances) {}

  using Visitor =
      llvm::function_ref<mlir::LogicalResult(mlir::Operation *, CopyId)>;

  /// Visits the host ops (perf.op, perf.sync, any other op but perf.repeat
  /// and its terminator) of `graph` in the unrolled graph's launch order,
  /// each with the copy it runs in; stops at the first failure.
  mlir::LogicalResult run(GraphOp graph, Visitor visit);

  /// What `value`, read by an op of `copy`, is in the unrolled graph: the
  /// result of a host op in some copy (a body argument stands for what the
  /// previous copy yields, a repeat's result for what its last copy yields).
  /// Valid during and after run() for the copies visited so far.
  ValueCopy resolve(mlir::Value value, CopyId copy) const;

  /// Where the run of host op `op` in `copy` comes in the visiting order (0
  /// for the first op visited): the index run() visited it with. Valid for
  /// the copies visited so far. Fastest for the ops visited last: an op's
  /// producers are mostly a few ops before it.
  size_t instanceOf(mlir::Operation *op, CopyId copy) const;

  /// The host op run whose result `value`, read by an op of `copy`, stands
  /// for: its instance index (as instanceOf) and which of its results; none
  /// for a value no host op defines (an argument of the graph).
  struct Producer {
    size_t instance;
    unsigned result;
  };
  std::optional<Producer> producerOf(mlir::Value value, CopyId copy) const {
    // Most values of a step written out: a result of an op of the graph's
    // own body, read there.
    if (auto result = llvm::dyn_cast<mlir::OpResult>(value); result && !copy) {
      mlir::Operation *def = result.getOwner();
      if (def->getBlock() == copies.front().block && !llvm::isa<RepeatOp>(def))
        return Producer{topLevelIndexOf(def), result.getResultNumber()};
    }
    auto [resolved, resolvedCopy] = resolve(value, copy);
    auto result = llvm::dyn_cast<mlir::OpResult>(resolved);
    if (!result)
      return std::nullopt;
    return Producer{instanceOf(result.getOwner(), resolvedCopy),
                    result.getResultNumber()};
  }

  /// Host ops visited so far.
  size_t numInstances() const { return visited; }

  /// How many times the unrolled graph runs `op`: the product of the counts
  /// of the perf.repeat ops around it.
  static int64_t copiesOf(mlir::Operation *op);

  /// Visits each host op of `graph` once, in program order, with the number
  /// of times the unrolled graph runs it.
  static void
  forEachHostOp(GraphOp graph,
                llvm::function_ref<void(mlir::Operation *, int64_t)> visit);

  /// Host ops and device work (kernels, copies, collectives) of the
  /// unrolled graph, and host ops of the graph's own body (outside repeats).
  struct Size {
    size_t hostOps = 0, deviceWork = 0, topLevelOps = 0;
  };
  static Size unrolledSize(GraphOp graph);
  /// Makes room for a graph of `size` before run(): what instanceOf() keeps
  /// per host op of the graph's own body is then allocated once, instead of
  /// copied as it grows (tens of MB on a million-op graph).
  void reserve(const Size &size);

private:
  /// `firstCopy`: whether this is the first copy of `block` the walk
  /// visits, which numbers the block's ops (offsetInCopy).
  mlir::LogicalResult walkBlock(mlir::Block &block, CopyId copy, bool firstCopy,
                                Visitor visit);

  struct Copy {
    CopyId parent = 0;
    mlir::Block *block = nullptr;
    /// The instance index of the copy's first host op.
    size_t first = 0;
    /// What the body's arguments stand for in this copy.
    llvm::SmallVector<ValueCopy, 2> args;
  };
  std::vector<Copy> copies;
  /// A repeat's results, per copy of the block that holds the repeat.
  llvm::DenseMap<ValueCopy, ValueCopy> repeatResults;
  /// The host ops of the graph's own body in program order, each with its
  /// instance index. Not a map keyed by op: on a million-op graph, hashing
  /// every op was 6% of an estimate (a cache miss per insertion), while the
  /// ops asked for are mostly the last few visited.
  struct TopLevelOp {
    mlir::Operation *op;
    size_t instance;
  };
  std::vector<TopLevelOp> topLevel;
  /// The instance index of each host op of a repeat body from the start of
  /// its copy (the same in every copy, so numbered in the first).
  llvm::DenseMap<mlir::Operation *, size_t> offsetInCopy;
  size_t topLevelIndexOf(mlir::Operation *op) const;
  size_t visited = 0;
  bool indexInstances;
};

/// Fails with an error naming `passArgument` when a perf.graph under (or
/// at) `root` holds a perf.repeat: for the passes that rewrite or read a
/// graph op by op and do not know what a repeat's copies are.
mlir::LogicalResult requireUnrolled(mlir::Operation *root,
                                    llvm::StringRef passArgument);

/// UnrolledWalk::unrolledSize as an MLIR analysis of a perf.graph: the
/// critical path and then the report's memory analysis each make room for
/// the unrolled graph, and counting it is a walk over every op. A pass that
/// keeps the graph's ops and their work lists as many as they were
/// preserves it (markAnalysesPreserved<UnrolledSizeAnalysis>()).
struct UnrolledSizeAnalysis {
  explicit UnrolledSizeAnalysis(mlir::Operation *graph)
      : size(UnrolledWalk::unrolledSize(llvm::cast<GraphOp>(graph))) {}
  UnrolledWalk::Size size;
};

} // namespace perf

#endif // PERF_TRANSFORMS_UNROLLEDWALK_H
