//===- BenchGpuTest.cpp - perf-bench on a real device ---------------------===//
//
// Every test needs a CUDA device and calls GTEST_SKIP without one, so ctest
// reports them skipped, not passed, on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#include "bench/Runner.h"
#include "bench/Stats.h"

#include "gtest/gtest.h"

#include <array>

using namespace bench;

namespace {

class Gpu : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    std::string why;
    available = gpuAvailable(why);
    reason = why;
    if (available) {
      RunOptions options;
      options.warmup = 3;
      options.reps = 10;
      std::string error;
      initialized = gpuInit(options, info, error);
      reason = error;
    }
  }
  static void TearDownTestSuite() {
    if (initialized)
      gpuShutdown();
  }
  void SetUp() override {
    if (!available || !initialized)
      GTEST_SKIP() << "no usable CUDA device: " << reason;
  }
  static Kernel kernel(const std::string &kind, const std::string &dtype,
                       const AttrMap &attrs) {
    Kernel k;
    std::string error;
    EXPECT_TRUE(buildKernel(kind, dtype, attrs, true, k, error)) << error;
    return k;
  }
  static RunOptions options() {
    RunOptions o;
    o.warmup = 3;
    o.reps = 10;
    return o;
  }

  static bool available, initialized;
  static std::string reason;
  static DeviceInfo info;
};

bool Gpu::available = false;
bool Gpu::initialized = false;
std::string Gpu::reason;
DeviceInfo Gpu::info;

TEST_F(Gpu, GemmTimingsArePlausible) {
  Kernel k = kernel("gemm", "f16",
                    {{"m", AttrValue::ofInt(4096)},
                     {"n", AttrValue::ofInt(4096)},
                     {"k", AttrValue::ofInt(4096)}});
  Measurement m = measureKernel(k, options());
  ASSERT_TRUE(m.ok) << m.skipReason;
  ASSERT_EQ(m.samplesUs.size(), 10u);
  Summary s = summarize(m.samplesUs);
  double tflops = 2.0 * 4096 * 4096 * 4096 / (s.median * 1e6);
  // Above 1 TFLOP/s on any tensor-core GPU, below any datasheet peak.
  EXPECT_GT(tflops, 1.0);
  EXPECT_LT(tflops, 5000.0);
  EXPECT_FALSE(m.algo.empty());
}

TEST_F(Gpu, ConvTriesAlgorithmsAndNamesTheWinner) {
  Kernel k = kernel("conv2d", "f32",
                    {{"n", AttrValue::ofInt(8)},
                     {"c", AttrValue::ofInt(32)},
                     {"h", AttrValue::ofInt(28)},
                     {"w", AttrValue::ofInt(28)},
                     {"k", AttrValue::ofInt(32)},
                     {"r", AttrValue::ofInt(3)},
                     {"s", AttrValue::ofInt(3)},
                     {"pad", AttrValue::ofInt(1)}});
  Measurement m = measureKernel(k, options());
  ASSERT_TRUE(m.ok) << m.skipReason;
  EXPECT_EQ(m.algo.rfind("cudnn FWD_", 0), 0u) << m.algo;
  EXPECT_GT(summarize(m.samplesUs).median, 0.0);
}

TEST_F(Gpu, CopyBandwidthBelowLink) {
  Kernel k = kernel("memcpy", "f32",
                    {{"bytes", AttrValue::ofInt(64 << 20)},
                     {"dir", AttrValue::ofString("h2d")}});
  Measurement m = measureKernel(k, options());
  ASSERT_TRUE(m.ok) << m.skipReason;
  double gbs = (64 << 20) / (summarize(m.samplesUs).median * 1e3);
  EXPECT_GT(gbs, 1.0);    // slower than PCIe 1.0 x16 would be a broken run
  EXPECT_LT(gbs, 1000.0); // faster than any host link is a broken timer
}

