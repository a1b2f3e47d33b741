#include "perf/CostModel/HeuristicModel.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
/// V100-like figures, rounded so the hand computations stay readable.
GpuSpec embeddingGpu() {
  GpuSpec g;
  g.name = "toy";
  g.numSMs = 80;
  g.fp32Flops = 15e12;
  g.memBandwidth = 900e9;
  g.l2Bandwidth = 2700e9;
  g.l2Bytes = 6 * 1024 * 1024;
  return g;
}

KernelDesc lookup(int64_t tableRows) {
  KernelDesc k;
  k.kind = KernelKind::EmbeddingBag;
  k.batch = 1024;
  k.numTables = 1;
  k.tableRows = tableRows;
  k.dim = 64;
  k.pooling = 10;
  return k;
}
} // namespace

TEST(EmbeddingHitRate, BinomialRatio) {
  // C(50, 2) / C(100, 2) = (50 * 49) / (100 * 99).
  EXPECT_NEAR(embeddingHitRate(50, 100, 2), 50.0 * 49 / (100.0 * 99), 1e-12);
  EXPECT_EQ(embeddingHitRate(1000, 1000, 10), 1.0);
  EXPECT_EQ(embeddingHitRate(5, 1000, 10), 0.0);
}

TEST(Heuristic, EmbeddingLargeTableIsDram) {
  // num_tables = max(1, 4 * 80 / 1024) = 1; cached rows = 6 MiB / (64 * 4 B)
  // = 24576 of 1e6, so p = prod (24576 - i) / (1e6 - i) ~ 1e-16 -> 0.
  // Per warp: indices ceil(40/32)*32 = 64, outputs 256, weights 10 * 256.
  // t = 1024 * ((64 + 256 + 2560) / 900e9 + (32 + 64) / 2700e9).
  KernelDesc k = lookup(1000000);
  EmbeddingTraffic t = embeddingTraffic(k, embeddingGpu(), 4);
  EXPECT_EQ(t.tablesInL2, 1.0);
  EXPECT_EQ(t.cachedRowsPerTable, 24576.0);
  EXPECT_EQ(t.hitRate, 0.0);
  EXPECT_EQ(t.dramBytesPerWarp, 2880.0);
  EXPECT_EQ(t.l2BytesPerWarp, 96.0);
  HeuristicModel model(1.0, 1.0, 4);
  auto cost = model.estimate(k, embeddingGpu());
  ASSERT_TRUE(cost);
  double expected = 1024 * (2880 / 900e9 + 96 / 2700e9) * 1e6;
  EXPECT_NEAR(cost->latencyUs, expected, 1e-9);
  EXPECT_NEAR(cost->latencyUs, 3.3132, 1e-4);
  EXPECT_EQ(cost->model, "heuristic");
}

TEST(Heuristic, EmbeddingSmallTableHitsL2) {
  // 1000 rows fit in L2: p = 1, the weights come from L2.
  KernelDesc k = lookup(1000);
  HeuristicModel model(1.0, 1.0, 4);
  auto cost = model.estimate(k, embeddingGpu());
  ASSERT_TRUE(cost);
  double expected = 1024 * ((64 + 256) / 900e9 + (96 + 2560) / 2700e9) * 1e6;
  EXPECT_NEAR(cost->latencyUs, expected, 1e-9);
  EXPECT_NEAR(cost->latencyUs, 1.37140, 1e-4);
}

TEST(Heuristic, EmbeddingBackwardReadsAndWritesRows) {
  // Backward weights per warp: ceil(2 * 4 * 10 * 64 / 32) * 32 = 5120.
  KernelDesc k = lookup(1000000);
  k.pass = KernelPass::BackwardData;
  EmbeddingTraffic t = embeddingTraffic(k, embeddingGpu(), 4);
  EXPECT_EQ(t.dramBytesPerWarp, 64.0 + 256 + 5120);
}

TEST(Heuristic, ElementwiseUsesMeasuredPeakBandwidth) {
  // 1M-element add: 12 MB at 0.8 * 1 TB/s = 15 us.
  GpuSpec g = embeddingGpu();
  g.memBandwidth = 1e12;
  KernelDesc k;
  k.kind = KernelKind::Elementwise;
  k.numElements = 1000000;
  k.numInputs = 2;
  HeuristicModel model(0.7, 0.8, 4);
  auto cost = model.estimate(k, g);
  ASSERT_TRUE(cost);
  EXPECT_NEAR(cost->latencyUs, 15.0, 1e-9);
  EXPECT_FALSE(cost->computeBound);
}

