//===- AttentionModelTest.cpp - Fused attention's tiles and time ----------===//
//
// How FlashAttention's blocks cover causal, windowed and decoding attention,
// counted by hand, and the model's time of a small case computed by hand.
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/AttentionModel.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {

GpuSpec roundGpu() {
  GpuSpec gpu;
  gpu.name = "round";
  gpu.numSMs = 100;
  gpu.clockMHz = 1000;
  gpu.fp32Flops = 1e13;
  gpu.tensorBf16Flops = 1e15;
  gpu.tensorF16Flops = 1e15;
  gpu.memBandwidth = 1e12;
  return gpu;
}

KernelDesc attention(int64_t batch, int64_t heads, int64_t kvHeads,
                     int64_t queries, int64_t keys, int64_t headDim) {
  KernelDesc d;
  d.kind = KernelKind::Attention;
  d.dtype = DType::BF16;
  d.tensorCores = true;
  d.batch = batch;
  d.heads = heads;
  d.kvHeads = kvHeads;
  d.m = queries;
  d.n = keys;
  d.k = headDim;
  return d;
}

TEST(AttentionTiling, CausalBlocksSeeTheKeysUpToTheirLastRow) {
  KernelDesc d = attention(1, 1, 0, 512, 512, 128);
  std::optional<AttentionTiling> t = tileAttention(d, roundGpu());
  ASSERT_TRUE(t);
  EXPECT_EQ(t->blockM, 128);
  EXPECT_EQ(t->blockN, 128);
  EXPECT_EQ(t->keyBlocks, std::vector<int64_t>({4, 4, 4, 4}));
  d.causal = true;
  t = tileAttention(d, roundGpu());
  EXPECT_EQ(t->keyBlocks, std::vector<int64_t>({1, 2, 3, 4}));
  // A window of 200: the fourth block's rows 384-511 see keys 185-511,
  // blocks 1 to 3 of 128.
  d.window = 200;
  t = tileAttention(d, roundGpu());
  EXPECT_EQ(t->keyBlocks, std::vector<int64_t>({1, 2, 3, 3}));
  // Head size 64 takes 192-row blocks.
  d = attention(1, 1, 0, 512, 512, 64);
  t = tileAttention(d, roundGpu());
  EXPECT_EQ(t->blockM, 192);
  EXPECT_EQ(t->queryBlocks, 3);
}

// Llama-3-8B decoding one token over 4096: the 4 query heads of each of the
// 8 key heads share a 64-row block; 8 CTAs would leave 92 of 100 SMs idle,
// so the 32 key blocks are split 13 ways (ceil(100 / 8)).
TEST(AttentionTiling, DecodePacksGroupsAndSplitsTheKeys) {
  KernelDesc d = attention(1, 32, 8, 1, 4096, 128);
  d.causal = true;
  std::optional<AttentionTiling> t = tileAttention(d, roundGpu());
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rows, 4);
  EXPECT_EQ(t->heads, 8);
  EXPECT_EQ(t->blockM, 64);
  EXPECT_EQ(t->keyBlocks, std::vector<int64_t>({32}));
  EXPECT_EQ(t->splits, 13);
  EXPECT_DOUBLE_EQ(t->scoresPerBlock, 4 * 128);
  // Enough sequences fill the SMs without a split.
  d.batch = 16;
  EXPECT_EQ(tileAttention(d, roundGpu())->splits, 1);
}

