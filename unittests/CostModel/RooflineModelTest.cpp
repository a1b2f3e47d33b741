#include "perf/CostModel/RooflineModel.h"
#include "perf/CostModel/ModelTraining.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
/// GPT-2's LM head in BF16: [4096 x 1280] x [50257 x 1280]^T.
KernelDesc gpt2LmHead() {
  KernelDesc head;
  head.kind = KernelKind::Gemm;
  head.dtype = DType::BF16;
  head.tensorCores = true;
  head.m = 4096;
  head.n = 50257;
  head.k = 1280;
  head.transB = true;
  return head;
}

GpuSpec toyGpu() {
  GpuSpec g;
  g.name = "toy";
  g.numSMs = 1;
  g.fp32Flops = 10e12;    // 10 TFLOP/s
  g.memBandwidth = 1e12;  // 1 TB/s
  g.pcieBandwidth = 10e9; // 10 GB/s
  return g;
}
} // namespace

TEST(Roofline, GemmIsComputeBound) {
  // 1024^3 GEMM: 2*2^30 FLOPs = 2.147e9; at 10 TFLOP/s * 0.5 -> 429.5 us.
  // Bytes 3 * 4 MiB = 12.58 MB at 1 TB/s -> 12.6 us.
  KernelDesc k;
  k.kind = KernelKind::Gemm;
  k.m = k.n = k.k = 1024;
  RooflineModel model(0.5, 1.0);
  auto cost = model.estimate(k, toyGpu());
  ASSERT_TRUE(cost);
  EXPECT_NEAR(cost->latencyUs, 2.0 * 1024 * 1024 * 1024 / 5e12 * 1e6, 1e-6);
  EXPECT_TRUE(cost->computeBound);
  EXPECT_EQ(cost->model, "roofline");
}

TEST(Roofline, ElementwiseIsMemoryBound) {
  // Add of 1M floats: 2 inputs + 1 output = 12 MB -> 12 us at 1 TB/s.
  KernelDesc k;
  k.kind = KernelKind::Elementwise;
  k.numElements = 1000000;
  k.numInputs = 2;
  RooflineModel model(1.0, 1.0);
  auto cost = model.estimate(k, toyGpu());
  EXPECT_NEAR(cost->latencyUs, 12.0, 1e-9);
  EXPECT_FALSE(cost->computeBound);
}

TEST(KernelDesc, TensorCoreAlignmentFollowsTheLeadingDimensions) {
  // C's rows of 50,257 two-byte elements start at odd 2-byte offsets
  // (align1).
  KernelDesc head = gpt2LmHead();
  EXPECT_DOUBLE_EQ(head.tensorCoreAlignmentFactor(), 0.18);
  // Its weight gradient dW = dY^T X: A is dY, stored [4096 x 50257] and
  // transposed, so A's rows are M = 50257 long.
  KernelDesc wgrad = head;
  wgrad.m = 50257;
  wgrad.n = 1280;
  wgrad.k = 4096;
  wgrad.transA = true;
  wgrad.transB = false;
  EXPECT_DOUBLE_EQ(wgrad.tensorCoreAlignmentFactor(), 0.18);
  // BERT's 30,522-token vocabulary: 4-byte rows (align2).
  KernelDesc bert = head;
  bert.n = 30522;
  EXPECT_DOUBLE_EQ(bert.tensorCoreAlignmentFactor(), 0.3);
  // Multiples of 8 elements (16 bytes) run the full-speed kernels; M is no
  // leading dimension of an untransposed A, so an odd token count is too.
  KernelDesc aligned = head;
  aligned.n = 50272;
  aligned.m = 333;
  EXPECT_DOUBLE_EQ(aligned.tensorCoreAlignmentFactor(), 1.0);
  // TF32 (4-byte elements) with an odd K: 4-byte rows.
  KernelDesc tf32 = aligned;
  tf32.dtype = DType::F32;
  tf32.k = 1001;
  EXPECT_DOUBLE_EQ(tf32.tensorCoreAlignmentFactor(), 0.3);
  // CUDA-core GEMMs and other kernels are not affected.
  KernelDesc fp32 = head;
  fp32.dtype = DType::F32;
  fp32.tensorCores = false;
  EXPECT_DOUBLE_EQ(fp32.tensorCoreAlignmentFactor(), 1.0);
}

