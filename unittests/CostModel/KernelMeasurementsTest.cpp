#include "perf/CostModel/KernelMeasurements.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace perf;

TEST(NeuSightCsv, LinearAndBmmSemantics) {
  // From the data: the launch grid of volta_sgemm_128x64_tn for
  // B=1 M=357 N=711 K=52048 is 407 x 6 = ceil(52048/128) x ceil(357/64),
  // so K is the output width and N the reduction.
  const char *csv =
      "OPName,Latency,Device,Kernel Name,B,M,N,K\n"
      "linear,2.0,Tesla V100-PCIE-32GB,volta_sgemm_128x64_tn,2,357,711,52048\n"
      "bmm,0.05,Tesla T4,\"volta_sgemm_64x64_nn\",13,27,15,29\n";
  auto rows = parseNeuSightCsv(csv, "x.csv");
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  ASSERT_EQ(rows->size(), 2u);
  const KernelDesc &lin = (*rows)[0].kernel;
  EXPECT_EQ(lin.kind, KernelKind::Gemm);
  EXPECT_EQ(lin.m, 714);
  EXPECT_EQ(lin.k, 711);
  EXPECT_EQ(lin.n, 52048);
  EXPECT_EQ((*rows)[0].latencyUs, 2000.0);
  const KernelDesc &bmm = (*rows)[1].kernel;
  EXPECT_EQ(bmm.batch, 13);
  EXPECT_EQ(bmm.m, 27);
  EXPECT_EQ(bmm.k, 15);
  EXPECT_EQ(bmm.n, 29);
  EXPECT_EQ(bmm.name, "volta_sgemm_64x64_nn");
  EXPECT_EQ((*rows)[1].line, 3u);
}

TEST(NeuSightCsv, BadRowNamesFileAndLine) {
  const char *csv = "OPName,Latency,Device,B,H\n"
                    "add,0.1,Tesla T4,4,8\n"
                    "add,fast,Tesla T4,4,8\n";
  auto rows = parseNeuSightCsv(csv, "in.csv");
  ASSERT_FALSE(bool(rows));
  EXPECT_NE(llvm::toString(rows.takeError())
                .find("in.csv:3: column "
                      "'Latency'"),
            std::string::npos);
  auto unknown = parseNeuSightCsv("OPName,Latency,Device\nfoo,1,T4\n", "u.csv");
  ASSERT_FALSE(bool(unknown));
  EXPECT_NE(llvm::toString(unknown.takeError())
                .find("u.csv:2: unknown "
                      "operator 'foo'"),
            std::string::npos);
  // Given a tally, unknown operators are skipped and counted instead.
  SkippedOps skipped;
  auto kept = parseNeuSightCsv(
      "OPName,Latency,Device,B,H\nfoo,1,T4,1,1\nmulu,1,T4,4,8\nfoo,2,T4,1,1\n",
      "u.csv", &skipped);
  ASSERT_TRUE(bool(kept)) << llvm::toString(kept.takeError());
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].kernel.numElements, 32);
  EXPECT_EQ((*kept)[0].kernel.numInputs, 1);
  EXPECT_EQ(skipped, (SkippedOps{{"foo", 2}}));
}

TEST(ErrorStats, MapeAndGmaeByHand) {
  // Errors +10%, -20%, +40%: MAPE = 23.33%, GMAE = (0.1*0.2*0.4)^(1/3).
  KernelMeasurement a, b, c;
  a.latencyUs = b.latencyUs = c.latencyUs = 100;
  std::vector<PricedRow> rows = {{&a, 110, "x"}, {&b, 80, "x"}, {&c, 140, "x"}};
  ErrorStats s = computeErrorStats(rows);
  EXPECT_EQ(s.count, 3u);
  EXPECT_NEAR(s.mape, 0.7 / 3, 1e-12);
  EXPECT_NEAR(s.gmae, std::cbrt(0.1 * 0.2 * 0.4), 1e-12);
  EXPECT_NEAR(s.within10, 1.0 / 3, 1e-12);
  EXPECT_NEAR(s.within25, 2.0 / 3, 1e-12);
}

TEST(ErrorStats, DebiasedByHand) {
  // Predictions 1.1x, 1.2x, 1.3x the measurements: the median ratio is 1.2,
  // so the debiased errors are 1.1/1.2 - 1, 0 and 1.3/1.2 - 1 (+-1/12).
  KernelMeasurement a, b, c;
  a.latencyUs = b.latencyUs = c.latencyUs = 100;
  std::vector<PricedRow> rows = {
      {&a, 110, "x"}, {&b, 120, "x"}, {&c, 130, "x"}};
  EXPECT_NEAR(medianLogRatio(rows), std::log(1.2), 1e-12);
  ErrorStats s = computeDebiasedErrorStats(rows);
  EXPECT_NEAR(s.mape, (1.0 / 12 + 0 + 1.0 / 12) / 3, 1e-12);
  // The exact hit is floored at 1e-4.
  EXPECT_NEAR(s.gmae, std::cbrt(1.0 / 12 * 1e-4 * 1.0 / 12), 1e-12);
  // An even count takes the mean of the two middle logs: ratios 0.5 and 2.
  std::vector<PricedRow> two = {{&a, 50, "x"}, {&b, 200, "x"}};
  EXPECT_NEAR(medianLogRatio(two), 0.0, 1e-12);
  EXPECT_EQ(computeDebiasedErrorStats({}).count, 0u);
}

TEST(NeuSightData, RealFilesParse) {
  std::string dir =
      std::string(PERF_SOURCE_DIR) + "/../shared/data/kernels/neusight";
  if (!llvm::sys::fs::is_directory(dir))
    GTEST_SKIP() << "shared data not found at " << dir;
  auto rows = readNeuSightCsv(dir + "/ln/Tesla_T4.csv.gz");
  ASSERT_TRUE(bool(rows)) << llvm::toString(rows.takeError());
  EXPECT_EQ(rows->size(), 1400u);
  EXPECT_EQ((*rows)[0].kernel.kind, KernelKind::LayerNorm);
  auto t4 = neuSightDevice(dir, "Tesla T4");
  ASSERT_TRUE(bool(t4)) << llvm::toString(t4.takeError());
  EXPECT_EQ(t4->numSMs, 40u);
}
