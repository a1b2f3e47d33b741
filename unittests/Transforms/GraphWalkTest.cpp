//===- GraphWalkTest.cpp - Running a pass graph by graph ------------------===//
//
// forEachGraph visits every perf.graph of a module in order, nested modules
// included. It does not search a graph's body (a step's body is millions of
// host ops), where no graph can be: a graph is a symbol, whose parent must
// be a symbol table.
//
//===----------------------------------------------------------------------===//

#include "perf/Transforms/GraphWalk.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"
#include <string>
#include <vector>

using namespace mlir;
using namespace perf;

namespace {
// @nested is in a module of its own.
constexpr const char *kGraphs = R"mlir(
perf.graph @first {
  %a = perf.op "a" : () -> tensor<4xf32>
}
perf.graph @outer {
  %b = perf.op "b" : () -> tensor<4xf32>
}
module {
  perf.graph @nested {
  }
}
perf.graph @last {
}
)mlir";

struct Parsed {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  explicit Parsed(const char *text) {
    context.loadDialect<PerfDialect>();
    module = parseSourceString<ModuleOp>(text, &context);
  }
};

/// The names of the graphs forEachGraph visits under `root`, failing at the
/// graph named `failAt`, and whether it succeeded.
struct Visited {
  std::vector<std::string> names;
  bool succeeded;
};
Visited visit(Operation *root, StringRef failAt = "") {
  Visited v;
  v.succeeded = succeeded(forEachGraph(root, [&](GraphOp graph) {
    v.names.push_back(graph.getSymName().str());
    return failure(graph.getSymName() == failAt);
  }));
  return v;
}

TEST(GraphWalk, VisitsEveryGraphInOrder) {
  Parsed p(kGraphs);
  ASSERT_TRUE(p.module);
  Visited v = visit(*p.module);
  EXPECT_TRUE(v.succeeded);
  EXPECT_EQ(v.names,
            (std::vector<std::string>{"first", "outer", "nested", "last"}));
}

TEST(GraphWalk, StopsAtTheFirstGraphThatFails) {
  Parsed p(kGraphs);
  ASSERT_TRUE(p.module);
  Visited v = visit(*p.module, "outer");
  EXPECT_FALSE(v.succeeded);
  EXPECT_EQ(v.names, (std::vector<std::string>{"first", "outer"}));
}

TEST(GraphWalk, VisitsTheRootWhenItIsAGraph) {
  Parsed p(kGraphs);
  ASSERT_TRUE(p.module);
  GraphOp outer;
  for (GraphOp graph : p.module->getOps<GraphOp>())
    if (graph.getSymName() == "outer")
      outer = graph;
  ASSERT_TRUE(outer);
  Visited v = visit(outer);
  EXPECT_TRUE(v.succeeded);
  EXPECT_EQ(v.names, (std::vector<std::string>{"outer"}));
}
} // namespace