TEST(Roofline, MisalignedTensorCoreGemmsRunAtAFractionOfPeak) {
  // The LM head above on a GPU of 100 TFLOP/s BF16 tensor cores: 2 * 4096
  // * 50257 * 1280 = 527.0 GFLOP at 100e12 * 0.18 -> 29,276 us (aligned:
  // 5,270 us).
  GpuSpec gpu = toyGpu();
  gpu.tensorBf16Flops = 100e12;
  KernelDesc k = gpt2LmHead();
  RooflineModel model(1.0, 1.0);
  double flops = 2.0 * 4096 * 50257 * 1280;
  EXPECT_NEAR(model.estimate(k, gpu)->latencyUs, flops / (100e12 * 0.18) * 1e6,
              1e-6);
  k.n = 50264;
  EXPECT_NEAR(model.estimate(k, gpu)->latencyUs,
              2.0 * 4096 * 50264 * 1280 / 100e12 * 1e6, 1e-6);
}

TEST(Roofline, HostCopiesUsePcie) {
  KernelDesc k;
  k.kind = KernelKind::Memcpy;
  k.copyKind = MemcpyKind::HostToDevice;
  k.bytes = 1e6;
  RooflineModel model(1.0, 0.8);
  // 1 MB / (10 GB/s * 0.8) = 125 us.
  EXPECT_NEAR(model.estimate(k, toyGpu())->latencyUs, 125.0, 1e-9);
}

TEST(KernelDesc, ConvFlopsFollowTheOutputSize) {
  // ResNet-50 conv1: 1x3x224x224, 64x3x7x7, stride 2, pad 3 -> 112x112.
  KernelDesc k;
  k.kind = KernelKind::Conv2d;
  k.batch = 1;
  k.c = 3;
  k.h = k.w = 224;
  k.outChannels = 64;
  k.r = k.s = 7;
  k.strideH = k.strideW = 2;
  k.padH = k.padW = 3;
  EXPECT_EQ(k.outH(), 112);
  // 118,013,952 MACs.
  EXPECT_DOUBLE_EQ(k.totalFlops(), 2.0 * 118013952);
}

namespace {
KernelDesc gemm(int64_t m, int64_t n, int64_t k) {
  KernelDesc g;
  g.kind = KernelKind::Gemm;
  g.m = m;
  g.n = n;
  g.k = k;
  return g;
}

RooflineCalibration toyCalibration() {
  RooflineFit fit;
  fit.computeEfficiency = 0.5;
  fit.memoryEfficiency = 0.8;
  fit.fixedUs = 30;
  fit.launchUs = 25;
  RooflineCalibration c;
  c.add({"toy", "gemm", "f32"}, fit);
  fit.fixedUs = 4;
  fit.launchUs = 0;
  c.add({RooflineCalibration::kAnyDevice, "gemm", "f16+tc"}, fit);
  return c;
}
} // namespace

TEST(CalibratedRoofline, PricesWithTheFitAndSplitsTheLaunch) {
  // 1024^3 FP32: 2^31 FLOPs at 10 TFLOP/s * 0.5 = 429.497 us, plus the fixed
  // 30 us = 459.497 us timed alone; on a stream the 25 us launch less the
  // 2 us a streamed kernel keeps is not waited for: 436.497 us.
  CalibratedRooflineModel model(toyCalibration());
  auto cost = model.estimate(gemm(1024, 1024, 1024), toyGpu());
  ASSERT_TRUE(cost);
  double bound = 2.0 * 1024 * 1024 * 1024 / 5e12 * 1e6;
  EXPECT_NEAR(cost->latencyUs, bound + 30 - 23, 1e-6);
  EXPECT_NEAR(cost->isolationUs, 23, 1e-9);
  EXPECT_TRUE(cost->computeBound);
  EXPECT_EQ(cost->model, "calibrated");
}

