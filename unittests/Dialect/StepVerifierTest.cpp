//===- StepVerifierTest.cpp - The step verifier against MLIR's ------------===//
//
// verifyStep must give MLIR's verifier's answer on every module, and on
// failure its diagnostics, word for word and in order. Each module is parsed
// unverified twice, in two contexts, and verified once each way: the
// hand-written cases below (an invalid property behind a valid op that holds
// the same ones, an op with a region, a use before its definition, ...) and
// every .mlir file of the examples and the tests. Each is also written as
// bytecode and read back as `perf-opt --estimate` reads it, the graphs'
// bodies last (StepVerifier::checkTopLevel before they are read).
//
//===----------------------------------------------------------------------===//

#include "perf/Dialect/StepVerifier.h"
#include "ShippedMlir.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "perf/Dialect/PerfOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;

namespace {

/// What a verifier said: its answer and every diagnostic, with its
/// location and notes.
struct Verdict {
  bool valid = false;
  std::vector<std::string> diagnostics;
};

/// `text` parsed without the verifier (nullopt when it does not parse),
/// then verified by `verifier` in a context of its own.
/// A context with perf's dialect that allows unregistered ops.
void setUpContext(MLIRContext &context) {
  context.loadDialect<perf::PerfDialect>();
  context.allowUnregisteredDialects();
}

/// A diagnostic handler that appends each diagnostic, located, with its
/// notes, to `v`.
auto recordInto(Verdict &v) {
  return [&v](Diagnostic &diag) {
    std::string line;
    llvm::raw_string_ostream os(line);
    os << diag.getLocation() << ": " << diag;
    for (Diagnostic &note : diag.getNotes())
      os << " | " << note.getLocation() << ": " << note;
    v.diagnostics.push_back(line);
    return success();
  };
}

std::optional<Verdict> verdict(StringRef text,
                               LogicalResult (*verifier)(ModuleOp)) {
  MLIRContext context;
  setUpContext(context);
  Verdict v;
  ScopedDiagnosticHandler handler(&context, recordInto(v));
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module)
    return std::nullopt;
  v.diagnostics.clear();
  v.valid = succeeded(verifier(*module));
  return v;
}

LogicalResult mlirVerify(ModuleOp module) { return verify(module); }

/// `text` parsed without the verifier, written as bytecode and read back
/// as the estimate reads it: the top level first, checked, then the
/// graphs' bodies, then the whole verified by StepVerifier. Nullopt when
/// the text does not parse.
std::optional<Verdict> lazyVerdict(StringRef text) {
  std::string bytes;
  {
    MLIRContext context;
    setUpContext(context);
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    ParserConfig config(&context, /*verifyAfterParse=*/false);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
    if (!module)
      return std::nullopt;
    llvm::raw_string_ostream os(bytes);
    if (failed(writeBytecodeToFile(*module, os)))
      return std::nullopt;
  }
  MLIRContext context;
  setUpContext(context);
  Verdict v;
  ScopedDiagnosticHandler handler(&context, recordInto(v));
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  llvm::MemoryBufferRef buffer(bytes, "step.mlirbc");
  BytecodeReader reader(buffer, config, /*lazyLoad=*/true);
  Block block;
  if (failed(reader.readTopLevel(
          &block, [](Operation *op) { return !isa<perf::GraphOp>(op); })))
    return std::nullopt;
  perf::StepVerifier verifier;
  verifier.checkTopLevel(block);
  if (failed(reader.finalize()))
    return std::nullopt;
  EXPECT_TRUE(v.diagnostics.empty());
  auto module = cast<ModuleOp>(block.front());
  v.valid = succeeded(verifier.verify(module));
  return v;
}

/// Both verifiers' verdicts on `text`; fails the test where they differ.
/// Returns MLIR's verdict (nullopt when the text does not parse).
std::optional<Verdict> compare(StringRef text, const std::string &what) {
  std::optional<Verdict> mlir = verdict(text, mlirVerify);
  std::optional<Verdict> step = verdict(text, perf::verifyStep);
  EXPECT_EQ(mlir.has_value(), step.has_value()) << what;
  if (!mlir || !step)
    return mlir;
  EXPECT_EQ(mlir->valid, step->valid) << what;
  EXPECT_EQ(mlir->diagnostics, step->diagnostics) << what;
  // Read back from bytecode, the same answer (the locations are the
  // bytecode's, so the words are not compared).
  if (std::optional<Verdict> lazy = lazyVerdict(text)) {
    EXPECT_EQ(mlir->valid, lazy->valid) << what << " (from bytecode)";
    EXPECT_EQ(mlir->diagnostics.size(), lazy->diagnostics.size())
        << what << " (from bytecode)";
  }
  return mlir;
}