TEST_F(Gpu, HandWrittenKernelsMatchHostReferences) {
  double err = 0;
  std::string error;
  ASSERT_TRUE(verifyKernel(kernel("embedding_bag", "f32",
                                  {{"tables", AttrValue::ofInt(3)},
                                   {"rows", AttrValue::ofInt(1000)},
                                   {"dim", AttrValue::ofInt(200)},
                                   {"batch", AttrValue::ofInt(17)},
                                   {"pooling", AttrValue::ofInt(5)}}),
                           err, error))
      << error;
  EXPECT_LT(err, 1e-4);
  // Every launch path: softmax's warp kernel with a partial last vector of
  // lanes (100, 1000 columns) and its block kernel (4096); layer norm's
  // 16-byte vectors (1000) and scalar loads (1001).
  for (const char *kind : {"reduce", "softmax", "layernorm"})
    for (int64_t cols : {100, 1000, 1001, 4096}) {
      ASSERT_TRUE(verifyKernel(kernel(kind, "f32",
                                      {{"rows", AttrValue::ofInt(37)},
                                       {"cols", AttrValue::ofInt(cols)}}),
                               err, error))
          << error;
      EXPECT_LT(err, 1e-3) << kind << " " << cols;
    }
  ASSERT_TRUE(verifyKernel(
      kernel("transpose", "f32", {{"elements", AttrValue::ofInt(96 * 70)}}),
      err, error));
  EXPECT_EQ(err, 0.0);
  // Max pooling, padded and strided (ResNet's stem pool) and global (a 7x7
  // window over 7x7), forward and the backward from its argmax.
  for (auto [hw, r, stride, pad] : std::vector<std::array<int64_t, 4>>{
           {15, 3, 2, 1}, {7, 7, 1, 0}, {13, 3, 1, 1}}) {
    ASSERT_TRUE(verifyKernel(kernel("pooling", "f32",
                                    {{"n", AttrValue::ofInt(2)},
                                     {"c", AttrValue::ofInt(3)},
                                     {"h", AttrValue::ofInt(hw)},
                                     {"w", AttrValue::ofInt(hw)},
                                     {"r", AttrValue::ofInt(r)},
                                     {"s", AttrValue::ofInt(r)},
                                     {"stride", AttrValue::ofInt(stride)},
                                     {"pad", AttrValue::ofInt(pad)}}),
                             err, error))
        << error;
    EXPECT_LT(err, 1e-5) << hw << " " << r;
  }
  ASSERT_TRUE(verifyKernel(kernel("batchnorm", "f32",
                                  {{"elements", AttrValue::ofInt(37 * 1000)},
                                   {"c", AttrValue::ofInt(37)}}),
                           err, error))
      << error;
  EXPECT_LT(err, 1e-4);
  for (const char *op : {"sgd", "adam"}) {
    ASSERT_TRUE(verifyKernel(kernel("optimizer", "f32",
                                    {{"elements", AttrValue::ofInt(100001)},
                                     {"op", AttrValue::ofString(op)}}),
                             err, error))
        << error;
    EXPECT_LT(err, 1e-5) << op;
  }
  // 16-byte vectors (100000 floats) and the scalar loop (100001).
  for (int64_t n : {100000, 100001}) {
    ASSERT_TRUE(verifyKernel(kernel("elementwise", "f32",
                                    {{"elements", AttrValue::ofInt(n)},
                                     {"inputs", AttrValue::ofInt(3)},
                                     {"op", AttrValue::ofString("add")}}),
                             err, error));
    EXPECT_LT(err, 1e-5) << n;
  }
  // Every arithmetic class of ElementwiseOps.h, fills, the scan and the
  // select, on the vector path and the scalar one.
  for (auto [op, inputs] :
       std::vector<std::pair<const char *, int>>{{"pow", 2},
                                                 {"where", 3},
                                                 {"rsub", 2},
                                                 {"le", 2},
                                                 {"rsqrt", 1},
                                                 {"sub_square", 2},
                                                 {"log", 1},
                                                 {"gelu_bwd", 2},
                                                 {"native_dropout", 1},
                                                 {"index_put_", 1},
                                                 {"full", 0},
                                                 {"zeros_like", 1},
                                                 {"arange", 0},
                                                 {"cumsum", 1},
                                                 {"nonzero", 1}})
    for (int64_t n : {4096, 4097}) {
      ASSERT_TRUE(verifyKernel(kernel("elementwise", "f32",
                                      {{"elements", AttrValue::ofInt(n)},
                                       {"inputs", AttrValue::ofInt(inputs)},
                                       {"op", AttrValue::ofString(op)}}),
                               err, error))
          << op << ": " << error;
      // A float scan adds in another order than the host's loop.
      EXPECT_LT(err, std::string(op) == "cumsum" ? 1e-4 : 1e-5)
          << op << " " << n;
    }
}

TEST_F(Gpu, ProbeWritesPlausibleFigures) {
  ProbeResult probe;
  std::string error;
  ASSERT_TRUE(runProbe(options(), probe, error)) << error;
  ASSERT_TRUE(probe.fp32Tflops && probe.memBwGBs);
  EXPECT_GT(*probe.fp32Tflops, 0.5);
  EXPECT_LT(*probe.fp32Tflops, 200.0);
  EXPECT_GT(*probe.memBwGBs, 50.0);
  EXPECT_LT(*probe.memBwGBs, 20000.0);
  ASSERT_TRUE(probe.launchUs);
  EXPECT_GT(*probe.launchUs, 0.0);
}

} // namespace