TEST(AttentionModel, PrefillTimeByHand) {
  AttentionParams p;
  p.overheadUs = 2;
  p.mmaEfficiency = 0.5;
  p.softmaxCyclesPerScore = 1;
  p.blockOverheadUs = 1;
  p.backwardEfficiency = 0.5;
  p.memoryEfficiency = 0.5;
  // 200 heads of 512 non-causal queries at d = 128: 800 CTAs of 4 key
  // blocks. A block: 4 x 128^3 FLOPs at 0.5 x 1e15 / 100 per SM = 1.6777 us,
  // and 128^2 scores at one cycle of 1 GHz = 16.384 us; a CTA 1 + 4 x
  // 18.0617 = 73.247 us; 800 of them over 100 SMs: 585.97 us. Memory: 2 x
  // 200 x 2 x 1024 x 128 B at 0.5 TB/s = 419.4 us, less.
  KernelDesc d = attention(1, 200, 0, 512, 512, 128);
  double blockUs =
      4.0 * 128 * 128 * 128 / (0.5e15 / 100) * 1e6 + 128.0 * 128 / 1e9 * 1e6;
  double expected = 2 + 8 * (1 + 4 * blockUs);
  EXPECT_NEAR(attentionTimeUs(d, roundGpu(), p), expected, 1e-6);
  AttentionModel model(p);
  EXPECT_EQ(model.estimate(d, roundGpu())->model, "flash");
  // The backward: 2.5x the blocks' work at half the rate.
  d.pass = KernelPass::BackwardData;
  EXPECT_NEAR(attentionTimeUs(d, roundGpu(), p), 2 + 8 * (1 + 4 * blockUs * 5),
              1e-6);
  // FP32 attention runs other kernels: declined.
  d.dtype = DType::F32;
  EXPECT_FALSE(model.estimate(d, roundGpu()));
}

TEST(AttentionModel, DecodeReadsTheCacheOnce) {
  AttentionParams p;
  p.overheadUs = 2;
  p.memoryEfficiency = 0.5;
  p.combineUs = 3;
  // 64 sequences over 8192 keys, 8 key heads of 128: 2 x 64 x 8 x 8192 x
  // 128 x 2 B = 2.147 GB at 0.5 TB/s, 4295 us, the queries' bytes aside;
  // 512 CTAs need no split, so no combine.
  KernelDesc d = attention(64, 32, 8, 1, 8192, 128);
  d.causal = true;
  double kv = 2.0 * 64 * 8 * 8192 * 128 * 2, q = 2.0 * 64 * 32 * 128 * 2;
  EXPECT_NEAR(attentionTimeUs(d, roundGpu(), p), 2 + (kv + q) / 0.5e12 * 1e6,
              1e-6);
  // One sequence splits its keys: the combine kernel adds.
  d.batch = 1;
  EXPECT_NEAR(attentionTimeUs(d, roundGpu(), p),
              2 + (kv + q) / 64 / 0.5e12 * 1e6 + 3, 1e-6);
}

TEST(AttentionMeasurements, ReadsTheSweepAndNamesBadLines) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("attention", "csv", path));
  auto write = [&](llvm::StringRef text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << text;
  };
  write("device,dtype,pass,b,h,s,d,causal,flops,bytes,latency_us\n"
        "NVIDIA H200,bf16,fwd+bwd,4,16,2048,128,1,0,0,713.5\n");
  auto calls = readAttentionCsv(path);
  ASSERT_TRUE(bool(calls)) << llvm::toString(calls.takeError());
  ASSERT_EQ(calls->size(), 1u);
  EXPECT_TRUE((*calls)[0].withBackward);
  EXPECT_TRUE((*calls)[0].forward.causal);
  EXPECT_EQ((*calls)[0].forward.m, 2048);
  EXPECT_EQ((*calls)[0].forward.dtype, DType::BF16);
  write("device,dtype,pass,b,h,s,d,causal,latency_us\n"
        "NVIDIA H200,bf16,bwd,4,16,2048,128,1,713.5\n");
  calls = readAttentionCsv(path);
  ASSERT_FALSE(bool(calls));
  EXPECT_NE(llvm::toString(calls.takeError()).find(":2:"), std::string::npos);
  write("device,dtype,pass,b,h,s,causal,latency_us\n");
  calls = readAttentionCsv(path);
  ASSERT_FALSE(bool(calls));
  EXPECT_NE(llvm::toString(calls.takeError()).find("missing column 'd'"),
            std::string::npos);
  llvm::sys::fs::remove(path);
}

} // namespace