TEST(CalibratedRoofline, UnmeasuredGpusAndTypesFallThrough) {
  CalibratedRooflineModel model(toyCalibration());
  GpuSpec h100 = *lookupGpu("h100");
  // No FP32 fit for H100 and no "*" FP32 fit: declined.
  EXPECT_FALSE(model.estimate(gemm(64, 64, 64), h100));
  // BF16 on tensor cores takes the "*" FP16 tensor-core fit: 2 * 4096^3
  // FLOPs at 989.4 TFLOP/s * 0.5 = 277.86 us, plus 4 us.
  KernelDesc bf16 = gemm(4096, 4096, 4096);
  bf16.dtype = DType::BF16;
  bf16.tensorCores = true;
  auto cost = model.estimate(bf16, h100);
  ASSERT_TRUE(cost);
  EXPECT_NEAR(cost->latencyUs, 2.0 * 4096 * 4096 * 4096 / 494.7e12 * 1e6 + 4,
              1e-6);
  // Never below the tensor-core roofline.
  RooflineModel bound(1.0, 1.0);
  EXPECT_GT(cost->latencyUs, bound.estimate(bf16, h100)->latencyUs);
  KernelDesc softmax;
  softmax.kind = KernelKind::Softmax;
  softmax.rows = softmax.cols = 128;
  EXPECT_FALSE(model.estimate(softmax, toyGpu()));
}

TEST(CalibratedRoofline, FitRecoversSyntheticEfficiencies) {
  // GEMMs timed on two toy GPUs at 40% of peak FLOP/s, 60% of the
  // bandwidth and a 12 us fixed cost: square ones compute-bound, skinny
  // ones (4 rows) memory-bound.
  GpuSpec a = toyGpu(), b = toyGpu();
  b.name = "toy2";
  b.fp32Flops = 20e12;
  std::vector<KernelDesc> kernels;
  for (int64_t s : {128, 256, 512, 1024, 2048, 4096})
    for (int64_t rows : {int64_t(4), s}) {
      kernels.push_back(gemm(rows, s, s));
      kernels.push_back(gemm(rows, 2 * s, s));
    }
  std::vector<TrainingRow> rows;
  for (const GpuSpec *g : {&a, &b})
    for (const KernelDesc &k : kernels) {
      auto [compute, memory] = rooflineSeconds(k, *g);
      double us = 12 + std::max(compute / 0.4, memory / 0.6) * 1e6;
      rows.push_back({&k, g, us});
    }
  RooflineCalibration c = fitRooflineCalibration(rows, {}, 4000, 10);
  const RooflineFit *fit = c.find(gemm(1, 1, 1), a);
  ASSERT_TRUE(fit);
  // Grids: efficiencies in 2% steps, the fixed cost in 1% of the fastest row.
  EXPECT_NEAR(fit->computeEfficiency, 0.4, 0.4 * 0.02);
  EXPECT_NEAR(fit->memoryEfficiency, 0.6, 0.6 * 0.02);
  EXPECT_NEAR(fit->fixedUs, 12, 0.5);
  EXPECT_LT(fit->gmae, 0.02);
  EXPECT_EQ(fit->rows, kernels.size());
  // Both devices behave alike, so the median fit holds for either one held
  // out, better than the plain roofline: a "*" fit for other GPUs.
  auto any = c.entries().find({RooflineCalibration::kAnyDevice, "gemm", "f32"});
  ASSERT_NE(any, c.entries().end());
  EXPECT_LT(any->second.heldOutGmae, any->second.rooflineGmae);
}

