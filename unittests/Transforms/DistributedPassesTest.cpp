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
/// A string fact a pass wrote on `work` (empty when absent).
StringRef factOf(WorkAttr work, StringRef name) {
  auto fact = work.getAs<StringAttr>(name);
  return fact ? fact.getValue() : StringRef();
}

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
    pm.addNestedPass<GraphOp>(createCommCost(options));
    std::vector<double> out;
    if (failed(pm.run(module)))
      return out;
    for (WorkAttr w : collectives(module))
      out.push_back(w.getAs<FloatAttr>(kLatencyAttr).getValueAsDouble());
    return out;
  }

  /// The collectives of every op, in order, of `kind` when given.
  static std::vector<WorkAttr>
  collectives(ModuleOp module, std::optional<WorkKind> kind = std::nullopt) {
    std::vector<WorkAttr> out;
    module.walk([&](FrameworkOp fw) {
      for (WorkAttr w : fw.getWorkList())
        if (w.isCollective() && (!kind || w.getKind() == *kind))
          out.push_back(w);
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

// NCCL's figures on DGX A100 (unittests/Comm/NcclTunerTest.cpp works the
// topology): a group inside the node has a ring of 12 channels at 20 GB/s,
// 240 GB/s of bus bandwidth.
TEST_F(DistributedPasses, RingAllReduceOnDgxA100) {
  auto module = parse(kAllReduce4);
  ASSERT_TRUE(module);
  // all_reduce of 1e8 B over 4 GPUs, 6 steps:
  //   ring Simple: 8.4 + 6 x 3.4 = 28.8 us, 240 x 4/6 = 160 GB/s:
  //     28.8 + 1e8 / 160000 = 653.8 us
  //   ring LL128: 25.4 + 1e8 / 147200 = 704.75 us; tree Simple: 32.4 +
  //     1e8 / (110.4 x .8, the tree correction at 2^20 x 64 B) us.
  // send of 4.2e6 B: a one-hop ring step, Simple: 8.4 + 3.4 = 11.8 us at
  //   240 GB/s: 11.8 + 17.5 = 29.3 us.
  std::vector<double> t = price(*module, "dgx-a100");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 28.8 + 1e8 / 160000, 1e-9);
  EXPECT_NEAR(t[1], 11.8 + 4.2e6 / 240000, 1e-9);
  for (WorkAttr w : collectives(*module, WorkKind::AllReduce)) {
    EXPECT_EQ(factOf(w, kAlgorithmAttr), "ring");
    EXPECT_EQ(factOf(w, kProtocolAttr), "Simple");
    EXPECT_EQ(factOf(w, kCostModelAttr), "nccl");
  }
}

TEST_F(DistributedPasses, ForcedTreeAndTheOpsOwnAlgorithm) {
  auto module = parse(kAllReduce4);
  ASSERT_TRUE(module);
  // Tree forced (NCCL_ALGO=Tree): bus min(240 x .92, 12 x 24) = 220.8, a
  // tree's algorithm bandwidth half of it, 110.4; 1e8 B is log2(1e8 / 64)
  // = 20, correction .8 (Simple): 88.32 GB/s. Latency 8.4 + 2 x 3 x 4.0 =
  // 32.4 us. 32.4 + 1e8 / 88320 = 1164.65 us (LL128: 21.5 + 1e8 / (85.87
  // x .9); LL: 10.4 + 1e8 / 29.05). The send keeps NCCL's point-to-point.
  std::vector<double> t = price(*module, "dgx-a100", "tree");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 32.4 + 1e8 / (1000 * 110.4 * 0.8), 1e-9);
  EXPECT_NEAR(t[1], 11.8 + 4.2e6 / 240000, 1e-9);
  for (WorkAttr w : collectives(*module, WorkKind::AllReduce))
    EXPECT_EQ(factOf(w, kAlgorithmAttr), "tree");
}

TEST_F(DistributedPasses, DefaultSystemIsOneNodeOfTheTarget) {
  // T4 has no NVLink: its 16 GB/s PCIe (12.19 GB/s in NCCL's figures, 12 of
  // every 15.75) carries one channel at speedArrayIntra's 12; PCI hops, no
  // LL128.
  const GpuSpec *t4 = lookupGpu("T4");
  ASSERT_NE(t4, nullptr);
  SystemSpec pcie = singleNodeSystem(*t4, 4);
  EXPECT_EQ(pcie.gpusPerNode, 4u);
  EXPECT_DOUBLE_EQ(pcie.intraNode.bandwidth, t4->pcieBandwidth);
  EXPECT_FALSE(pcie.nvSwitch);
  // all_reduce of 1e8 B over 4 T4s: ring Simple, 8.4 + 6 x 5.7 = 42.6 us,
  // 12 x 4/6 = 8 GB/s: 42.6 + 12500 = 12542.6 us.
  llvm::Expected<CollectiveEstimate> e = estimateCollective(
      CollectiveKind::AllReduce, 1e8, packRanks(4, pcie), pcie);
  ASSERT_TRUE(bool(e)) << llvm::toString(e.takeError());
  EXPECT_NEAR(e->timeUs, 42.6 + 1e8 / 8000, 1e-6);

  const GpuSpec *a100 = lookupGpu("A100-SXM4-80GB");
  ASSERT_NE(a100, nullptr);
  SystemSpec nvlink = singleNodeSystem(*a100, 8);
  EXPECT_DOUBLE_EQ(nvlink.intraNode.bandwidth, 300e9);
  EXPECT_TRUE(nvlink.nvSwitch);

  // The pass without `system` gives the dgx-a100 figures on this target.
  auto module = parse(kAllReduce4);
  ASSERT_TRUE(module);
  std::vector<double> t = price(*module, "");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 28.8 + 1e8 / 160000, 1e-9);
}

