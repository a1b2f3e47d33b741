#include "perf-c/Perf.h"
#include "llvm/Support/JSON.h"
#include "gtest/gtest.h"
#include <string>

extern "C" double perfCTestGemmLatency(void);

// 1024^3 f32 GEMM on an A100: 2^31 FLOP / (19.5e12 * 0.7) = 157.3 us.
TEST(PerfCAPI, KernelLatencyFromC) {
  EXPECT_NEAR(perfCTestGemmLatency(), 2147483648.0 / (19.5e12 * 0.7) * 1e6,
              1e-6);
}

TEST(PerfCAPI, KernelLatencyErrors) {
  PerfKernel kernel = {};
  kernel.kind = PerfKernelGemm;
  kernel.m = kernel.n = kernel.k = 8;
  double latency = 0;
  char *error = nullptr;
  EXPECT_NE(perfKernelLatencyUs(&kernel, "Z9000", nullptr, &latency, &error),
            0);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(std::string(error), "unknown GPU 'Z9000'");
  perfFreeString(error);
}

/// One op with a 1000^3 GEMM, no target.
static const char *const kOneGemmModule = R"(
    perf.graph @g {
      perf.op "mm" : () -> () {
        perf.gemm {m = 1000, n = 1000, k = 1000}
      }
    })";

// One op with a 1000^3 GEMM on a 1 TFLOP/s GPU at 0.7 efficiency: 2857.143
// us, starting after T1 + T2 + T4/2 = 8 + 10 + 5 = 23 us.
TEST(PerfCAPI, EstimateModuleReturnsTheJsonReport) {
  const char *ir = kOneGemmModule;
  char *report = nullptr, *error = nullptr;
  // Without a target the estimate fails with the graph named.
  ASSERT_NE(perfEstimateModule(ir, nullptr, nullptr, &report, &error), 0);
  EXPECT_NE(std::string(error).find("graph @g has no target GPU"),
            std::string::npos);
  perfFreeString(error);
  error = nullptr;
  ASSERT_EQ(perfEstimateModule(ir, "V100", "", &report, &error), 0) << error;
  std::string json(report);
  perfFreeString(report);
  EXPECT_NE(json.find("\"target\": \"V100-SXM2-32GB\""), std::string::npos);
  // V100: 2e9 / (15.7e12 * 0.7) = 181.984 us; ends at 23 + 181.984.
  EXPECT_NE(json.find("\"e2e_us\": 204.98"), std::string::npos) << json;
}

// A stack built once: the tile model (built-in coefficients) prices the GEMM,
// the roofline the generic kernel: 1e9 FLOP / (19.5e12 * 0.7) = 73.26 us on
// an A100.
TEST(PerfCAPI, CostModelHandleReportsWhichModelPriced) {
  char *error = nullptr;
  PerfCostModel *model =
      perfCostModelCreate("tile,roofline", nullptr, nullptr, &error);
  ASSERT_NE(model, nullptr) << error;
  PerfKernel gemm = {};
  gemm.kind = PerfKernelGemm;
  gemm.m = gemm.n = gemm.k = 1024;
  double latency = 0;
  char *pricedBy = nullptr;
  ASSERT_EQ(
      perfCostModelLatencyUs(model, &gemm, "A100", &latency, &pricedBy, &error),
      0)
      << error;
  EXPECT_EQ(std::string(pricedBy), "tile");
  perfFreeString(pricedBy);
  // The same price as the one-shot call with the same stack.
  double oneShot = 0;
  ASSERT_EQ(
      perfKernelLatencyUs(&gemm, "A100", "tile,roofline", &oneShot, &error), 0);
  EXPECT_DOUBLE_EQ(latency, oneShot);

  PerfKernel generic = {};
  generic.kind = PerfKernelGeneric;
  generic.flops = 1e9;
  ASSERT_EQ(perfCostModelLatencyUs(model, &generic, "A100", &latency, &pricedBy,
                                   &error),
            0);
  EXPECT_EQ(std::string(pricedBy), "roofline");
  perfFreeString(pricedBy);
  EXPECT_NEAR(latency, 1e9 / (19.5e12 * 0.7) * 1e6, 1e-9);

  // Errors name the problem; the handle stays usable.
  generic.dtype = "f13";
  EXPECT_NE(perfCostModelLatencyUs(model, &generic, "A100", &latency, nullptr,
                                   &error),
            0);
  EXPECT_EQ(std::string(error), "unknown dtype 'f13'");
  perfFreeString(error);
  perfCostModelDestroy(model);
}

TEST(PerfCAPI, CostModelCreateErrors) {
  char *error = nullptr;
  EXPECT_EQ(perfCostModelCreate("ml,roofline", nullptr, nullptr, &error),
            nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(std::string(error),
            "the ml model needs a model directory written by perf-train "
            "(perf-opt: --estimate=ml-dir=DIR or "
            "--perf-kernel-cost=\"ml-dir=DIR\"; perf-eval: --ml-dir=DIR)");
  perfFreeString(error);
  error = nullptr;
  EXPECT_EQ(perfCostModelCreate("db", nullptr, nullptr, &error), nullptr);
  EXPECT_EQ(std::string(error),
            "the db model needs a perf database path (perf-opt: "
            "--estimate=db=FILE or --perf-kernel-cost=\"db=FILE\"; perf-eval: "
            "--db=FILE)");
  perfFreeString(error);
}

// The estimate with a model stack: the GEMM of the module is priced by the
// tile model and the report says so.
TEST(PerfCAPI, EstimateModuleWithOptions) {
  const char *ir = kOneGemmModule;
  char *report = nullptr, *error = nullptr;
  PerfEstimateOptions options = {};
  options.models = "tile,roofline";
  options.iterations = 2;
  ASSERT_EQ(perfEstimateModuleWithOptions(ir, "V100", nullptr, &options,
                                          &report, &error),
            0)
      << error;
  std::string json(report);
  perfFreeString(report);
  EXPECT_NE(json.find("\"tile\": 1"), std::string::npos) << json;
  // One device-bound step: back to back it loses the 23 us head start and
  // gains the 1 us kernel gap.
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  const llvm::json::Object *graph =
      parsed->getAsObject()->getArray("graphs")->front().getAsObject();
  EXPECT_EQ(graph->getInteger("iterations"), 2);
  EXPECT_NEAR(*graph->getNumber("steady_state_us"),
              *graph->getNumber("e2e_us") - 23 + 1, 1e-9);

  // Any other pipeline option by its textual name: a kernel gap of 11 us
  // instead of 1 puts 10 us more between the two steps back to back.
  options.estimateOptions = "kernel-gap-us=11";
  ASSERT_EQ(perfEstimateModuleWithOptions(ir, "V100", nullptr, &options,
                                          &report, &error),
            0)
      << error;
  llvm::Expected<llvm::json::Value> gapped = llvm::json::parse(report);
  perfFreeString(report);
  ASSERT_TRUE(bool(gapped)) << llvm::toString(gapped.takeError());
  const llvm::json::Object *again =
      gapped->getAsObject()->getArray("graphs")->front().getAsObject();
  EXPECT_NEAR(*again->getNumber("steady_state_us"),
              *again->getNumber("e2e_us") - 23 + 11, 1e-9);
  options.estimateOptions = "kernel-gap=11";
  EXPECT_EQ(perfEstimateModuleWithOptions(ir, "V100", nullptr, &options,
                                          &report, &error),
            1);
  EXPECT_NE(std::string(error).find("bad estimate options 'kernel-gap=11'"),
            std::string::npos)
      << error;
  perfFreeString(error);
}
