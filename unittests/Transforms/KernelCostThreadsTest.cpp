//===- KernelCostThreadsTest.cpp - Prices whatever the thread count -------===//
//
// --perf-kernel-cost prices the distinct kernels of a graph on the
// context's threads. The module it writes, database misses included, must
// be the same byte for byte with 1, 2 and 8 threads, with the learned stack
// (its boosters behind a lock) and the analytic models.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <string>

using namespace mlir;

namespace {
/// A step of `count` GEMMs and layer norms of different shapes (every one
/// distinct), each twice, on an A100.
std::string stepText(int count) {
  std::string text = "perf.graph @g attributes {target = "
                     "#perf.gpu<\"A100-SXM4-80GB\">} {\n";
  for (int repeat = 0; repeat < 2; ++repeat)
    for (int i = 0; i < count; ++i) {
      int m = 64 * (1 + i % 37), n = 128 * (1 + i % 11), k = 256 + 32 * i;
      text += "  perf.op \"mm\" : () -> () {\n    perf.gemm {m = " +
              std::to_string(m) + ", n = " + std::to_string(n) +
              ", k = " + std::to_string(k) + ", dtype = f16}\n  }\n";
      text += "  perf.op \"ln\" : () -> () {\n    perf.layernorm {rows = " +
              std::to_string(m * 8) + ", cols = " + std::to_string(n) +
              ", dtype = f32}\n  }\n";
    }
  return text + "}\n";
}

/// The priced module's text with `threads` threads (0: threading off).
std::string price(unsigned threads, llvm::StringRef models) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  std::unique_ptr<llvm::DefaultThreadPool> pool;
  if (threads > 0) {
    pool = std::make_unique<llvm::DefaultThreadPool>(
        llvm::hardware_concurrency(threads));
    context.setThreadPool(*pool);
  }
  context.loadDialect<perf::PerfDialect>();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(stepText(150), &context);
  if (!module)
    return "parse failed";
  PassManager pm(&context);
  perf::KernelCostOptions options;
  options.models = models.str();
  options.mlModelDir = std::string(PERF_SOURCE_DIR) + "/data/models/neusight";
  pm.addPass(perf::createKernelCost(options));
  if (failed(pm.run(*module)))
    return "pass failed";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}
} // namespace

TEST(KernelCostThreads, SameModuleWhateverTheThreadCount) {
  // The default learned stack (ml prices the layer norms, behind the
  // boosters' lock) and an analytic one (heuristic prices the GEMMs).
  for (auto [models, pricedBy] :
       {std::pair<llvm::StringRef, llvm::StringRef>{"auto", "ml"},
        {"heuristic,roofline", "heuristic"}}) {
    std::string serial = price(0, models);
    ASSERT_NE(serial.find("perf.cost_model = \"" + pricedBy.str() + "\""),
              std::string::npos)
        << serial;
    for (unsigned threads : {1u, 2u, 8u})
      EXPECT_EQ(price(threads, models), serial)
          << models.str() << " with " << threads << " threads";
  }
}
