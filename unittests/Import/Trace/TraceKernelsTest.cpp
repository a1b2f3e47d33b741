//===- TraceKernelsTest.cpp - The ATen rule table's kernels ---------------===//

#include "perf/Import/TraceKernels.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
TracedTensor tensor(std::vector<int64_t> shape, const char *dtype) {
  TracedTensor t;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.device = "cuda:0";
  return t;
}

/// The one kernel aten::mm of [64 x 128] x [128 x 32] in `dtype` runs.
KernelDesc mm(const char *dtype) {
  TracedOp op;
  op.name = "aten::mm";
  op.inputs = {tensor({64, 128}, dtype), tensor({128, 32}, dtype)};
  op.outputs = {tensor({64, 32}, dtype)};
  std::vector<DeviceWork> work;
  EXPECT_TRUE(inferOpKernels(op, 1, work));
  EXPECT_EQ(work.size(), 1u);
  return work.empty() ? KernelDesc() : std::get<KernelDesc>(work.front());
}
} // namespace

// Every importer of ATen ops (traces, configs, fx CSVs) marks half GEMMs for
// tensor cores through the rule table; FP32 stays on CUDA cores.
TEST(TraceKernels, HalfGemmsRunOnTensorCores) {
  KernelDesc bf16 = mm("c10::BFloat16");
  EXPECT_EQ(bf16.kind, KernelKind::Gemm);
  EXPECT_EQ(bf16.dtype, DType::BF16);
  EXPECT_EQ(bf16.m, 64);
  EXPECT_EQ(bf16.n, 32);
  EXPECT_EQ(bf16.k, 128);
  EXPECT_TRUE(bf16.tensorCores);
  EXPECT_TRUE(mm("c10::Half").tensorCores);
  KernelDesc f32 = mm("float");
  EXPECT_EQ(f32.dtype, DType::F32);
  EXPECT_FALSE(f32.tensorCores);
}

TEST(TraceKernels, TensorCoreRule) {
  EXPECT_TRUE(runsOnTensorCores(KernelKind::Gemm, DType::BF16));
  EXPECT_TRUE(runsOnTensorCores(KernelKind::Attention, DType::F16));
  EXPECT_TRUE(runsOnTensorCores(KernelKind::Conv2d, DType::TF32));
  EXPECT_FALSE(runsOnTensorCores(KernelKind::Gemm, DType::F32));
  EXPECT_FALSE(runsOnTensorCores(KernelKind::Elementwise, DType::BF16));
}

namespace {
/// The kernels of `op` (which must have a rule).
std::vector<KernelDesc> kernelsOf(const TracedOp &op) {
  std::vector<DeviceWork> work;
  EXPECT_TRUE(inferOpKernels(op, 1, work)) << op.name;
  std::vector<KernelDesc> out;
  for (const DeviceWork &w : work)
    out.push_back(std::get<KernelDesc>(w));
  return out;
}
} // namespace

// SDPA with enable_gqa: 32 query heads over 8 key heads, is_causal the
// flash kernel's fifth argument; the backward takes dO first.
TEST(TraceKernels, FusedAttentionKeepsKeyHeadsAndTheMask) {
  TracedOp op;
  op.name = "aten::_scaled_dot_product_flash_attention";
  op.inputs = {tensor({2, 32, 512, 128}, "c10::BFloat16"),
               tensor({2, 8, 512, 128}, "c10::BFloat16"),
               tensor({2, 8, 512, 128}, "c10::BFloat16")};
  op.scalars = {nullptr, nullptr, nullptr, 0.0, true};
  std::vector<KernelDesc> k = kernelsOf(op);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].kind, KernelKind::Attention);
  EXPECT_EQ(k[0].heads, 32);
  EXPECT_EQ(k[0].kvHeads, 8);
  EXPECT_TRUE(k[0].causal);
  EXPECT_EQ(k[0].op, "flash2");
  EXPECT_EQ(k[0].n, 0); // keys: the queries'
  op.name = "aten::_scaled_dot_product_cudnn_attention_backward";
  op.inputs.insert(op.inputs.begin(),
                   tensor({2, 32, 512, 128}, "c10::BFloat16"));
  op.scalars.assign(15, nullptr);
  op.scalars[14] = false;
  k = kernelsOf(op);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].pass, KernelPass::BackwardData);
  EXPECT_EQ(k[0].kvHeads, 8);
  EXPECT_FALSE(k[0].causal);
  EXPECT_EQ(k[0].op, "cudnn");
}

// vLLM's custom ops as a trace of a serving step records them.
TEST(TraceKernels, ServingEngineOps) {
  TracedOp rope;
  rope.name = "_C::rotary_embedding";
  rope.inputs = {tensor({256}, "long int"),
                 tensor({256, 32 * 128}, "c10::BFloat16"),
                 tensor({256, 8 * 128}, "c10::BFloat16"),
                 tensor({8192, 128}, "c10::BFloat16")};
  rope.scalars = {nullptr, nullptr, nullptr, 128, nullptr, true};
  std::vector<KernelDesc> k = kernelsOf(rope);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].kind, KernelKind::Rope);
  EXPECT_EQ(k[0].rows, 256);
  EXPECT_EQ(k[0].heads, 32);
  EXPECT_EQ(k[0].kvHeads, 8);
  EXPECT_EQ(k[0].k, 128);
  EXPECT_EQ(k[0].cols, 0);

  TracedOp cache;
  cache.name = "_C_cache_ops::reshape_and_cache_flash";
  cache.inputs = {tensor({256, 8, 128}, "c10::BFloat16"),
                  tensor({256, 8, 128}, "c10::BFloat16"),
                  tensor({4096, 16, 8, 128}, "c10::BFloat16"),
                  tensor({4096, 16, 8, 128}, "c10::BFloat16"),
                  tensor({256}, "long int")};
  k = kernelsOf(cache);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].kind, KernelKind::KvCacheWrite);
  EXPECT_EQ(k[0].rows, 256);
  EXPECT_EQ(k[0].kvHeads, 8);
  EXPECT_EQ(k[0].pageSize, 16);

  TracedOp norm;
  norm.name = "_C::fused_add_rms_norm";
  norm.inputs = {tensor({256, 4096}, "c10::BFloat16"),
                 tensor({256, 4096}, "c10::BFloat16"),
                 tensor({4096}, "c10::BFloat16")};
  k = kernelsOf(norm);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].kind, KernelKind::Elementwise);
  EXPECT_EQ(k[0].numElements, 256 * 4096);
  // The input and the residual read and written: 4 x 2 bytes an element.
  EXPECT_DOUBLE_EQ(k[0].totalBytes(), 256.0 * 4096 * 2 * 4);
}
