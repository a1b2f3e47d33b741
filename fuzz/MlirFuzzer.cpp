//===- MlirFuzzer.cpp - perf IR: parser, verifier, estimate ---------------===//
//
// Textual perf IR is parsed and verified; what verifies is estimated with
// the default pipeline on the roofline, so the kernel descriptions, the cost
// models and the critical-path walk see every size the verifier lets in.
// The graph text reader (perf::readGraphText) reads the same text: it must
// refuse what MLIR's parser refuses and build what MLIR's parser builds,
// locations and properties included.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "perf/Dialect/GraphTextReader.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;

static constexpr llvm::StringLiteral kBufferName = "input.mlir";

/// `module` in generic form with its locations.
static std::string printed(ModuleOp module) {
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo(
                        /*enable=*/true, /*prettyForm=*/false));
  return out;
}

/// Aborts (a finding) where the graph text reader and MLIR's parser differ.
static void compareWithGraphTextReader(llvm::StringRef text, ModuleOp mlir) {
  perf::fuzz::QuietContext context;
  llvm::SourceMgr sourceMgr;
  // Named as MLIR's parser's buffer, so that locations compare.
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, kBufferName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> fast = perf::readGraphText(sourceMgr, &context.get());
  if (!fast)
    return;
  if (!mlir || printed(*fast) != printed(mlir))
    std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  perf::fuzz::QuietContext context;
  // MLIR's lexer stops at the NUL that a MemoryBuffer of a file guarantees
  // after its end; libFuzzer's bytes have none, so they are copied into a
  // string, which does.
  std::string text(perf::fuzz::text(data, size));
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, ParserConfig(&context.get()), kBufferName);
  compareWithGraphTextReader(perf::fuzz::text(data, size),
                             module ? *module : ModuleOp());
  if (!module)
    return 0;
  // A few bytes of perf.repeat can stand for millions of ops, each walked:
  // time, not a defect. The verifier's limit on them is what is fuzzed.
  constexpr int64_t kMaxWalkedOps = 100'000;
  WalkResult large = module->walk([&](perf::GraphOp graph) {
    int64_t unrolled = 0;
    for (Operation &op : graph.getBodyBlock()) {
      auto repeat = dyn_cast<perf::RepeatOp>(op);
      unrolled += repeat ? repeat.getUnrolledOpCount() : 1;
    }
    return unrolled > kMaxWalkedOps ? WalkResult::interrupt()
                                    : WalkResult::advance();
  });
  if (large.wasInterrupted())
    return 0;
  PassManager pm(&context.get());
  perf::EstimateOptions options;
  options.models = "roofline";
  options.output = ""; // Priced and walked, not printed.
  options.iterations = 2;
  perf::buildEstimatePipeline(pm, options);
  (void)pm.run(*module);
  return 0;
}
