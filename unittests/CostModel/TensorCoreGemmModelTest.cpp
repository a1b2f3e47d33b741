//===- TensorCoreGemmModelTest.cpp - GEMMs on tensor cores ----------------===//
//
// The model's prices of a compute-bound and a memory-bound GEMM computed by
// hand, what it declines, and its fit recovering the parameters that made
// a set of rows.
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/TensorCoreGemmModel.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {

/// A GPU of round figures: 1 PFLOP/s of BF16 on tensor cores, 1 TB/s.
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

KernelDesc gemm(int64_t m, int64_t n, int64_t k) {
  KernelDesc d;
  d.kind = KernelKind::Gemm;
  d.dtype = DType::BF16;
  d.tensorCores = true;
  d.m = m;
  d.n = n;
  d.k = k;
  return d;
}

TensorCoreGemmParams roundParams() {
  TensorCoreGemmParams p;
  p.overheadUs = 2;
  p.memoryEfficiency = 0.5;
  p.epilogueWeight = 1;
  p.computeEfficiency = {{"bf16", 0.5}};
  return p;
}

TEST(TensorCoreGemmModel, ComputeBoundPaysTheEpilogue) {
  TensorCoreGemmModel model(roundParams());
  // 2 x 4096^3 FLOPs at 0.5 PFLOP/s: 274.88 us; the 32 MiB output stored at
  // 0.5 TB/s: 67.11 us; the operands' 96 MiB (201.33 us) do not bound it.
  std::optional<KernelCost> cost =
      model.estimate(gemm(4096, 4096, 4096), roundGpu());
  ASSERT_TRUE(cost);
  EXPECT_NEAR(cost->latencyUs, 2 + 274.878 + 67.109, 0.01);
  EXPECT_TRUE(cost->computeBound);
  EXPECT_EQ(cost->model, "tensorcore");
}

TEST(TensorCoreGemmModel, DecodeGemmStreamsItsWeights) {
  TensorCoreGemmModel model(roundParams());
  // One token: the 4096 x 4096 BF16 weights (32 MiB) and two 8 KiB vectors
  // at 0.5 TB/s.
  std::optional<KernelCost> cost =
      model.estimate(gemm(1, 4096, 4096), roundGpu());
  ASSERT_TRUE(cost);
  double bytes = 2.0 * (4096 + 4096.0 * 4096 + 4096);
  EXPECT_NEAR(cost->latencyUs, 2 + bytes / 0.5e12 * 1e6, 1e-6);
  EXPECT_FALSE(cost->computeBound);
}

TEST(TensorCoreGemmModel, DeclinesWhatItDoesNotPrice) {
  TensorCoreGemmModel model(roundParams());
  KernelDesc fp32 = gemm(64, 64, 64);
  fp32.dtype = DType::F32;
  fp32.tensorCores = false;
  EXPECT_FALSE(model.estimate(fp32, roundGpu()));
  KernelDesc overridden = gemm(64, 64, 64);
  overridden.flops = 1e9;
  EXPECT_FALSE(model.estimate(overridden, roundGpu()));
  KernelDesc conv;
  conv.kind = KernelKind::Conv2d;
  conv.dtype = DType::BF16;
  conv.tensorCores = true;
  EXPECT_FALSE(model.estimate(conv, roundGpu()));
  // FP16 has no efficiency of its own here: BF16's stands for it.
  KernelDesc half = gemm(4096, 4096, 4096);
  half.dtype = DType::F16;
  EXPECT_NEAR(model.estimate(half, roundGpu())->latencyUs, 2 + 274.878 + 67.109,
              0.01);
}

TEST(TensorCoreGemmModel, FitRecoversTheParametersOfItsRows) {
  TensorCoreGemmParams truth;
  truth.overheadUs = 3;
  truth.memoryEfficiency = 0.85;
  truth.epilogueWeight = 0.6;
  truth.computeEfficiency = {{"bf16", 0.8}};
  TensorCoreGemmModel model(truth);
  GpuSpec gpu = roundGpu();
  std::vector<KernelMeasurement> rows;
  for (int64_t m : {1, 16, 256, 2048, 8192})
    for (int64_t n : {1024, 4096, 16384})
      for (int64_t k : {256, 1024, 8192}) {
        KernelMeasurement row;
        row.kernel = gemm(m, n, k);
        row.device = "round";
        row.latencyUs = model.estimate(row.kernel, gpu)->latencyUs;
        rows.push_back(row);
      }
  TensorCoreGemmParams fit =
      fitTensorCoreGemm(rows, [&](llvm::StringRef) { return &gpu; });
  EXPECT_NEAR(fit.overheadUs, 3, 0.05);
  EXPECT_NEAR(fit.memoryEfficiency, 0.85, 0.01);
  EXPECT_NEAR(fit.epilogueWeight, 0.6, 0.02);
  EXPECT_NEAR(fit.computeEfficiency["bf16"], 0.8, 0.01);
  EXPECT_EQ(fit.rows["bf16"], int64_t(rows.size()));
  ASSERT_EQ(fit.devices.size(), 1u);

  // It writes and reads back, and a bad file names itself.
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("tensorcore", "json", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << llvm::formatv("{0}", fit.toJson());
  }
  llvm::Expected<TensorCoreGemmParams> back = TensorCoreGemmParams::load(path);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_DOUBLE_EQ(back->epilogueWeight, fit.epilogueWeight);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << "{\"version\": 1, \"overhead_us\": 3, \"memory_efficiency\": 2, "
          "\"epilogue_weight\": 1, \"compute_efficiency\": {\"bf16\": 0.5}}";
  }
  llvm::Expected<TensorCoreGemmParams> bad = TensorCoreGemmParams::load(path);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("memory_efficiency"),
            std::string::npos);
  llvm::sys::fs::remove(path);
}

} // namespace
