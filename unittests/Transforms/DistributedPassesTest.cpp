//===- DistributedPassesTest.cpp - Collective costs through the passes ----===//
//
// Hand-computed collective times as --perf-comm-cost writes them, for the
// systems the distributed passes use, and the data-parallel buckets they
// price. The arithmetic is in the comments.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "perf/Comm/CollectiveModel.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Transforms/DistributedUtils.h"
#include "perf/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace perf;
using namespace mlir;

namespace {
class DistributedPasses : public ::testing::Test {
protected:
  DistributedPasses() { context.loadDialect<PerfDialect>(); }

  OwningOpRef<ModuleOp> parse(llvm::StringRef text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  /// Latencies of every collective, in order, after --perf-comm-cost.
  std::vector<double> price(ModuleOp module, llvm::StringRef system,
                            llvm::StringRef algorithm = "auto") {
    PassManager pm(&context);
    CommCostOptions options;
    options.system = system.str();
    options.algorithm = algorithm.str();
    pm.addPass(createCommCost(options));
    std::vector<double> out;
    if (failed(pm.run(module)))
      return out;
    module.walk([&](Operation *op) {
      if (isCollective(op))
        out.push_back(op->getAttrOfType<FloatAttr>(PerfDialect::kLatencyAttr)
                          .getValueAsDouble());
    });
    return out;
  }

  MLIRContext context;
};

constexpr const char *kAllReduce4 = R"mlir(
perf.graph @g attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  perf.op "ar" : () -> () {
    perf.all_reduce {bytes = 100000000, group = array<i64: 0, 1, 2, 3>}
  }
  perf.op "p2p" : () -> () {
    perf.send {bytes = 4200000, group = array<i64: 2, 3>}
  }
}
)mlir";

TEST_F(DistributedPasses, RingAllReduceOnDgxA100) {
  auto module = parse(kAllReduce4);
  ASSERT_TRUE(module);
  // NVLink3 300 GB/s x 0.7 = 210 GB/s, alpha 2 us, p = 4, n = 1e8:
  //   ring: 2 (p-1) alpha + 2 (p-1)/p n/B = 12 + 714.2857 = 726.2857 us
  //   tree: 2 log2(p) alpha + 2 n/B = 8 + 952.381 us: ring is chosen.
  // send: alpha + n/B = 2 + 4.2e6 / 2.1e11 s = 2 + 20 = 22 us.
  std::vector<double> t = price(*module, "dgx-a100");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 12 + 1.5e8 / 2.1e11 * 1e6, 1e-9);
  EXPECT_NEAR(t[0], 726.285714285714, 1e-6);
  EXPECT_NEAR(t[1], 22.0, 1e-9);
}

TEST_F(DistributedPasses, ForcedTreeAndTheOpsOwnAlgorithm) {
  auto module = parse(kAllReduce4);
  ASSERT_TRUE(module);
  // Tree forced: 2 ceil(log2 4) x 2 us + 2 x 1e8 / 2.1e11 s
  //   = 8 + 952.380952 = 960.380952 us.
  std::vector<double> t = price(*module, "dgx-a100", "tree");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 960.380952380952, 1e-6);
  module->walk([](AllReduceOp op) {
    EXPECT_EQ(op->getAttrOfType<StringAttr>("perf.algorithm").getValue(),
              "tree");
    EXPECT_EQ(
        op->getAttrOfType<StringAttr>(PerfDialect::kCostModelAttr).getValue(),
        "alpha-beta");
  });
}

TEST_F(DistributedPasses, DefaultSystemIsOneNodeOfTheTarget) {
  // T4 has no NVLink: PCIe at the GPU's 32 GB/s... the catalog's figure,
  // alpha 4 us (PCIe gen4 default), 70% efficiency.
  const GpuSpec *t4 = lookupGpu("T4");
  ASSERT_NE(t4, nullptr);
  SystemSpec pcie = singleNodeSystem(*t4, 4);
  EXPECT_EQ(pcie.gpusPerNode, 4u);
  EXPECT_DOUBLE_EQ(pcie.intraNode.bandwidth, t4->pcieBandwidth);
  EXPECT_DOUBLE_EQ(pcie.intraNode.latencyUs, 4.0);
  // Ring all_reduce of 1e8 B over 4 T4s: 6 x 4 + 1.5e8 / (0.7 B) s.
  double b = 0.7 * t4->pcieBandwidth;
  EXPECT_NEAR(collectiveTimeUs(CollectiveKind::AllReduce, 1e8,
                               llvm::ArrayRef<int>{0, 1, 2, 3}, pcie,
                               CollectiveAlgorithm::Ring),
              24 + 1.5e8 / b * 1e6, 1e-6);

  const GpuSpec *a100 = lookupGpu("A100-SXM4-80GB");
  ASSERT_NE(a100, nullptr);
  SystemSpec nvlink = singleNodeSystem(*a100, 8);
  EXPECT_DOUBLE_EQ(nvlink.intraNode.bandwidth, 300e9);
  EXPECT_DOUBLE_EQ(nvlink.intraNode.latencyUs, 2.0);

  // The pass without `system` gives the dgx-a100 figures on this target.
  auto module = parse(kAllReduce4);
  ASSERT_TRUE(module);
  std::vector<double> t = price(*module, "");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 726.285714285714, 1e-6);
}

