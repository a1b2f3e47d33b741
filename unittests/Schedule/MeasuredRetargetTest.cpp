#include "perf/Schedule/MeasuredRetarget.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace perf;

namespace {
/// 1M-element f32 add of two inputs: 1 MFLOP over 12 MB, far left of any
/// ridge point.
KernelDesc add1M() {
  KernelDesc k;
  k.kind = KernelKind::Elementwise;
  k.numElements = 1 << 20;
  k.numInputs = 2;
  k.op = "add";
  return k;
}

/// 4096^3 f32 GEMM: 2 * 4096^3 FLOPs over 3 * 4096^2 * 4 bytes (683
/// FLOP/byte), far right of the ridge point.
KernelDesc gemm4096() {
  KernelDesc k;
  k.kind = KernelKind::Gemm;
  k.m = k.n = k.k = 4096;
  return k;
}

const GpuSpec &gpu(llvm::StringRef name) { return *lookupGpu(name); }

/// Writes `text` as `dir`'s retarget.json and returns its path.
std::string writeRetargetJson(const llvm::unittest::TempDir &dir,
                              llvm::StringRef text) {
  std::string path = dir.path("retarget.json").str().str();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  EXPECT_FALSE(ec) << ec.message();
  os << text;
  return path;
}
} // namespace

TEST(MeasuredRetarget, GammaFollowsHabitatsRooflineInterpolation) {
  // A100 ridge point: 19.5e12 / 1555e9 = 12.540 FLOP/byte.
  double ridge = 19.5e12 / 1555e9;
  KernelDesc add = add1M();
  double intensity = add.totalFlops() / add.totalBytes();
  EXPECT_NEAR(memoryBoundedness(add, gpu("a100-pcie")),
              1 - 0.5 * intensity / ridge, 1e-12);
  KernelDesc gemm = gemm4096();
  EXPECT_NEAR(memoryBoundedness(gemm, gpu("a100-pcie")),
              0.5 * ridge / (2.0 * 4096 / 12), 1e-12);
  KernelDesc empty;
  empty.flops = 0;
  empty.bytes = 1e6;
  empty.kind = KernelKind::Generic;
  EXPECT_EQ(memoryBoundedness(empty, gpu("a100-pcie")), 1);
}

TEST(MeasuredRetarget, WaveScalingByHand) {
  // V100-PCIe -> A100-PCIe. Bandwidth 900 / 1555; SMs x clock
  // (80 x 1380) / (108 x 1410) = 0.72498.
  double computeFactor = (80.0 * 1380) / (108.0 * 1410);
  KernelDesc gemm = gemm4096();
  double gamma = memoryBoundedness(gemm, gpu("a100-pcie"));
  EXPECT_NEAR(gamma, 0.0091847, 1e-6);
  EXPECT_NEAR(waveScalingFactor(gemm, gpu("v100-pcie"), gpu("a100-pcie")),
              0.723482, 1e-6);
  EXPECT_NEAR(waveScalingFactor(gemm, gpu("v100-pcie"), gpu("a100-pcie")),
              std::pow(900.0 / 1555, gamma) *
                  std::pow(computeFactor, 1 - gamma),
              1e-12);
  // The memory-bound add moves with the bandwidth: 20 us -> 11.584 us.
  auto wave = MeasuredRetarget::create(RetargetMethod::WaveScaling, "", {});
  ASSERT_TRUE(bool(wave)) << llvm::toString(wave.takeError());
  RetargetedLatency moved =
      wave->retarget(add1M(), 20, gpu("v100-pcie"), gpu("a100-pcie"));
  EXPECT_EQ(moved.model, "wave");
  EXPECT_NEAR(moved.latencyUs, 11.58423, 1e-4);
}

TEST(MeasuredRetarget, StackRatioByHand) {
  auto ratio =
      MeasuredRetarget::create(RetargetMethod::StackRatio, "roofline", {});
  ASSERT_TRUE(bool(ratio)) << llvm::toString(ratio.takeError());
  // Roofline at 80% of the bandwidth: 12 MB takes 16.667 us on the V100 and
  // 9.6463 us on the A100, so 20 us measured becomes 20 x 9.6463 / 16.667.
  RetargetedLatency moved =
      ratio->retarget(add1M(), 20, gpu("v100-pcie"), gpu("a100-pcie"));
  EXPECT_EQ(moved.model, "roofline");
  EXPECT_NEAR(moved.latencyUs, 20 * 9.6463023 / 16.6666667, 1e-5);
  // Back: the inverse ratio.
  RetargetedLatency back = ratio->retarget(add1M(), moved.latencyUs,
                                           gpu("a100-pcie"), gpu("v100-pcie"));
  EXPECT_NEAR(back.latencyUs, 20, 1e-9);
}