constexpr const char *kGraph =
    "perf.graph @g attributes {target = #perf.gpu<\"A100\">} {\n";

TEST(StepVerifier, AgreesWithMlirOnInvalidSteps) {
  struct Case {
    const char *name;
    std::string body;
    bool valid;
  };
  const std::string relu =
      "  %0 = perf.op \"aten::relu\" : () -> tensor<4xf32> {\n"
      "    perf.elementwise {elements = 4}\n  }\n";
  // Twenty ops in a chain after %0: further than the verifier's window of
  // recent producers, so an operand of %0 is found by the block's order.
  std::string chain;
  for (int i = 1; i <= 20; ++i)
    chain += "  %c" + std::to_string(i) + " = perf.op \"x\" : () -> i1\n";
  const std::vector<Case> cases = {
      {"valid", relu + "  perf.sync\n", true},
      {"a producer twenty ops back",
       relu + chain + "  %1 = perf.op \"x\"(%0) : (tensor<4xf32>) -> i1\n",
       true},
      {"a use twenty ops before its definition",
       "  %1 = perf.op \"x\"(%0) : (tensor<4xf32>) -> i1\n" + chain +
           "  %0 = perf.op \"x\" : () -> tensor<4xf32>\n",
       false},
      {"a use of the op's own result",
       relu + "  %1 = perf.op \"x\"(%1) : (i1) -> i1\n", false},
      {"a repeat",
       relu + "  %r = perf.repeat 3 (%0) : (tensor<4xf32>) -> tensor<4xf32> {\n"
              "  ^bb0(%a: tensor<4xf32>):\n"
              "    %1 = perf.op \"aten::relu\"(%a) : (tensor<4xf32>) -> "
              "tensor<4xf32> {\n      perf.elementwise {elements = 4}\n    }\n"
              "    perf.yield %1 : tensor<4xf32>\n  }\n",
       true},
      {"operands and results of any type (the properties alone are checked "
       "once per triple)",
       "  %0 = perf.op \"x\" : () -> i1\n"
       "  %1 = perf.op \"x\"(%0) : (i1) -> memref<2xf16>\n"
       "  %2:2 = perf.op \"x\"(%1, %0) : (memref<2xf16>, i1) -> (none, "
       "f8E4M3FN)\n",
       true},
      {"a device out of range",
       "  %0 = perf.op \"x\" : () -> tensor<4xf32>\n"
       "  %1 = \"perf.op\"() <{device = -1 : i64, op_name = \"x\"}> : () -> "
       "tensor<4xf32>\n",
       false},
      {"a device of 32 bits",
       "  %1 = \"perf.op\"() <{device = 0 : i32, op_name = \"x\"}> : () -> "
       "tensor<4xf32>\n",
       false},
      {"an empty op name", "  %0 = perf.op \"\" : () -> tensor<4xf32>\n",
       false},
      {"a work list holding what is not work",
       "  %1 = \"perf.op\"() <{op_name = \"x\", work = [1 : i64]}> : () -> "
       "tensor<4xf32>\n",
       false},
      {"a region, on an op whose properties passed before",
       "  %0 = perf.op \"x\" : () -> tensor<4xf32>\n"
       "  %1 = \"perf.op\"() <{device = 0 : i64, op_name = \"x\"}> ({\n"
       "  }) : () -> tensor<4xf32>\n",
       false},
      {"a use before its definition",
       "  %1 = perf.op \"x\"(%2) : (tensor<4xf32>) -> tensor<4xf32>\n"
       "  %2 = perf.op \"x\" : () -> tensor<4xf32>\n",
       false},
      {"a use before its definition inside a repeat",
       relu + "  %r = perf.repeat 3 (%0) : (tensor<4xf32>) -> tensor<4xf32> {\n"
              "  ^bb0(%a: tensor<4xf32>):\n"
              "    %1 = perf.op \"x\"(%2) : (tensor<4xf32>) -> tensor<4xf32>\n"
              "    %2 = perf.op \"x\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
              "    perf.yield %1 : tensor<4xf32>\n  }\n",
       false},
      {"a discardable perf attribute of the wrong kind",
       "  %0 = perf.op \"x\" : () -> tensor<4xf32>\n"
       "  %1 = perf.op \"x\" {perf.overhead_us = 3 : i64} : () -> "
       "tensor<4xf32>\n",
       false},
      {"an attribute of an unknown dialect",
       "  %0 = perf.op \"x\" {other.fact = 1 : i64} : () -> tensor<4xf32>\n",
       true},
      {"an unregistered op", "  %0 = \"other.op\"() : () -> i1\n", true},
      {"a sync on a stream out of range", "  perf.sync {stream = -2}\n", false},
  };
  for (const Case &c : cases) {
    std::optional<Verdict> mlir =
        compare(std::string(kGraph) + c.body + "}\n", c.name);
    ASSERT_TRUE(mlir) << c.name << ": does not parse";
    EXPECT_EQ(mlir->valid, c.valid) << c.name;
    EXPECT_EQ(mlir->diagnostics.empty(), c.valid) << c.name;
  }
}

