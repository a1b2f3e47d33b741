//===- GraphTextReaderTest.cpp - The graph text reader against MLIR's -----===//
//
// The reader must build the module MLIR's parser builds, op for op, with
// the same properties, attributes and locations, or build nothing and say
// nothing. Every .mlir file of the examples and the tests is read both ways
// and printed in generic form with its locations.
//
//===----------------------------------------------------------------------===//

#include "perf/Dialect/GraphTextReader.h"
#include "ShippedMlir.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "perf/Dialect/PerfOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <memory>
#include <string>

using namespace mlir;

namespace {

std::shared_ptr<llvm::SourceMgr> sourceOf(StringRef text,
                                          StringRef name = "step.mlir") {
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, name), llvm::SMLoc());
  return sourceMgr;
}

/// The module in generic form with every location and property.
std::string printed(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(
                        /*enable=*/true, /*pretty=*/false));
  return text;
}

struct Reading {
  OwningOpRef<ModuleOp> module;
  std::vector<std::string> diagnostics;
};

/// What readGraphText makes of `text`, and what it reported.
Reading readFast(MLIRContext &context, StringRef text,
                 StringRef name = "step.mlir") {
  Reading reading;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    reading.diagnostics.push_back(diagnostic.str());
    return success();
  });
  reading.module = perf::readGraphText(*sourceOf(text, name), &context);
  return reading;
}

/// What MLIR's parser makes of `text` (null and silent when it fails).
OwningOpRef<ModuleOp> readMlir(MLIRContext &context, StringRef text,
                               StringRef name = "step.mlir") {
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  return parseSourceFile<ModuleOp>(sourceOf(text, name),
                                   ParserConfig(&context));
}

class GraphTextReaderTest : public ::testing::Test {
protected:
  GraphTextReaderTest() { context.loadDialect<perf::PerfDialect>(); }
  MLIRContext context;
};

constexpr const char *kStep = R"mlir(// A comment before the graph.
perf.graph @step attributes {phase = "training", target = #perf.gpu<"A100">} {
  %v0 = perf.op "input" : () -> tensor<64x128xf32>
  %v1 = perf.op "aten::linear"(%v0) : (tensor<64x128xf32>) -> tensor<64x128xf32> {
    perf.gemm {m = 64, n = 128, k = 128}
  }
  %v2:2 = perf.op "aten::split"(%v1) {device = 0 : i64, perf.layer = 3} : (tensor<64x128xf32>) -> (tensor<32x128xf32>, tensor<32x128xf32>)
  %a, %b = perf.op "aten::chunk"(%v2#1) : (tensor<32x128xf32>) -> (tensor<16x128xf32>, tensor<16x128xf32>) {
    perf.elementwise {elements = 4096, fn = "copy"}
    perf.memcpy {bytes = 64 : i64, kind = #perf.copy<d2h>}
  }
  perf.op "c10d::allreduce_"(%b) : (tensor<16x128xf32>) -> () {
    perf.all_reduce {bytes = 8192 : i64, group = array<i64: 0, 1>}
  }
  perf.sync {device = 1 : i64}
  %v3 = perf.op "aten::linear"(%v0) : (tensor<64x128xf32>) -> tensor<64x128xf32> {
    perf.gemm {m = 64, n = 128, k = 128}
  }
  perf.op "aten::add"(%v3, %v0) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32> {perf.elementwise {elements = 8192, inputs = 2}}
}
)mlir";

TEST_F(GraphTextReaderTest, BuildsTheModuleMlirBuilds) {
  Reading fast = readFast(context, kStep);
  ASSERT_TRUE(fast.module) << "declined";
  EXPECT_TRUE(fast.diagnostics.empty());
  OwningOpRef<ModuleOp> slow = readMlir(context, kStep);
  ASSERT_TRUE(slow);
  EXPECT_EQ(printed(*fast.module), printed(*slow));
}

TEST_F(GraphTextReaderTest, ReadsAModuleOfGraphs) {
  const char *text = R"mlir(module attributes {app.note = "two steps"} {
  perf.graph @a {
    %x = perf.op "x" : () -> tensor<2xf32>
  }
  perf.graph @b attributes {phase = "decode"} {
    %x = perf.op "y" : () -> tensor<4xf32>
    perf.sync
  }
}
)mlir";
  Reading fast = readFast(context, text);
  ASSERT_TRUE(fast.module) << "declined";
  OwningOpRef<ModuleOp> slow = readMlir(context, text);
  ASSERT_TRUE(slow);
  EXPECT_EQ(printed(*fast.module), printed(*slow));
  // The module written in the text is the module, located at its keyword.
  auto loc = cast<FileLineColLoc>(fast.module->getLoc());
  EXPECT_EQ(loc.getLine(), 1u);
  EXPECT_EQ(loc.getColumn(), 1u);
  EXPECT_EQ(llvm::range_size(fast.module->getOps<perf::GraphOp>()), 2);
}