// A step of two 4096^3 FP16 GEMMs on two streams, the second waiting for the
// first: the replay runs both, one after the other, so the step takes about
// twice one GEMM's time (and never less than their sum's share of it).
TEST_F(Gpu, RunGraphWaitsAcrossStreams) {
  std::vector<GraphPlan> plans;
  std::string error;
  const std::string gemm = R"("kind": "gemm", "dtype": "f16",
      "signature": "b=1 m=4096 n=4096 k=4096 ta=0 tb=0")";
  ASSERT_TRUE(parseLaunchList(
      R"({"schema": "perf.launch_list/1", "graphs": [{"name": "g",
        "device": "", "predicted_us": 0, "launches": [
        {"type": "kernel", "op": 0, "name": "a", "device": 0, "stream": 0, )" +
          gemm + R"(},
        {"type": "kernel", "op": 1, "name": "b", "device": 0, "stream": 1, )" +
          gemm + R"(, "after": [0]},
        {"type": "sync", "op": 2, "name": "s", "device": 0, "stream": -1}]}]})",
      "step.json", plans, error))
      << error;
  GraphRun run = runGraph(plans[0], options());
  ASSERT_TRUE(run.ok) << run.error;
  EXPECT_EQ(run.samplesUs.size(), 10u);
  EXPECT_EQ(run.kernelsRun, 2u);
  EXPECT_TRUE(run.notRun.empty());
  Measurement one = measureKernel(plans[0].kernels[0], options());
  ASSERT_TRUE(one.ok) << one.skipReason;
  double step = summarize(run.samplesUs).median;
  double single = summarize(one.samplesUs).median;
  EXPECT_GT(step, 1.8 * single);
  EXPECT_LT(step, 3.0 * single);
  // The host's side: both GEMMs of each timed repetition, each issued in
  // less than one GEMM's device time; a repetition's issue holds both
  // launches and the sync that waits for them.
  ASSERT_EQ(run.launchHostUs.count("gemm"), 1u);
  EXPECT_EQ(run.launchHostUs["gemm"].size(), 20u);
  EXPECT_EQ(run.issueUs.size(), 10u);
  double launch = summarize(run.launchHostUs["gemm"]).median;
  EXPECT_GT(launch, 0.0);
  EXPECT_LT(launch, single);
  EXPECT_GT(summarize(run.issueUs).median, 2 * launch);
}

// VGG-19's second convolution at batch 32: cuDNN's heuristic choice and the
// fastest algorithm differ on it. A replay with --run-graph-fastest-conv
// runs the kernel the database row times; the heuristic's can only be as
// fast or slower.
TEST_F(Gpu, RunGraphReplaysTheFastestConvolution) {
  std::vector<GraphPlan> plans;
  std::string error;
  ASSERT_TRUE(parseLaunchList(
      R"({"schema": "perf.launch_list/1", "graphs": [{"name": "g",
        "device": "", "predicted_us": 0, "launches": [
        {"type": "kernel", "op": 0, "name": "conv", "device": 0, "stream": 0,
         "kind": "conv2d", "dtype": "f32", "signature": "n=32 c=64 h=224 w=224 k=64 r=3 s=3 sh=1 sw=1 ph=1 pw=1 dh=1 dw=1 g=1 pass=fwd"}]}]})",
      "step.json", plans, error))
      << error;
  RunOptions fastest = options();
  fastest.replayFastestConv = true;
  GraphRun best = runGraph(plans[0], fastest);
  ASSERT_TRUE(best.ok) << best.error;
  GraphRun heuristic = runGraph(plans[0], options());
  ASSERT_TRUE(heuristic.ok) << heuristic.error;
  Measurement row = measureKernel(plans[0].kernels[0], options());
  ASSERT_TRUE(row.ok) << row.skipReason;
  double replayed = summarize(best.samplesUs).median;
  double alone = summarize(row.samplesUs).median;
  EXPECT_GT(replayed, 0.9 * alone) << row.algo;
  EXPECT_LT(replayed, 1.2 * alone) << row.algo;
  EXPECT_GT(summarize(heuristic.samplesUs).median, 0.9 * replayed);
  std::printf("conv: fastest %s alone %.1f us, replayed %.1f us; heuristic "
              "replayed %.1f us\n",
              row.algo.c_str(), alone, replayed,
              summarize(heuristic.samplesUs).median);
}