TEST(CalibratedRoofline, NoAnyDeviceFitWhereDevicesDisagree) {
  // Element-wise adds at full bandwidth on one GPU and at 5% on the other:
  // either one's fit prices the other worse than the plain 0.8, so GPUs
  // without measurements get no fit of this kind.
  GpuSpec a = toyGpu(), b = toyGpu();
  b.name = "toy2";
  std::vector<KernelDesc> kernels;
  for (int64_t n = 1 << 16; n <= (1 << 26); n *= 2) {
    KernelDesc add;
    add.kind = KernelKind::Elementwise;
    add.numElements = n;
    add.numInputs = 2;
    kernels.push_back(add);
  }
  std::vector<TrainingRow> rows;
  for (const KernelDesc &k : kernels) {
    double memoryUs = rooflineSeconds(k, a).second * 1e6;
    rows.push_back({&k, &a, memoryUs});
    rows.push_back({&k, &b, memoryUs / 0.05});
  }
  RooflineCalibration c = fitRooflineCalibration(rows, {}, 4000, 5);
  EXPECT_TRUE(c.entries().count({"toy", "elementwise", "f32"}));
  EXPECT_TRUE(c.entries().count({"toy2", "elementwise", "f32"}));
  EXPECT_FALSE(c.entries().count(
      {RooflineCalibration::kAnyDevice, "elementwise", "f32"}));
  // The compute side of a streaming kind is not fitted: it stays at peak.
  EXPECT_EQ(c.entries().at({"toy2", "elementwise", "f32"}).computeEfficiency,
            1.0);
}

TEST(CalibratedRoofline, JsonRoundTripAndBadFiles) {
  std::string dir = ::testing::TempDir();
  std::string path = dir + "/roofline-test.json";
  auto write = [&](const std::string &text) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << text;
  };
  write(llvm::formatv("{0}", toyCalibration().toJson()).str());
  auto loaded = RooflineCalibration::load(path);
  ASSERT_TRUE(bool(loaded)) << llvm::toString(loaded.takeError());
  EXPECT_EQ(loaded->entries().size(), 2u);
  EXPECT_EQ(loaded->entries().at({"toy", "gemm", "f32"}).fixedUs, 30);
  write("{\"version\": 99, \"fits\": []}");
  auto old = RooflineCalibration::load(path);
  ASSERT_FALSE(bool(old));
  EXPECT_NE(llvm::toString(old.takeError()).find("version 99"),
            std::string::npos);
  write("{\"version\": 1, \"fits\": [{\"device\": \"x\", \"kind\": \"gemm\", "
        "\"type\": \"f32\", \"compute_efficiency\": 1.5, "
        "\"memory_efficiency\": 0.5, \"fixed_us\": 1, \"launch_us\": 1}]}");
  auto bad = RooflineCalibration::load(path);
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("fits[0]: efficiencies"),
            std::string::npos);
}

TEST(CalibratedRoofline, LibraryKernelsAreFittedApartFromTheirKind) {
  // ATen adds at 90% of the bandwidth and a library's fused kernel
  // ("vllm::silu_and_mul") at 40% on one GPU: the element-wise fit is the
  // adds' alone, the fused kernel gets its own, and another library kernel
  // without rows takes the kind's.
  GpuSpec a = toyGpu();
  std::vector<KernelDesc> kernels;
  for (int64_t n = 1 << 16; n <= (1 << 26); n *= 2)
    for (llvm::StringRef op : {"add", "vllm::silu_and_mul"}) {
      KernelDesc k;
      k.kind = KernelKind::Elementwise;
      k.numElements = n;
      k.numInputs = 2;
      k.op = op.str();
      kernels.push_back(k);
    }
  std::vector<TrainingRow> rows;
  for (const KernelDesc &k : kernels) {
    double memoryUs = rooflineSeconds(k, a).second * 1e6;
    rows.push_back({&k, &a, 3 + memoryUs / (k.op == "add" ? 0.9 : 0.4)});
  }
  RooflineCalibration c = fitRooflineCalibration(rows, {}, 4000, 5);
  KernelDesc add = kernels[0], fused = kernels[1], other = kernels[1];
  other.op = "vllm::rotary_embedding";
  EXPECT_EQ(calibrationKindOf(add), "elementwise");
  EXPECT_EQ(calibrationKindOf(fused), "elementwise:vllm::silu_and_mul");
  ASSERT_TRUE(c.find(add, a) && c.find(fused, a) && c.find(other, a));
  EXPECT_NEAR(c.find(add, a)->memoryEfficiency, 0.9, 0.9 * 0.02);
  EXPECT_NEAR(c.find(fused, a)->memoryEfficiency, 0.4, 0.4 * 0.02);
  EXPECT_EQ(c.find(other, a), c.find(add, a));
}