TEST(Heuristic, SoftmaxRowsPastSharedMemoryAreReadThrice) {
  GpuSpec g = embeddingGpu();
  g.memBandwidth = 1e12;
  HeuristicModel model(1.0, 1.0, 4);
  KernelDesc k;
  k.kind = KernelKind::Softmax;
  k.rows = 1000;
  k.cols = 2000; // 8 KB rows in shared memory: 8 MB in, 8 MB out -> 16 us
  EXPECT_NEAR(model.estimate(k, g)->latencyUs, 16.0, 1e-9);
  k.rows = 100;
  k.cols = 20000; // 80 KB rows: three reads + one write of 8 MB -> 32 us
  EXPECT_NEAR(model.estimate(k, g)->latencyUs, 32.0, 1e-9);
}

// Where the bandwidth is high for the SMs, the elements the kernel issues
// bound it: 100 SMs at 1 GHz issue 1e11 SM-cycles a second.
TEST(Heuristic, IssueRateBoundsStridedAndRowKernels) {
  GpuSpec g = embeddingGpu();
  g.numSMs = 100;
  g.clockMHz = 1000;
  g.memBandwidth = 2e12;
  HeuristicModel model(1.0, 1.0, 4);
  KernelDesc add = elementwiseKernel(1'400'000, 1, 1.0, DType::BF16);
  // Contiguous: 2 x 2.8 MB at 2 TB/s.
  EXPECT_NEAR(model.estimate(add, g)->latencyUs, 2.8, 1e-9);
  // Broadcast or strided: 1.4 elements/SM/cycle -> 1.4e6 / 1.4e11 = 10 us.
  add.strided = true;
  EXPECT_NEAR(model.estimate(add, g)->latencyUs, 10.0, 1e-9);
  EXPECT_TRUE(model.estimate(add, g)->computeBound);
  KernelDesc cat;
  cat.kind = KernelKind::Concat;
  cat.dtype = DType::BF16;
  cat.numElements = 600'000;
  EXPECT_NEAR(model.estimate(cat, g)->latencyUs, 1.2, 1e-9);
  cat.strided = true; // 0.6 elements/SM/cycle
  EXPECT_NEAR(model.estimate(cat, g)->latencyUs, 10.0, 1e-9);
  KernelDesc softmax;
  softmax.kind = KernelKind::Softmax;
  softmax.dtype = DType::BF16;
  softmax.rows = 2500;
  softmax.cols = 1024; // 2.56e6 elements at 2.5 -> 10.24 us (traffic 5.12)
  EXPECT_NEAR(model.estimate(softmax, g)->latencyUs, 10.24, 1e-9);
  softmax.rows = 1250;
  softmax.cols = 2048; // at 1.8
  EXPECT_NEAR(model.estimate(softmax, g)->latencyUs, 2.56e6 / 1.8e11 * 1e6,
              1e-9);
  // Without a clock the bound is unknown, and the traffic prices it.
  g.clockMHz = 0;
  EXPECT_NEAR(model.estimate(add, g)->latencyUs, 2.8, 1e-9);
}

TEST(Heuristic, DeclinesGemm) {
  KernelDesc k;
  k.kind = KernelKind::Gemm;
  k.m = k.n = k.k = 64;
  HeuristicModel model(1.0, 1.0, 4);
  EXPECT_FALSE(model.estimate(k, embeddingGpu()));
}

TEST(Heuristic, NoKernelIsShorterThanTheShortestMeasured) {
  // A 1,000-element add moves 12 KB: 15 ns at 0.8 TB/s. The device takes
  // 1 us (kMinKernelUs) however little a kernel moves; 100k elements (1.5
  // us of traffic) are above the floor.
  GpuSpec g = embeddingGpu();
  g.memBandwidth = 1e12;
  KernelDesc k;
  k.kind = KernelKind::Elementwise;
  k.numElements = 1000;
  k.numInputs = 2;
  HeuristicModel model(0.7, 0.8, 4);
  EXPECT_DOUBLE_EQ(model.estimate(k, g)->latencyUs, 1.0);
  k.numElements = 100000;
  EXPECT_NEAR(model.estimate(k, g)->latencyUs, 1.5, 1e-9);
  // The same floor for a tiny lookup and a tiny reduction.
  KernelDesc bag = lookup(100);
  bag.batch = 1;
  EXPECT_DOUBLE_EQ(model.estimate(bag, g)->latencyUs, 1.0);
  KernelDesc sum;
  sum.kind = KernelKind::Reduce;
  sum.rows = 4;
  sum.cols = 4;
  EXPECT_DOUBLE_EQ(model.estimate(sum, g)->latencyUs, 1.0);
}
