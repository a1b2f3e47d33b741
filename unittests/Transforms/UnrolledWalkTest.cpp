//===- UnrolledWalkTest.cpp - A graph's copies without cloning ------------===//
//
// UnrolledWalk must visit exactly what --perf-unroll-repeat would write, in
// its order, and say which copy of which value each operand reads.
//
//===----------------------------------------------------------------------===//

#include "perf/Transforms/UnrolledWalk.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "perf/Transforms/Passes.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

using namespace mlir;
using namespace perf;

namespace {
// "a"; two copies of { "b"; three copies of { "c" } }; "d" reads the outer
// repeat's result. Unrolled: a b c c c b c c c d (10 host ops).
constexpr const char *kNested = R"mlir(
perf.graph @g {
  %a = perf.op "a" : () -> tensor<4xf32>
  %r = perf.repeat 2 (%a) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>):
    %b = perf.op "b"(%h, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %i = perf.repeat 3 (%b) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%g: tensor<4xf32>):
      %c = perf.op "c"(%g) : (tensor<4xf32>) -> tensor<4xf32> {
        perf.elementwise {elements = 4}
      }
      perf.yield %c : tensor<4xf32>
    }
    perf.yield %i : tensor<4xf32>
  }
  perf.op "d"(%r) : (tensor<4xf32>) -> ()
}
)mlir";

struct Parsed {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  GraphOp graph;
  explicit Parsed(const char *text) {
    context.loadDialect<PerfDialect>();
    module = parseSourceString<ModuleOp>(text, &context);
    if (module)
      graph = *module->getOps<GraphOp>().begin();
  }
};

StringRef nameOf(Operation *op) { return cast<FrameworkOp>(op).getOpName(); }

TEST(UnrolledWalk, VisitsTheCopiesInLaunchOrder) {
  Parsed p(kNested);
  ASSERT_TRUE(p.graph);
  UnrolledWalk walk;
  std::vector<std::string> order;
  std::vector<std::pair<Operation *, CopyId>> visited;
  ASSERT_TRUE(succeeded(walk.run(p.graph, [&](Operation *op, CopyId copy) {
    order.push_back(nameOf(op).str());
    visited.push_back({op, copy});
    return success();
  })));
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c", "c", "c", "b", "c",
                                             "c", "c", "d"}));
  EXPECT_EQ(walk.numInstances(), 10u);
  // Every run is numbered by its place in that order.
  for (auto [i, run] : llvm::enumerate(visited))
    EXPECT_EQ(walk.instanceOf(run.first, run.second), i);

  UnrolledWalk::Size size = UnrolledWalk::unrolledSize(p.graph);
  EXPECT_EQ(size.hostOps, 10u);
  EXPECT_EQ(size.deviceWork, 6u);
  // The verifier's count: the eight host ops inside the outer repeat and
  // a terminator per body copy (2 outer, 6 inner).
  RepeatOp outer = *p.graph.getBodyBlock().getOps<RepeatOp>().begin();
  EXPECT_EQ(outer.getUnrolledOpCount(), 8 + 2 + 6);
  EXPECT_EQ(UnrolledWalk::copiesOf(visited[2].first), 6);
  EXPECT_EQ(UnrolledWalk::copiesOf(visited[1].first), 2);
  EXPECT_EQ(UnrolledWalk::copiesOf(visited[0].first), 1);
}

TEST(UnrolledWalk, OperandsReadTheCopyBefore) {
  Parsed p(kNested);
  ASSERT_TRUE(p.graph);
  UnrolledWalk walk;
  // For each run, the instance index of the op whose result each operand
  // reads.
  std::vector<std::vector<size_t>> producers;
  ASSERT_TRUE(succeeded(walk.run(p.graph, [&](Operation *op, CopyId copy) {
    std::vector<size_t> from;
    for (Value operand : op->getOperands()) {
      auto [value, valueCopy] = walk.resolve(operand, copy);
      from.push_back(walk.instanceOf(value.getDefiningOp(), valueCopy));
    }
    producers.push_back(from);
    return success();
  })));
  // a b c c c b c c c d (instances 0..9): the first b reads a (the initial
  // value) and a; the first c of each inner repeat reads its b; each next c
  // the c before; the second b reads the third c (what the first outer
  // copy yields) and a, defined outside every repeat; d reads the last c.
  std::vector<std::vector<size_t>> expected = {{},     {0, 0}, {1}, {2}, {3},
                                               {4, 0}, {5},    {6}, {7}, {8}};
  EXPECT_EQ(producers, expected);
}

TEST(UnrolledWalk, ProducerOfIsTheResolvedValuesRun) {
  // The nested graph (operands in copies, a repeat's result read in the
  // graph's body) and a graph without repeats reading the second result of
  // an op.
  constexpr const char *kTwoResults = R"mlir(
perf.graph @g {
  %a:2 = perf.op "a" : () -> (tensor<4xf32>, tensor<4xf32>)
  %b = perf.op "b"(%a#1, %a#0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
}
)mlir";
  for (const char *text : {kNested, kTwoResults}) {
    Parsed p(text);
    ASSERT_TRUE(p.graph);
    UnrolledWalk walk;
    std::vector<std::pair<size_t, unsigned>> viaProducer, viaResolve;
    ASSERT_TRUE(succeeded(walk.run(p.graph, [&](Operation *op, CopyId copy) {
      for (Value operand : op->getOperands()) {
        std::optional<UnrolledWalk::Producer> from =
            walk.producerOf(operand, copy);
        if (!from)
          return failure();
        viaProducer.push_back({from->instance, from->result});
        auto [value, valueCopy] = walk.resolve(operand, copy);
        auto result = cast<OpResult>(value);
        viaResolve.push_back({walk.instanceOf(result.getOwner(), valueCopy),
                              result.getResultNumber()});
      }
      return success();
    })));
    EXPECT_EQ(viaProducer, viaResolve);
    if (text == kTwoResults) {
      std::vector<std::pair<size_t, unsigned>> expected = {{0, 1}, {0, 0}};
      EXPECT_EQ(viaProducer, expected);
    }
  }
}

