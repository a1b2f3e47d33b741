//===- EstimatePipelineTest.cpp - The estimate pipeline in process --------===//
//
// runEstimate hands the report and the timeline back as strings, written by
// the report and critical-path passes into the caller's memory (no file in
// between), and the `estimate` pipeline's textual options reach the passes
// they belong to (EstimateOptions.def).
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/Passes.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <string>

using namespace mlir;
using namespace perf;

namespace {
// Toy GPU: 1 TFLOP/s. Each 100^3 GEMM is 2e6 FLOP: 2 us at full efficiency.
constexpr const char *kStep = R"mlir(
perf.graph @g attributes {target = #perf.gpu<"toy", sms = 1, fp32_tflops = 1, mem_bw_gbs = 1000>} {
  perf.op "a" : () -> () {
    perf.gemm {m = 100, n = 100, k = 100}
    perf.gemm {m = 100, n = 100, k = 100}
  }
}
)mlir";

struct Parsed {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Parsed() {
    context.loadDialect<PerfDialect>();
    module = parseSourceString<ModuleOp>(kStep, &context);
  }
};

double e2eOf(ModuleOp module) {
  auto graph = cast<GraphOp>(&module.getBody()->front());
  auto estimate = graph->getAttrOfType<DictionaryAttr>("perf.estimate");
  return cast<FloatAttr>(estimate.get("e2e_us")).getValueAsDouble();
}

TEST(EstimatePipeline, ReportAndTimelineComeBackAsData) {
  Parsed step;
  ASSERT_TRUE(step.module);
  EstimateOptions options;
  options.kernelCost.computeEfficiency = 1.0;
  // The built-in overheads (T1 8, T2 10, T3 5, T4 10, T5 5 us), by hand:
  // host 0 + T1 + T2 = 18; the first GEMM at 18 + T4/2 = 23..25; the host
  // launches the second at 18 + T4 + T5 = 33, it runs 38..40; the op ends
  // on the host at 33 + T4 + T3 = 48. End to end 48 us.
  llvm::Expected<EstimateResult> result =
      runEstimate(*step.module, "", "", options, /*withTimeline=*/true);
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  llvm::Expected<llvm::json::Value> report = llvm::json::parse(result->report);
  ASSERT_TRUE(static_cast<bool>(report)) << result->report;
  const llvm::json::Object *graph =
      report->getAsObject()->getArray("graphs")->front().getAsObject();
  EXPECT_EQ(graph->getString("graph"), "g");
  EXPECT_DOUBLE_EQ(*graph->getNumber("e2e_us"), 48.0);
  EXPECT_DOUBLE_EQ(*graph->getNumber("gpu_active_us"), 4.0);
  // The timeline: a Chrome trace with both kernels in it.
  llvm::Expected<llvm::json::Value> trace = llvm::json::parse(result->timeline);
  ASSERT_TRUE(static_cast<bool>(trace)) << result->timeline;
  const llvm::json::Array *events =
      trace->getAsObject()->getArray("traceEvents");
  ASSERT_NE(events, nullptr);
  int kernels = 0;
  for (const llvm::json::Value &e : *events)
    if (auto ts = e.getAsObject()->getNumber("ts");
        ts && e.getAsObject()->getNumber("dur") == 2.0)
      ++kernels;
  EXPECT_EQ(kernels, 2);
}

TEST(EstimatePipeline, TextualOptionsReachTheirPasses) {
  registerPerfPassesAndPipelines();
  // With the host nearly free (host-scale), the two GEMMs run back to back:
  // 2 us, the gap, 2 us.
  for (double gap : {1.0, 5.0}) {
    Parsed step;
    ASSERT_TRUE(step.module);
    PassManager pm(&step.context, ModuleOp::getOperationName(),
                   OpPassManager::Nesting::Implicit);
    std::string errors;
    llvm::raw_string_ostream os(errors);
    std::string pipeline =
        "estimate{models=roofline compute-efficiency=1.0 host-scale=1e-9 "
        "format=json output='' kernel-gap-us=" +
        std::to_string(gap) + "}";
    ASSERT_TRUE(succeeded(parsePassPipeline(pipeline, pm, os))) << errors;
    ASSERT_TRUE(succeeded(pm.run(*step.module)));
    EXPECT_NEAR(e2eOf(*step.module), 4.0 + gap, 1e-6);
  }
}

TEST(EstimatePipeline, AnUnknownOptionIsRefused) {
  registerPerfPassesAndPipelines();
  MLIRContext context;
  PassManager pm(&context, ModuleOp::getOperationName());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  EXPECT_TRUE(failed(parsePassPipeline("estimate{model=roofline}", pm, os)));
  EXPECT_NE(
      errors.find("failed to add `estimate` with options `model=roofline`"),
      std::string::npos)
      << errors;
}
} // namespace
