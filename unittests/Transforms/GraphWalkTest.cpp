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

TEST(GraphWalk, VisitsEveryGraphInOrder) {
  Parsed p(kGraphs);
  ASSERT_TRUE(p.module);
  std::vector<std::string> names;
  LogicalResult result = forEachGraph(*p.module, [&](GraphOp graph) {
    names.push_back(graph.getSymName().str());
    return success();
  });
  EXPECT_TRUE(succeeded(result));
  EXPECT_EQ(names,
            (std::vector<std::string>{"first", "outer", "nested", "last"}));
}

TEST(GraphWalk, StopsAtTheFirstGraphThatFails) {
  Parsed p(kGraphs);
  ASSERT_TRUE(p.module);
  std::vector<std::string> names;
  LogicalResult result = forEachGraph(*p.module, [&](GraphOp graph) {
    names.push_back(graph.getSymName().str());
    return failure(graph.getSymName() == "outer");
  });
  EXPECT_TRUE(failed(result));
  EXPECT_EQ(names, (std::vector<std::string>{"first", "outer"}));
}

TEST(GraphWalk, VisitsTheRootWhenItIsAGraph) {
  Parsed p(kGraphs);
  ASSERT_TRUE(p.module);
  GraphOp outer;
  for (GraphOp graph : p.module->getOps<GraphOp>())
    if (graph.getSymName() == "outer")
      outer = graph;
  ASSERT_TRUE(outer);
  std::vector<std::string> names;
  (void)forEachGraph(outer, [&](GraphOp graph) {
    names.push_back(graph.getSymName().str());
    return success();
  });
  EXPECT_EQ(names, (std::vector<std::string>{"outer"}));
}
} // namespace