TEST_F(GraphTextReaderTest, LocatesOpsAtTheirNames) {
  Reading fast = readFast(context, kStep);
  ASSERT_TRUE(fast.module);
  auto graph = cast<perf::GraphOp>(fast.module->getBody()->front());
  auto at = [](Operation &op) {
    auto loc = cast<FileLineColLoc>(op.getLoc());
    return std::make_tuple(loc.getFilename().str(), loc.getLine(),
                           loc.getColumn());
  };
  EXPECT_EQ(at(*graph), std::make_tuple(std::string("step.mlir"), 2u, 1u));
  Block &body = graph.getBodyBlock();
  // `  %v0 = perf.op`: the op's name is at column 9 of line 3.
  EXPECT_EQ(at(body.front()),
            std::make_tuple(std::string("step.mlir"), 3u, 9u));
  // `  perf.sync` on line 15, column 3.
  auto sync = *graph.getOps<perf::SyncOp>().begin();
  EXPECT_EQ(at(*sync), std::make_tuple(std::string("step.mlir"), 15u, 3u));
  // No module in the text: one at the file, as MLIR's parser makes.
  auto moduleLoc = cast<FileLineColLoc>(fast.module->getLoc());
  EXPECT_EQ(moduleLoc.getLine(), 0u);
  EXPECT_EQ(moduleLoc.getColumn(), 0u);
}

TEST_F(GraphTextReaderTest, SharesWhatRepeats) {
  Reading fast = readFast(context, kStep);
  ASSERT_TRUE(fast.module);
  SmallVector<perf::FrameworkOp> ops(
      cast<perf::GraphOp>(fast.module->getBody()->front())
          .getBodyBlock()
          .getOps<perf::FrameworkOp>());
  ASSERT_EQ(ops.size(), 7u);
  // %v1 and %v3: the same work list, one attribute; the same op name.
  EXPECT_EQ(ops[1].getOpNameAttr(), ops[5].getOpNameAttr());
  EXPECT_EQ(ops[1].getWorkAttr(), ops[5].getWorkAttr());
  EXPECT_EQ(ops[1].getNumWork(), 1u);
  // The unnamed result of the last op, its work on the type's line.
  EXPECT_EQ(ops[6]->getNumResults(), 1u);
  EXPECT_EQ(ops[6].getNumWork(), 1u);
  EXPECT_EQ(ops[3]->getNumResults(), 2u);
  EXPECT_EQ(ops[3].getNumWork(), 2u);
}

/// Text the reader leaves to MLIR's parser: valid, but not in the form it
/// reads. It must build nothing and report nothing.
TEST_F(GraphTextReaderTest, LeavesOtherFormsToMlir) {
  const char *others[] = {
      // The generic form.
      R"mlir(perf.graph @g {
  %0 = "perf.op"() <{op_name = "x"}> : () -> tensor<2xf32>
})mlir",
      // A type alias.
      R"mlir(!t = tensor<2xf32>
perf.graph @g {
  %0 = perf.op "x" : () -> !t
})mlir",
      // A location written out.
      R"mlir(perf.graph @g {
  %0 = perf.op "x" : () -> tensor<2xf32> loc("a.py":3:1)
})mlir",
      // A repeat.
      R"mlir(perf.graph @g {
  perf.repeat 2 : () -> () {
    perf.op "x" : () -> ()
  }
})mlir",
      // An escape in the op's name.
      R"mlir(perf.graph @g {
  %0 = perf.op "a\"b" : () -> tensor<2xf32>
})mlir",
      // A comment inside an attribute dictionary.
      R"mlir(perf.graph @g {
  %0 = perf.op "x" {perf.layer = 1 // one
  } : () -> tensor<2xf32>
})mlir",
      // Another dialect's op.
      R"mlir(func.func @f() {
  return
})mlir",
      // A named module.
      R"mlir(module @m {
  perf.graph @g {
  }
})mlir",
  };
  for (const char *text : others) {
    Reading fast = readFast(context, text);
    EXPECT_FALSE(fast.module) << text;
    EXPECT_TRUE(fast.diagnostics.empty()) << text;
    // MLIR's parser reads every one of them (the named module included).
    EXPECT_TRUE(readMlir(context, text) ||
                StringRef(text).contains("func.func"))
        << text;
  }
}

