#include "perf/CostModel/MlModel.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace perf;

TEST(MlModel, LearnsResidualAndPricesUnseenGpu) {
  // Latencies exactly 3x the peak roofline on two GPUs; the learned
  // log-residual must carry over to a third GPU it never saw.
  std::vector<GpuSpec> gpus = {*lookupGpu("V100"), *lookupGpu("T4"),
                               *lookupGpu("A100")};
  std::vector<KernelDesc> kernels;
  for (int64_t n = 1 << 12; n <= (1 << 24); n *= 2)
    for (int64_t inputs : {1, 2}) {
      KernelDesc k;
      k.kind = KernelKind::Elementwise;
      k.numElements = n;
      k.numInputs = inputs;
      kernels.push_back(k);
    }
  std::vector<MlSample> samples;
  for (size_t g = 0; g < 2; ++g)
    for (const KernelDesc &k : kernels)
      samples.push_back({&k, &gpus[g], 3 * mlBaselineUs(k, gpus[g])});
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perf-ml-test", dir));
  llvm::SmallString<128> path(dir);
  llvm::sys::path::append(path, "elementwise.json");
  MlTrainOptions options;
  options.rounds = 50;
  options.threads = 1;
  ASSERT_FALSE(bool(trainMlModel(samples, options, path)));

  auto model = MlModel::load(dir);
  ASSERT_TRUE(bool(model)) << llvm::toString(model.takeError());
  EXPECT_EQ((*model)->kinds(), std::vector<std::string>{"elementwise"});
  for (const KernelDesc &k : kernels) {
    auto cost = (*model)->estimate(k, gpus[2]);
    ASSERT_TRUE(cost);
    EXPECT_EQ(cost->model, "ml");
    EXPECT_NEAR(cost->latencyUs / mlBaselineUs(k, gpus[2]), 3.0, 0.03);
  }
  // Kinds without a model fall through.
  KernelDesc gemm;
  gemm.kind = KernelKind::Gemm;
  gemm.m = gemm.n = gemm.k = 64;
  EXPECT_FALSE((*model)->estimate(gemm, gpus[2]));
  llvm::sys::fs::remove_directories(dir);
}

TEST(MlModel, MissingDirectoryIsAnError) {
  auto model = MlModel::load("/nonexistent/models");
  ASSERT_FALSE(bool(model));
  EXPECT_NE(llvm::toString(model.takeError()).find("does not exist"),
            std::string::npos);
}