// Without a system, the pass prices on one node of the target holding
// every device the graph names: an op's own device, a kernel's, a
// collective group's (a group naming a device the node lacks is an error).
TEST_F(DistributedPasses, TheDefaultSystemHoldsEveryDeviceTheGraphNames) {
  const std::string header = R"mlir(
perf.graph @g attributes {target = #perf.gpu<"A100-SXM4-80GB">} {
  perf.op "ar" : () -> () {
    perf.all_reduce {bytes = 100000000, group = array<i64: 0, 1>}
  })mlir";
  struct Case {
    const char *rest;
    int64_t maxDevice;
    size_t collectives;
  };
  for (Case c : {
           Case{"", 1, 1},
           Case{R"mlir(perf.op "opt" {device = 3 : i64} : () -> ())mlir", 3, 1},
           Case{R"mlir(perf.op "mm" : () -> () {
                   perf.gemm {m = 64, n = 64, k = 64, device = 3}
                 })mlir",
                3, 1},
           Case{R"mlir(perf.op "send" : () -> () {
                   perf.send {bytes = 64, group = array<i64: 1, 3>}
                 })mlir",
                3, 2},
       }) {
    std::string text = header + "\n  " + c.rest + "\n}\n";
    auto module = parse(text);
    ASSERT_TRUE(module) << text;
    GraphOp graph = *module->getOps<GraphOp>().begin();
    EXPECT_EQ(maxDeviceId(graph), c.maxDevice) << text;
    FailureOr<SystemSpec> system = getGraphSystem(graph, "");
    ASSERT_TRUE(succeeded(system));
    EXPECT_EQ(system->gpusPerNode, unsigned(c.maxDevice + 1)) << text;
    // A caller that counted the devices itself (the pass, in its walk).
    FailureOr<SystemSpec> larger = getGraphSystem(graph, "", 7);
    ASSERT_TRUE(succeeded(larger));
    EXPECT_EQ(larger->gpusPerNode, 8u);
    // The all_reduce as the collective model prices it on that node.
    SystemSpec node = singleNodeSystem(*lookupGpu("A100-SXM4-80GB"),
                                       unsigned(c.maxDevice + 1));
    llvm::Expected<CollectiveEstimate> e = estimateCollective(
        CollectiveKind::AllReduce, 1e8, packRanks(2, node), node);
    ASSERT_TRUE(bool(e)) << llvm::toString(e.takeError());
    std::vector<double> t = price(*module, "");
    ASSERT_EQ(t.size(), c.collectives) << text;
    EXPECT_DOUBLE_EQ(t[0], e->timeUs) << text;
  }
}