/// Wrong text: the reader declines without a word, and parseGraphText
/// reports MLIR's error, located.
TEST_F(GraphTextReaderTest, LeavesErrorsToMlir) {
  struct Case {
    const char *text;
    const char *error;
  } cases[] = {
      {R"mlir(perf.graph @g {
  %0 = perf.op "x"(%missing) : (tensor<2xf32>) -> tensor<2xf32>
})mlir",
       "step.mlir:2:20: use of undeclared SSA value name"},
      {R"mlir(perf.graph @g {
  %0 = perf.op "x" : () -> tensor<2xf32>
  %0 = perf.op "y" : () -> tensor<2xf32>
})mlir",
       "step.mlir:3:3: redefinition of SSA value '%0'"},
      {R"mlir(perf.graph @g {
  %0 = perf.op "x" : () -> tensor<2xf32>
  %1 = perf.op "y"(%0) : (tensor<4xf32>) -> tensor<2xf32>
})mlir",
       "step.mlir:3:20: use of value '%0' expects different type than prior "
       "uses: 'tensor<4xf32>' vs 'tensor<2xf32>'"},
      {R"mlir(perf.graph @g {
  %0 = perf.op "x" : () -> tensor<2xf32> {
    perf.gemm {m = 0, n = 1, k = 1}
  }
})mlir",
       "step.mlir:3:5: "},
      {R"mlir(perf.graph @g {
  perf.op "x" {device = "gpu"} : () -> ()
})mlir",
       "step.mlir:2:15: custom op 'perf.op' 'perf.op' op attribute 'device' "
       "failed to satisfy constraint"},
      // A symbol starts with a letter or '_' (found by fuzz-mlir).
      {"perf.graph @-g {\n}\n",
       "step.mlir:1:13: @ identifier expected to start with letter or '_'"},
      // A comment ends at a carriage return too (found by fuzz-mlir).
      {"perf.graph @g {\n  // one\rtwo\n}\n",
       "step.mlir:2:10: Dialect `' not found for custom op 'two'"},
      // A vertical tab ends a string (found by fuzz-mlir).
      {"perf.graph @g {\n  %0 = perf.op \"a\vb\" : () -> tensor<2xf32>\n}\n",
       "step.mlir:2:18: expected '\"' in string literal"},
      {R"mlir(perf.graph @g {
  %0 = perf.op "x" : () -> tensor<2xf32>
)mlir",
       "step.mlir:2:41: expected operation name in quotes"},
  };
  for (const Case &c : cases) {
    Reading fast = readFast(context, c.text);
    EXPECT_FALSE(fast.module) << c.text;
    EXPECT_TRUE(fast.diagnostics.empty()) << c.text;
    std::string errors;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
      auto loc = cast<FileLineColLoc>(diagnostic.getLocation());
      errors +=
          (loc.getFilename().str() + ":" + std::to_string(loc.getLine()) + ":" +
           std::to_string(loc.getColumn()) + ": " + diagnostic.str() + "\n");
      return success();
    });
    EXPECT_FALSE(perf::parseGraphText(*sourceOf(c.text), &context)) << c.text;
    EXPECT_TRUE(StringRef(errors).contains(c.error))
        << c.text << "\ngot: " << errors;
  }
}

/// Every .mlir file of the examples and the lit tests, each part of a
/// split file on its own: what the reader builds is what MLIR's parser
/// builds, and text MLIR's parser refuses the reader refuses too.
TEST_F(GraphTextReaderTest, AgreesWithMlirOnEveryShippedFile) {
  int read = 0, declined = 0, compared = 0;
  perf::testing::forEachShippedMlirPart([&](StringRef path, StringRef part) {
    ++compared;
    MLIRContext fastContext, slowContext;
    fastContext.loadDialect<perf::PerfDialect>();
    slowContext.loadDialect<perf::PerfDialect>();
    fastContext.allowUnregisteredDialects();
    slowContext.allowUnregisteredDialects();
    Reading fast = readFast(fastContext, part, path);
    EXPECT_TRUE(fast.diagnostics.empty()) << path.str();
    OwningOpRef<ModuleOp> slow = readMlir(slowContext, part, path);
    if (!fast.module) {
      ++declined;
      return;
    }
    ++read;
    ASSERT_TRUE(slow) << path.str() << ": read text MLIR refuses:\n"
                      << part.str();
    EXPECT_EQ(printed(*fast.module), printed(*slow)) << path.str();
  });
  // Most shipped graphs are in the form the reader reads; if it declined
  // them all this test would compare nothing.
  EXPECT_GT(read, 60) << "read " << read << ", declined " << declined << " of "
                      << compared;
}

} // namespace