TEST(MeasuredRetarget, ShrunkRatioByHand) {
  // A folder whose retarget.json weighs element-wise deviations by 0.25 and
  // says nothing of GEMMs.
  llvm::unittest::TempDir dir("perf-shrunk", /*Unique=*/true);
  writeRetargetJson(dir, R"({"residual_weight": {"elementwise": 0.25}})");
  CostModelOptions options;
  options.mlModelDir = dir.path().str();
  auto shrunk = MeasuredRetarget::create(RetargetMethod::ShrunkRatio,
                                         "roofline", options);
  ASSERT_TRUE(bool(shrunk)) << llvm::toString(shrunk.takeError());
  // The add moves 3 x 4 x 2^20 bytes: the roofline at 80% of the bandwidth
  // says 17.4763 us on the V100 and 10.1149 us on the A100. 20 us measured
  // on the V100 is on the A100 10.1149 x (20 / 17.4763)^0.25 = 10.4618 us
  // (the ratio says 11.5756).
  double bytes = 3.0 * 4 * 1048576;
  double v100 = bytes / (900e9 * 0.8) * 1e6,
         a100 = bytes / (1555e9 * 0.8) * 1e6;
  RetargetedLatency moved =
      shrunk->retarget(add1M(), 20, gpu("v100-pcie"), gpu("a100-pcie"));
  EXPECT_EQ(moved.model, "roofline");
  EXPECT_NEAR(moved.latencyUs, a100 * std::pow(20 / v100, 0.25), 1e-9);
  EXPECT_NEAR(moved.latencyUs, 10.4618, 1e-4);
  // A kind without a weight moves by the ratio (w = 1).
  auto ratio =
      MeasuredRetarget::create(RetargetMethod::StackRatio, "roofline", {});
  ASSERT_TRUE(bool(ratio));
  EXPECT_DOUBLE_EQ(
      shrunk->retarget(gemm4096(), 900, gpu("v100-pcie"), gpu("a100-pcie"))
          .latencyUs,
      ratio->retarget(gemm4096(), 900, gpu("v100-pcie"), gpu("a100-pcie"))
          .latencyUs);
}

TEST(MeasuredRetarget, ResidualWeightsAreChecked) {
  llvm::unittest::TempDir dir("perf-shrunk", /*Unique=*/true);
  auto error = [&](llvm::StringRef text) {
    auto weights = loadResidualWeights(writeRetargetJson(dir, text));
    return weights ? std::string("ok") : llvm::toString(weights.takeError());
  };
  std::string prefix = (dir.path("retarget.json") + ": ").str();
  EXPECT_EQ(error(R"({"residual_weight": {"gemm": -0.1}})"),
            prefix + "residual_weight.gemm: must be a number in [0, 1]");
  EXPECT_EQ(error(R"({"residual_weight": {"gemm": "half"}})"),
            prefix + "residual_weight.gemm: must be a number in [0, 1]");
  EXPECT_EQ(error(R"({"residual_weight": {"matmul": 0.5}})"),
            prefix + "residual_weight.matmul: not a kernel kind");
  EXPECT_EQ(error(R"({"weights": {}})"),
            prefix + "expected an object with a \"residual_weight\" object");
  EXPECT_EQ(error(R"({"residual_weight": {"gemm": 0.05, "softmax": 1}})"),
            "ok");
}

TEST(MeasuredRetarget, KernelsWithoutWorkMoveWithTheBandwidth) {
  // An opaque measured kernel (a per-node backward time, a library kernel
  // no rule describes): no model prices it, so it moves as a memory-bound
  // kernel, 42 us x 320 / 3350 GB/s from a T4 to an H100.
  KernelDesc opaque;
  opaque.kind = KernelKind::Generic;
  for (RetargetMethod method :
       {RetargetMethod::StackRatio, RetargetMethod::WaveScaling}) {
    auto retarget = MeasuredRetarget::create(method, "roofline", {});
    ASSERT_TRUE(bool(retarget));
    RetargetedLatency moved =
        retarget->retarget(opaque, 42, gpu("t4"), gpu("h100"));
    EXPECT_DOUBLE_EQ(moved.latencyUs, 42.0 * 320 / 3350);
    EXPECT_EQ(moved.model, "wave");
  }
  // A GPU without a bandwidth gives nothing to scale by: kept.
  GpuSpec unknown = gpu("h100");
  unknown.memBandwidth = 0;
  auto retarget =
      MeasuredRetarget::create(RetargetMethod::StackRatio, "roofline", {});
  EXPECT_EQ(retarget->retarget(opaque, 42, gpu("t4"), unknown).latencyUs, 42);
}

TEST(MeasuredRetarget, TinyPricesAreFlooredAtAStreamedKernel) {
  // One element: the roofline says nanoseconds on both GPUs; the ratio of
  // the 2 us floors leaves a launch-bound 5 us alone.
  KernelDesc one = add1M();
  one.numElements = 1;
  auto ratio =
      MeasuredRetarget::create(RetargetMethod::StackRatio, "roofline", {});
  ASSERT_TRUE(bool(ratio));
  EXPECT_DOUBLE_EQ(
      ratio->retarget(one, 5, gpu("t4"), gpu("a100-pcie")).latencyUs, 5);
}

TEST(MeasuredRetarget, MethodNamesRoundTrip) {
  for (RetargetMethod m :
       {RetargetMethod::StackRatio, RetargetMethod::ShrunkRatio,
        RetargetMethod::WaveScaling})
    EXPECT_EQ(parseRetargetMethod(retargetMethodName(m)), m);
  EXPECT_FALSE(parseRetargetMethod("habitat"));
  // A stack that does not exist is an error, not a silent fallback.
  EXPECT_FALSE(bool(
      MeasuredRetarget::create(RetargetMethod::StackRatio, "nosuchmodel", {})));
}