TEST_F(DistributedPasses, TwoNodesRunTheRing) {
  // Two DGX-A100 nodes, all 16 GPUs, n = 1e8. The ring graph: 8 channels,
  // one per 25 GB/s HDR NIC at speedArrayInter's 24 (the NIC is reached
  // over 24 GB/s of PCIe gen4). 30 steps, 2 across nodes:
  //   ring Simple: bus 8 x 24 = 192, x 16/30 = 102.4 GB/s; 8.4 + 28 x 3.4
  //     + 2 x 14 = 131.6 us, x 1.4 (ring plateau) = 184.24 us:
  //     184.24 + 1e8 / 102400 = 1160.8025 us
  //   ring LL128: min(176.64, 8 x 20) x 16/30 = 85.33 GB/s, 75.2 us: 1247 us
  //   tree Simple: 176.64 / 2 x .8 = 70.66 GB/s, 8.4 + 2 (7 x 4 + 14) =
  //     92.4 us: 1507.7 us; tree LL128: 72 GB/s, 48.5 us: 1437.4 us.
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
  EXPECT_NEAR(t[0], 131.6 * 1.4 + 1e8 / 102400, 1e-6);
  for (WorkAttr w : collectives(*module, WorkKind::AllReduce))
    EXPECT_EQ(factOf(w, kAlgorithmAttr), "ring");
}

TEST_F(DistributedPasses, DataParallelBucketsPricedOnTheCommStream) {
  // Gradients of 3e6, 2e6 and 1e6 B with 4 MiB (4194304 B) buckets: the
  // first two close a bucket of 5e6 B, the last a bucket of 1e6 B. Over 8
  // GPUs of dgx-a100 (bus 240 GB/s, 14 steps):
  //   5e6 B: ring LL128, 14 + 14 x 1.9 = 40.6 us at 220.8 x 8/14 = 126.171
  //     GB/s: 40.6 + 39.629 = 80.229 us (Simple 56 + 36.458 = 92.458, LL
  //     15 + 99.772)
  //   1e6 B: ring LL, 15 us at 87.7 x 8/14 = 50.114 GB/s: 15 + 19.954 =
  //     34.954 us (LL128 40.6 + 7.926)
  auto module = parse(R"mlir(
perf.graph @g attributes {target = #perf.gpu<"A100-SXM4-80GB">, phase = "training"} {
  %a = perf.op "b1" {perf.grad_bytes = 3000000} : () -> tensor<4xf32> {
    perf.gemm {m = 8, n = 8, k = 8, pass = #perf.pass<dgrad>}
  }
  %b = perf.op "b2"(%a) {perf.grad_bytes = 2000000} : (tensor<4xf32>) -> tensor<4xf32> {
    perf.gemm {m = 8, n = 8, k = 8, pass = #perf.pass<dgrad>}
  }
  perf.op "b3"(%b) {perf.grad_bytes = 1000000} : (tensor<4xf32>) -> () {
    perf.gemm {m = 8, n = 8, k = 8, pass = #perf.pass<dgrad>}
  }
}
)mlir");
  ASSERT_TRUE(module);
  PassManager pm(&context);
  DataParallelOptions dp;
  dp.devices = 8;
  dp.bucketMb = 4;
  pm.addNestedPass<GraphOp>(createDataParallel(dp));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  std::vector<int64_t> bytes, streams;
  for (WorkAttr w : collectives(*module, WorkKind::AllReduce)) {
    bytes.push_back(w.getCollectiveBytes());
    streams.push_back(w.getStreamId());
    EXPECT_EQ(w.getGroupIds().size(), 8u);
  }
  EXPECT_EQ(bytes, (std::vector<int64_t>{5000000, 1000000}));
  EXPECT_EQ(streams, (std::vector<int64_t>{1, 1}));
  std::vector<double> t = price(*module, "dgx-a100");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 40.6 + 5e6 / (1000 * 220.8 * 8 / 14), 1e-9);
  EXPECT_NEAR(t[1], 15 + 1e6 / (1000 * 87.7 * 8 / 14), 1e-9);
}

TEST_F(DistributedPasses, UnknownProtocolAndUnrunnableAlgorithm) {
  auto module = parse(kAllReduce4);
  ASSERT_TRUE(module);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  // NVLS needs an NVSwitch and SM90: not on DGX A100.
  EXPECT_TRUE(price(*module, "dgx-a100", "nvls").empty());
  EXPECT_NE(diagnostics.find("NCCL runs no all_reduce with algorithm 'nvls'"),
            std::string::npos)
      << diagnostics;
  PassManager pm(&context);
  CommCostOptions options;
  options.protocol = "LL64";
  pm.addNestedPass<GraphOp>(createCommCost(options));
  EXPECT_TRUE(failed(pm.run(*module)));
  EXPECT_NE(diagnostics.find("unknown protocol 'LL64'"), std::string::npos)
      << diagnostics;
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