TEST(StepVerifier, AgreesWithMlirOnModules) {
  // Two graphs of one name: the module's symbol table.
  std::optional<Verdict> twice =
      compare(std::string(kGraph) + "}\n" + kGraph + "}\n", "two graphs @g");
  ASSERT_TRUE(twice);
  EXPECT_FALSE(twice->valid);
  // An op beside the graphs.
  std::optional<Verdict> beside =
      compare(std::string(kGraph) + "}\n\"other.op\"() : () -> ()\n",
              "an op beside a graph");
  ASSERT_TRUE(beside);
  EXPECT_TRUE(beside->valid);
}

TEST(StepVerifier, AgreesWithMlirOnValuesFromOutsideTheGraph) {
  // Text cannot name a value outside an isolated region: the IR is made so
  // after parsing. An op of the graph's body, and an op nested in one (which
  // the graph's isolation alone checks), reading a value of the module.
  const std::string text =
      "%outside = \"other.make\"() : () -> tensor<4xf32>\n" +
      std::string(kGraph) +
      "  %0 = perf.op \"x\" : () -> tensor<4xf32>\n"
      "  %1 = perf.op \"x\"(%0) : (tensor<4xf32>) -> tensor<4xf32>\n"
      "  %r = perf.repeat 3 (%0) : (tensor<4xf32>) -> tensor<4xf32> {\n"
      "  ^bb0(%a: tensor<4xf32>):\n"
      "    %2 = perf.op \"x\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
      "    perf.yield %2 : tensor<4xf32>\n  }\n}\n";
  for (bool nested : {false, true}) {
    Verdict verdicts[2];
    for (int which = 0; which < 2; ++which) {
      MLIRContext context;
      setUpContext(context);
      ParserConfig config(&context, /*verifyAfterParse=*/false);
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
      ASSERT_TRUE(module);
      Value outside = module->getBody()->front().getResult(0);
      auto graph = *module->getOps<perf::GraphOp>().begin();
      Operation *reader = nullptr;
      graph.walk([&](perf::FrameworkOp op) {
        bool inRepeat = isa<perf::RepeatOp>(op->getParentOp());
        if (op->getNumOperands() == 1 && inRepeat == nested)
          reader = op;
      });
      ASSERT_TRUE(reader);
      reader->setOperand(0, outside);
      Verdict &v = verdicts[which];
      ScopedDiagnosticHandler handler(&context, recordInto(v));
      v.valid = succeeded(which ? perf::verifyStep(*module) : verify(*module));
    }
    EXPECT_FALSE(verdicts[0].valid) << "nested: " << nested;
    EXPECT_EQ(verdicts[0].valid, verdicts[1].valid) << "nested: " << nested;
    EXPECT_EQ(verdicts[0].diagnostics, verdicts[1].diagnostics)
        << "nested: " << nested;
  }
}

TEST(StepVerifier, AgreesWithMlirOnEveryExampleAndTest) {
  int compared = 0, invalid = 0;
  perf::testing::forEachShippedMlirPart([&](StringRef path, StringRef part) {
    std::optional<Verdict> mlir = compare(part, path.str());
    if (!mlir)
      return;
    ++compared;
    invalid += !mlir->valid;
  });
  // The tests hold valid steps and steps the verifier refuses.
  EXPECT_GT(compared, 80);
  EXPECT_GT(invalid, 5);
}

} // namespace
