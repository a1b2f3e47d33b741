#include "perf/CostModel/RooflineModel.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
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
