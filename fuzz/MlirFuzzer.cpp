//===- MlirFuzzer.cpp - perf IR: parser, verifier, estimate ---------------===//
//
// Textual perf IR is parsed and verified; what verifies is estimated with
// the default pipeline on the roofline, so the kernel descriptions, the cost
// models and the critical-path walk see every size the verifier lets in.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;

static constexpr llvm::StringLiteral kBufferName = "input.mlir";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  perf::fuzz::QuietContext context;
  // MLIR's lexer stops at the NUL that a MemoryBuffer of a file guarantees
  // after its end; libFuzzer's bytes have none, so they are copied into a
  // string, which does.
  std::string text(perf::fuzz::text(data, size));
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, ParserConfig(&context.get()), kBufferName);
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
  options.kernelCost.models = "roofline";
  options.report.output = ""; // Priced and walked, not printed.
  options.criticalPath.iterations = 2;
  perf::buildEstimatePipeline(pm, options);
  (void)pm.run(*module);
  return 0;
}
