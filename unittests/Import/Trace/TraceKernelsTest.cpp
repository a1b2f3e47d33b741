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
