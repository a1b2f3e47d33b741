//===- KernelDescTest.cpp - FLOPs and bytes of the LLM kernels ------------===//
//
// The counts of attention with grouped-query heads, causal masking and a
// sliding window, of RoPE and of a KV-cache write, computed by hand.
//
//===----------------------------------------------------------------------===//

#include "perf/Support/KernelDesc.h"
#include "perf/Support/KernelSignature.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {

KernelDesc attention(int64_t batch, int64_t heads, int64_t kvHeads,
                     int64_t queries, int64_t keys, int64_t headDim) {
  KernelDesc d;
  d.kind = KernelKind::Attention;
  d.dtype = DType::BF16;
  d.batch = batch;
  d.heads = heads;
  d.kvHeads = kvHeads;
  d.m = queries;
  d.n = keys;
  d.k = headDim;
  return d;
}

TEST(KernelDesc, CausalAttentionScoresHalfThePairs) {
  KernelDesc d = attention(1, 1, 0, 4, 4, 64);
  EXPECT_DOUBLE_EQ(d.attentionPairs(), 16);
  d.causal = true;
  // Queries see 1, 2, 3 and 4 keys.
  EXPECT_DOUBLE_EQ(d.attentionPairs(), 10);
  // A window of 2: 1, 2, 2, 2.
  d.window = 2;
  EXPECT_DOUBLE_EQ(d.attentionPairs(), 7);
  // Two new queries over a cache of 6: the last two positions of 8 keys,
  // 7 and 8 keys, or 2 and 2 in the window.
  d = attention(1, 1, 0, 2, 8, 64);
  d.causal = true;
  EXPECT_DOUBLE_EQ(d.attentionPairs(), 15);
  d.window = 2;
  EXPECT_DOUBLE_EQ(d.attentionPairs(), 4);
  EXPECT_DOUBLE_EQ(d.attentionKeysRead(), 3);
}

// Llama-3-8B decoding one token over 4096 cached ones: 32 query heads, 8
// key-value heads of 128. The keys and values are read once per key head:
// 2 B x 2 x 8 x 4096 x 128 = 16 MiB, 4x less than 32 heads would read.
TEST(KernelDesc, GroupedQueryDecodeReadsEachKeyHeadOnce) {
  KernelDesc d = attention(1, 32, 8, 1, 4096, 128);
  d.causal = true;
  EXPECT_EQ(d.keyHeads(), 8);
  EXPECT_DOUBLE_EQ(d.totalBytes(), 2.0 * 2 * (32 * 1 * 128 + 8 * 4096 * 128));
  EXPECT_DOUBLE_EQ(d.totalFlops(), 32 * 4096 * (4.0 * 128 + 5));
  // The backward pass: 2.5x the FLOPs, twice the bytes.
  d.pass = KernelPass::BackwardData;
  EXPECT_DOUBLE_EQ(d.totalFlops(), 2.5 * 32 * 4096 * (4.0 * 128 + 5));
  EXPECT_DOUBLE_EQ(d.totalBytes(),
                   2 * 2.0 * 2 * (32 * 1 * 128 + 8 * 4096 * 128));
  d.kvHeads = 5;
  EXPECT_FALSE(d.hasValidSizes());
}

// vLLM's rotary kernel on Llama-3-8B: 32 + 8 heads of 128 for each of 512
// tokens rotated in place, the cos/sin row of each token and its position.
TEST(KernelDesc, RopeRotatesQueryAndKeyHeads) {
  KernelDesc d;
  d.kind = KernelKind::Rope;
  d.dtype = DType::BF16;
  d.rows = 512;
  d.heads = 32;
  d.kvHeads = 8;
  d.k = 128;
  double elements = 512.0 * 40 * 128;
  EXPECT_DOUBLE_EQ(d.totalFlops(), 3 * elements);
  EXPECT_DOUBLE_EQ(d.totalBytes(), 2 * (2 * elements + 512.0 * 128) + 8 * 512);
  // Phi-2 rotates 32 of its 80 head dimensions.
  d.cols = 32;
  EXPECT_DOUBLE_EQ(d.totalFlops(), 3 * 512.0 * 40 * 32);
  EXPECT_EQ(kernelSignature(d), "t=512 h=32 hkv=8 d=128 r=32");
}

TEST(KernelDesc, KvCacheWriteMovesKeysAndValuesOnce) {
  KernelDesc d;
  d.kind = KernelKind::KvCacheWrite;
  d.dtype = DType::BF16;
  d.rows = 256;
  d.kvHeads = 8;
  d.k = 128;
  d.pageSize = 16;
  EXPECT_DOUBLE_EQ(d.totalFlops(), 0);
  EXPECT_DOUBLE_EQ(d.totalBytes(), 4.0 * 2 * 256 * 8 * 128 + 8 * 256);
  EXPECT_EQ(kernelSignature(d), "t=256 hkv=8 d=128 bs=16");
  llvm::Expected<KernelDesc> back =
      parseKernelSignature("kv_cache_write", kernelSignature(d));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->rows, 256);
  EXPECT_EQ(back->kvHeads, 8);
  EXPECT_EQ(back->pageSize, 16);
}

} // namespace