TEST_F(DistributedPasses, TwoNodesGoHierarchical) {
  // Two DGX-A100 nodes (8 HDR NICs of 25 GB/s each, alpha 5 us), all 16
  // GPUs, n = 1e8:
  //   intra reduce_scatter(n) over 8: 7 x 2 + 7/8 x 1e8 / 2.1e11 s
  //     = 14 + 416.6667 us
  //   inter all_reduce(n/8) over 2 nodes, one NIC per GPU at 17.5 GB/s:
  //     2 x 5 + 2 x 1/2 x 1.25e7 / 1.75e10 s = 10 + 714.2857 us
  //   intra all_gather(n) over 8: 14 + 416.6667 us
  //   total 1585.6190 us; flat ring (150 + 10714 us) and tree are slower.
  llvm::SmallString<64> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("two-dgx", "json", fd, path));
  {
    llvm::raw_fd_ostream os(fd, true);
    os << R"({"base": "dgx-a100", "nodes": 2})";
  }
  auto module = parse(R"mlir(
perf.graph @g attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  perf.op "ar" : () -> () {
    perf.all_reduce {bytes = 100000000, group = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>}
  }
}
)mlir");
  ASSERT_TRUE(module);
  std::vector<double> t = price(*module, path);
  llvm::sys::fs::remove(path);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0],
              2 * (14 + 0.875e8 / 2.1e11 * 1e6) + 10 + 1.25e7 / 1.75e10 * 1e6,
              1e-6);
  module->walk([](AllReduceOp op) {
    EXPECT_EQ(op->getAttrOfType<StringAttr>("perf.algorithm").getValue(),
              "hierarchical");
  });
}

TEST_F(DistributedPasses, DataParallelBucketsPricedOnTheCommStream) {
  // Gradients of 3e6, 2e6 and 1e6 B with 4 MiB (4194304 B) buckets: the
  // first two close a bucket of 5e6 B, the last a bucket of 1e6 B. Over 8
  // GPUs of dgx-a100 (210 GB/s, alpha 2 us):
  //   ring: 2 x 7 x 2 + 2 x 7/8 x n / 2.1e11 s = 28 + 41.667 (8.333) us
  //   tree: 2 x 3 x 2 + 2 n / 2.1e11 s      = 12 + 47.619 (9.524) us
  // so the tree wins for both: 59.619 and 21.524 us.
  auto module = parse(R"mlir(
perf.graph @g attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %a = perf.op "b1" {perf.grad_bytes = 3000000} : () -> tensor<4xf32> {
    perf.gemm {m = 8, n = 8, k = 8, pass = "dgrad"}
  }
  %b = perf.op "b2"(%a) {perf.grad_bytes = 2000000} : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 8, n = 8, k = 8, pass = "dgrad"}
  }
  perf.op "b3"(%b) {perf.grad_bytes = 1000000} : (tensor<4xf32>) -> () {
    perf.gemm {m = 8, n = 8, k = 8, pass = "dgrad"}
  }
}
)mlir");
  ASSERT_TRUE(module);
  PassManager pm(&context);
  DataParallelOptions dp;
  dp.devices = 8;
  dp.bucketMb = 4;
  pm.addPass(createDataParallel(dp));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  std::vector<int64_t> bytes, streams;
  module->walk([&](AllReduceOp op) {
    bytes.push_back(op.getBytes());
    streams.push_back(op.getStream());
    EXPECT_EQ(op.getGroup().size(), 8u);
  });
  EXPECT_EQ(bytes, (std::vector<int64_t>{5000000, 1000000}));
  EXPECT_EQ(streams, (std::vector<int64_t>{1, 1}));
  std::vector<double> t = price(*module, "dgx-a100");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 12 + 2 * 5e6 / 2.1e11 * 1e6, 1e-9); // 59.619 us
  EXPECT_NEAR(t[1], 12 + 2 * 1e6 / 2.1e11 * 1e6, 1e-9); // 21.524 us
  EXPECT_GT(collectiveTimeUs(CollectiveKind::AllReduce, 5e6,
                             llvm::ArrayRef<int>{0, 1, 2, 3, 4, 5, 6, 7},
                             *lookupSystemPreset("dgx-a100"),
                             CollectiveAlgorithm::Ring),
            t[0]);
}

TEST_F(DistributedPasses, BadSystemFileIsAnErrorOnTheGraph) {
  auto module = parse(kAllReduce4);
  ASSERT_TRUE(module);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str();
    return success();
  });
  EXPECT_TRUE(price(*module, "/nonexistent/system.json").empty());
  EXPECT_NE(diagnostics.find("/nonexistent/system.json"), std::string::npos)
      << diagnostics;
}
} // namespace
