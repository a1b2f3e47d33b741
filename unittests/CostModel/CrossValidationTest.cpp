#include "perf/CostModel/CrossValidation.h"
#include "perf/CostModel/RooflineModel.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
/// Element-wise adds measured on two A100 boards (one chip) and a T4, each
/// at twice the plain roofline's price.
struct Measurements {
  llvm::StringMap<GpuSpec> devices;
  std::vector<KernelMeasurement> rows;

  Measurements() {
    devices["NVIDIA A100-PCIE-40GB"] = *lookupGpu("A100-PCIe-40GB");
    devices["NVIDIA A100 80GB PCIe"] = *lookupGpu("A100-PCIe-80GB");
    devices["Tesla T4"] = *lookupGpu("T4");
    RooflineModel roofline(0.7, 0.8);
    for (const auto &entry : devices)
      for (int64_t n = 1 << 16; n <= (1 << 22); n *= 2)
        for (const char *op : {"add", "relu"}) {
          KernelMeasurement m;
          m.op = op;
          m.device = entry.getKey().str();
          m.file = "rows.csv";
          m.line = int64_t(rows.size()) + 2;
          m.kernel.kind = KernelKind::Elementwise;
          m.kernel.numElements = n;
          m.kernel.numInputs = m.op == "add" ? 2 : 1;
          m.latencyUs =
              2 * roofline.estimate(m.kernel, entry.getValue())->latencyUs;
          rows.push_back(m);
        }
  }
};
} // namespace

TEST(CrossValidation, LeavesOneChipOutWithItsBoards) {
  Measurements data;
  CrossValidationOptions options;
  auto splits = makeCrossValidationSplits(data.rows, data.devices, options);
  ASSERT_EQ(splits.size(), 2u);
  // Both A100 boards are held out together: 2 x 7 sizes x 2 ops.
  EXPECT_EQ(splits[0].name, "without-A100");
  EXPECT_EQ(splits[0].test.size(), 28u);
  EXPECT_EQ(splits[0].train.size(), 14u);
  EXPECT_EQ(splits[1].name, "without-T4");
  EXPECT_EQ(splits[1].test.size(), 14u);
  for (const KernelMeasurement *m : splits[1].test)
    EXPECT_EQ(m->device, "Tesla T4");
}

TEST(CrossValidation, FewShotRowsTrainWeighted) {
  Measurements data;
  CrossValidationOptions options;
  options.fewShot = 3;
  options.fewShotWeight = 10;
  auto splits = makeCrossValidationSplits(data.rows, data.devices, options);
  // The T4 fold: 3 rows of each of its 2 ops train with weight 10, the
  // other 2 x 4 are judged.
  const CrossValidationSplit &t4 = splits[1];
  EXPECT_EQ(t4.test.size(), 8u);
  size_t weighted = llvm::count_if(
      t4.train, [](const TrainingRow &r) { return r.weight == 10; });
  EXPECT_EQ(weighted, 6u);
  EXPECT_EQ(t4.train.size(), 28u + 6u);
}

TEST(CrossValidation, InDistributionHoldsOutAShareOfEveryGpu) {
  Measurements data;
  CrossValidationOptions options;
  options.protocol = CrossValidationOptions::Protocol::InDistribution;
  options.testFraction = 0.5;
  auto splits = makeCrossValidationSplits(data.rows, data.devices, options);
  ASSERT_EQ(splits.size(), 1u);
  EXPECT_EQ(splits[0].train.size() + splits[0].test.size(), data.rows.size());
  EXPECT_GT(splits[0].test.size(), 10u);
  EXPECT_GT(splits[0].train.size(), 10u);
}

TEST(CrossValidation, JudgesEveryModelOnTheHeldOutRows) {
  // Measured at twice the roofline's price: every roofline price is -50%,
  // so MAPE and GMAE are 50% on each chip; ops are also reported in their
  // group.
  Measurements data;
  CrossValidationOptions options;
  options.models = {"roofline"};
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-cv-test", dir));
  options.workDir = dir.str().str();
  std::string log;
  llvm::raw_string_ostream logStream(log);
  auto result =
      runCrossValidation(data.rows, data.devices, options, logStream);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  EXPECT_EQ(result->folds, (std::vector<std::string>{"A100", "T4"}));
  const auto &add = result->priced["roofline"]["add"];
  ASSERT_EQ(add.at("A100").size(), 14u);
  ErrorStats s = computeErrorStats(add.at("T4"));
  EXPECT_NEAR(s.mape, 0.5, 1e-9);
  EXPECT_NEAR(s.gmae, 0.5, 1e-9);
  EXPECT_EQ(result->priced["roofline"]["elementwise (add+relu+gelu)"]
                .at("T4")
                .size(),
            14u);
  std::string text;
  llvm::raw_string_ostream os(text);
  printCrossValidationTables(*result, options, {}, os);
  EXPECT_NE(text.find("| add | 50.0% / 50.0% | 50.0% / 50.0% |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Rows priced per held-out GPU: A100=28 T4=14"),
            std::string::npos)
      << text;
  llvm::sys::fs::remove_directories(dir);
}

TEST(CrossValidation, RowsOnAnUnknownDeviceAreAnError) {
  Measurements data;
  data.rows.front().device = "Mystery GPU";
  CrossValidationOptions options;
  options.models = {"roofline"};
  std::string log;
  llvm::raw_string_ostream logStream(log);
  auto result = runCrossValidation(data.rows, data.devices, options, logStream);
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(llvm::toString(result.takeError()),
            "rows.csv:2: no GPU figures for device 'Mystery GPU'");
}