TEST(UnrolledWalk, FindsOpsFarBeforeTheReader) {
  // "first", a repeat of 4 copies, 40 ops in a chain, then "last" reading
  // "first", the repeat's result and the chain's end: producers beyond the
  // last few ops visited are found in the block's order.
  std::string text = R"mlir(
perf.graph @g {
  %first = perf.op "first" : () -> tensor<4xf32>
  %r = perf.repeat 4 (%first) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>):
    %b = perf.op "body"(%h) : (tensor<4xf32>) -> tensor<4xf32>
    perf.yield %b : tensor<4xf32>
  }
  %c0 = perf.op "chain"(%first) : (tensor<4xf32>) -> tensor<4xf32>
)mlir";
  for (int i = 1; i < 40; ++i)
    text += "  %c" + std::to_string(i) + " = perf.op \"chain\"(%c" +
            std::to_string(i - 1) + ") : (tensor<4xf32>) -> tensor<4xf32>\n";
  text += "  perf.op \"last\"(%first, %r, %c39, %c0) : (tensor<4xf32>, "
          "tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> ()\n}\n";
  Parsed p(text.c_str());
  ASSERT_TRUE(p.graph);
  UnrolledWalk walk;
  std::vector<size_t> lastReads;
  ASSERT_TRUE(succeeded(walk.run(p.graph, [&](Operation *op, CopyId copy) {
    if (nameOf(op) == "last")
      for (Value operand : op->getOperands()) {
        auto [value, valueCopy] = walk.resolve(operand, copy);
        lastReads.push_back(walk.instanceOf(value.getDefiningOp(), valueCopy));
      }
    return success();
  })));
  // first 0, the four body copies 1-4, the chain 5-44, last 45.
  EXPECT_EQ(walk.numInstances(), 46u);
  EXPECT_EQ(lastReads, (std::vector<size_t>{0, 4, 44, 5}));
}

TEST(UnrolledWalk, GraphWithoutRepeatsIsItsOwnOrder) {
  Parsed p(R"mlir(
perf.graph @g {
  %a = perf.op "a" : () -> tensor<4xf32>
  perf.sync
  perf.op "b"(%a) : (tensor<4xf32>) -> ()
}
)mlir");
  ASSERT_TRUE(p.graph);
  EXPECT_TRUE(succeeded(requireUnrolled(p.graph, "perf-x")));
  UnrolledWalk walk;
  size_t visits = 0;
  ASSERT_TRUE(succeeded(walk.run(p.graph, [&](Operation *, CopyId copy) {
    EXPECT_EQ(copy, 0u);
    ++visits;
    return success();
  })));
  EXPECT_EQ(visits, 3u);
}

TEST(UnrolledWalk, RequireUnrolledNamesThePass) {
  Parsed p(kNested);
  ASSERT_TRUE(p.graph);
  std::string message;
  ScopedDiagnosticHandler handler(&p.context, [&](Diagnostic &d) {
    message = d.str();
    return success();
  });
  EXPECT_TRUE(failed(requireUnrolled(*p.module, "perf-fuse-elementwise")));
  EXPECT_EQ(message, "'perf.repeat' op is not supported by "
                     "--perf-fuse-elementwise: run --perf-unroll-repeat "
                     "before it");
}
/// Reads, after the passes before it, whether the graph's unrolled size is
/// still counted and what it says.
struct ReadKeptSize
    : public PassWrapper<ReadKeptSize, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReadKeptSize)
  explicit ReadKeptSize(std::optional<size_t> &hostOps) : hostOps(hostOps) {}
  void runOnOperation() override {
    for (GraphOp graph : getOperation().getOps<GraphOp>())
      if (auto kept = getCachedChildAnalysis<UnrolledSizeAnalysis>(graph))
        hostOps = kept->get().size.hostOps;
  }
  std::optional<size_t> &hostOps;
};

TEST(UnrolledWalk, CriticalPathKeepsTheSizeForTheReport) {
  // The nested graph, its work priced: the critical path counts it (ten
  // host ops) and keeps the count for the report's memory analysis.
  std::string text = kNested;
  size_t at = text.find("{elements = 4}");
  text.replace(at, 14, "{elements = 4, perf.latency_us = 2.0}");
  Parsed p(text.c_str());
  ASSERT_TRUE(p.graph);
  std::optional<size_t> hostOps;
  PassManager pm(&p.context);
  pm.addPass(createCriticalPath());
  pm.addPass(std::make_unique<ReadKeptSize>(hostOps));
  ASSERT_TRUE(succeeded(pm.run(*p.module)));
  ASSERT_TRUE(hostOps.has_value());
  EXPECT_EQ(*hostOps, 10u);
}
} // namespace
