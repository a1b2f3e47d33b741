#include "perf/Comm/CollectiveModel.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
/// Round numbers so every expectation below can be checked by hand:
/// 2 nodes x 4 GPUs; NVLink 100 GB/s, 2 us; one 10 GB/s NIC per node, 10 us;
/// PCIe 20 GB/s, 4 us; 50% efficiency, so the achieved bandwidths are
/// NVLink 50 GB/s, NIC 5 GB/s, PCIe 10 GB/s.
SystemSpec testSystem() {
  SystemSpec s;
  s.name = "test";
  s.nodes = 2;
  s.gpusPerNode = 4;
  s.intraNode = {LinkKind::Custom, 100e9, 2, std::nullopt};
  s.interNode = {LinkKind::Custom, 10e9, 10, std::nullopt};
  s.nicsPerNode = 1;
  s.hostPcie = {LinkKind::Custom, 20e9, 4, std::nullopt};
  s.efficiency = 0.5;
  return s;
}
constexpr double n = 1e8; // 100 MB
} // namespace

namespace {
/// The dgx-a100 preset with `nodes` nodes.
SystemSpec dgxA100(unsigned nodes = 1) {
  SystemSpec s = *lookupSystemPreset("dgx-a100");
  s.nodes = nodes;
  return s;
}

CollectiveEstimate estimate(CollectiveKind kind, double bytes,
                            const RankPlacement &p, const SystemSpec &s,
                            CollectiveAlgorithm a = CollectiveAlgorithm::Auto) {
  llvm::Expected<CollectiveEstimate> e =
      estimateCollective(kind, bytes, p, s, a);
  if (!e) {
    ADD_FAILURE() << llvm::toString(e.takeError());
    return {};
  }
  return *e;
}

std::string errorOf(llvm::Expected<CollectiveEstimate> e) {
  if (e)
    return "";
  return llvm::toString(e.takeError());
}

constexpr double MiB64 = 64 << 20; // 67108864 B
} // namespace

// NCCL's figures on one DGX A100 (NcclTunerTest works the topology: ring
// graph of 12 channels at 20 GB/s, 240 GB/s of bus bandwidth).
TEST(CollectiveModel, AllReduceIsNcclsChoice) {
  SystemSpec s = dgxA100();
  // 64 MiB over 8 GPUs: ring Simple, 8.4 + 14 x 3.4 = 56 us, 240 x 8/14 =
  // 137.143 GB/s: 56 + 67108864 / 137142.857 = 545.336 us (LL128: 40.6 +
  // 531.88; tree Simple: 64.4 + 67108864 / (110.4 x .9)).
  CollectiveEstimate e =
      estimate(CollectiveKind::AllReduce, MiB64, packRanks(8, s), s);
  EXPECT_EQ(e.algorithm, CollectiveAlgorithm::Ring);
  EXPECT_EQ(e.protocol, CollectiveProtocol::Simple);
  EXPECT_EQ(e.channels, 12u);
  EXPECT_NEAR(e.timeUs, 56 + MiB64 / (1000 * 240.0 * 8 / 14), 1e-9);
  EXPECT_DOUBLE_EQ(e.timeUs, e.ncclTimeUs);
  EXPECT_TRUE(e.calibration.empty());
  // 64 KiB: ring LL, 6.6 + 14 x 0.6 = 15 us at min(87.7, 120) x 8/14.
  CollectiveEstimate small =
      estimate(CollectiveKind::AllReduce, 65536, packRanks(8, s), s);
  EXPECT_EQ(small.protocol, CollectiveProtocol::LL);
  EXPECT_NEAR(small.timeUs, 15 + 65536 / (1000 * 87.7 * 8 / 14), 1e-9);
}

TEST(CollectiveModel, CalibrationPricesNcclsChoice) {
  SystemSpec s = dgxA100();
  CollectiveCalibration c;
  c.latencyScale = 0.5;
  c.latencyOffsetUs = 10;
  c.bandwidthEfficiency = 0.8;
  s.calibration[unsigned(CollectiveKind::AllReduce)][unsigned(Fabric::NVLink)] =
      c;
  // Ring Simple as before: 0.5 x 56 + 10 = 38 us, 0.8 x 137.143 GB/s:
  // 38 + 611.669 = 649.669 us; NCCL alone still 545.336.
  CollectiveEstimate e =
      estimate(CollectiveKind::AllReduce, MiB64, packRanks(8, s), s);
  EXPECT_EQ(e.protocol, CollectiveProtocol::Simple);
  EXPECT_NEAR(e.timeUs, 38 + MiB64 / (1000 * 0.8 * 240.0 * 8 / 14), 1e-9);
  EXPECT_NEAR(e.ncclTimeUs, 56 + MiB64 / (1000 * 240.0 * 8 / 14), 1e-9);
  EXPECT_EQ(e.calibration, "all_reduce/nvlink");
  // all_gather has no calibration of its own and takes all_reduce's: ring
  // Simple, 7 steps: 8.4 + 7 x 3.4 = 32.2 us, 240 x 8/7 = 274.286 GB/s;
  // calibrated 0.5 x 32.2 + 10 = 26.1 us + 67108864 / (0.8 x 274285.7).
  CollectiveEstimate g =
      estimate(CollectiveKind::AllGather, MiB64, packRanks(8, s), s);
  EXPECT_NEAR(g.ncclTimeUs, 32.2 + MiB64 / (1000 * 240.0 * 8 / 7), 1e-9);
  EXPECT_NEAR(g.timeUs, 26.1 + MiB64 / (1000 * 0.8 * 240.0 * 8 / 7), 1e-9);
  EXPECT_EQ(g.calibration, "all_reduce/nvlink");
  // Send/recv has its own (none here): NCCL alone.
  CollectiveEstimate p =
      estimate(CollectiveKind::SendRecv, MiB64, placeRanks({0, 1}, s), s);
  EXPECT_TRUE(p.calibration.empty());
}

TEST(CollectiveModel, BroadcastAndReduceScatter) {
  SystemSpec s = dgxA100();
  // Broadcast: ring only, base + one hop: 8.4 + 3.4 = 11.8 us; 8 steps for
  // 8 ranks, so the bus bandwidth itself: 11.8 + 67108864 / 240000.
  EXPECT_NEAR(
      estimate(CollectiveKind::Broadcast, MiB64, packRanks(8, s), s).timeUs,
      11.8 + MiB64 / 240000, 1e-9);
  // reduce_scatter as all_gather: 32.2 + 67108864 / 274285.7 = 276.868 us.
  EXPECT_NEAR(
      estimate(CollectiveKind::ReduceScatter, MiB64, packRanks(8, s), s).timeUs,
      32.2 + MiB64 / (1000 * 240.0 * 8 / 7), 1e-9);
}

TEST(CollectiveModel, SendRecvPicksTheFabric) {
  SystemSpec s = dgxA100(2);
  // Same node: a one-hop ring step, Simple above 12 x 16384 B: 8.4 + 3.4 =
  // 11.8 us at 12 x 20 = 240 GB/s: 11.8 + 1048576 / 240000 = 16.169 us.
  EXPECT_NEAR(
      estimate(CollectiveKind::SendRecv, 1 << 20, placeRanks({0, 1}, s), s)
          .timeUs,
      11.8 + 1048576 / 240000.0, 1e-9);
  // Ranks 0 and 8 are on different nodes: one channel through one NIC at
  // 24 GB/s; 8.4 + 14 (NET hop, one GPU a node) = 22.4 us + 1048576 / 24000.
  EXPECT_NEAR(
      estimate(CollectiveKind::SendRecv, 1 << 20, placeRanks({0, 8}, s), s)
          .timeUs,
      22.4 + 1048576 / 24000.0, 1e-9);
}

TEST(CollectiveModel, AllToAllEvenAndUneven) {
  SystemSpec s = dgxA100(2);
  // 8 GPUs of one node, 8 MiB each: 7/8 of it, 7340032 B, to the node's
  // others over NVLink: 11.8 + 7340032 / 240000 = 42.383 us.
  EXPECT_NEAR(
      estimate(CollectiveKind::AllToAll, 8 << 20, packRanks(8, s), s).timeUs,
      11.8 + 7340032 / 240000.0, 1e-9);
  // 16 GPUs on 2 nodes, 16 MiB each: 1 MiB a peer, 7 MiB local and 8 MiB
  // remote at once. The 8 GPUs of a node share its 8 NICs, one each:
  // remote 8388608 / 24000 = 349.525 us bounds it; the latency is the
  // larger one, the network's 22.4 us: 371.925 us.
  EXPECT_NEAR(
      estimate(CollectiveKind::AllToAll, 16 << 20, packRanks(16, s), s).timeUs,
      22.4 + 8388608 / 24000.0, 1e-9);
  // Uneven, ranks 0 and 8: 0 sends 1e6 B, 8 sends 3e6 B; rank 8's send
  // (and 0's receive) bounds it: 22.4 + 3e6 / 24000 = 147.4 us.
  llvm::Expected<CollectiveEstimate> uneven =
      estimateAllToAll({0, 8}, {0, 1e6, 3e6, 0}, s);
  ASSERT_TRUE(bool(uneven)) << llvm::toString(uneven.takeError());
  EXPECT_NEAR(uneven->timeUs, 22.4 + 3e6 / 24000, 1e-9);
  // Two GPUs of a node with a single NIC between them share it: half of
  // 24 GB/s each for their remote pieces.
  SystemSpec oneNic = s;
  oneNic.nicsPerNode = 1;
  llvm::Expected<CollectiveEstimate> shared =
      estimateAllToAll({0, 1, 8}, {0, 0, 1e6, 0, 0, 1e6, 0, 0, 0}, oneNic);
  ASSERT_TRUE(bool(shared)) << llvm::toString(shared.takeError());
  EXPECT_NEAR(shared->timeUs, 22.4 + 1e6 / 12000, 1e-9);
  EXPECT_NE(errorOf(estimateAllToAll({0, 8}, {0, 1e6, 3e6}, s))
                .find("needs 4 split sizes, got 3"),
            std::string::npos);
  EXPECT_NE(errorOf(estimateAllToAll({0, 8}, {0, -1, 3e6, 0}, s))
                .find("negative or NaN"),
            std::string::npos);
}

TEST(CollectiveModel, GpusAcrossNVLinkDomainsUsePCIe) {
  // 4 GPUs a node in NVLink-bridged pairs, PCIe gen4 between the pairs.
  SystemSpec s = dgxA100();
  s.gpusPerNode = 4;
  s.intraNodeDomain = 2;
  s.nvSwitch = false;
  RankPlacement quad = packRanks(4, s);
  EXPECT_TRUE(quad.spansDomains);
  EXPECT_EQ(fabricOf(quad, s), Fabric::PCIe);
  // The ring crosses PCIe: 24 GB/s in NCCL's figures, one channel at
  // speedArrayIntra's 20; PCI hops, no LL128. Ring Simple: 8.4 + 6 x 5.7 =
  // 42.6 us, 20 x 4/6 = 13.333 GB/s: 42.6 + 1e8 / 13333.3 = 7542.6 us.
  CollectiveEstimate e = estimate(CollectiveKind::AllReduce, 1e8, quad, s);
  EXPECT_EQ(e.protocol, CollectiveProtocol::Simple);
  EXPECT_NEAR(e.timeUs, 42.6 + 1e8 / (1000 * 20.0 * 4 / 6), 1e-6);
  EXPECT_EQ(fabricOf(packRanks(2, s), s), Fabric::NVLink);
}

TEST(CollectiveModel, BadRequestsAreErrors) {
  SystemSpec s = dgxA100();
  // 9 GPUs on a one-node system of 8.
  EXPECT_NE(errorOf(estimateCollective(CollectiveKind::AllReduce, 1e6,
                                       packRanks(9, s), s))
                .find("does not fit its 1 x 8 GPUs"),
            std::string::npos);
  // NVLS needs SM90 and an NVSwitch; trees do not gather.
  EXPECT_NE(
      errorOf(estimateCollective(CollectiveKind::AllReduce, 1e6,
                                 packRanks(8, s), s, CollectiveAlgorithm::NVLS))
          .find("NCCL runs no all_reduce with algorithm 'nvls'"),
      std::string::npos);
  EXPECT_NE(
      errorOf(estimateCollective(CollectiveKind::AllGather, 1e6,
                                 packRanks(8, s), s, CollectiveAlgorithm::Tree))
          .find("algorithm 'tree'"),
      std::string::npos);
  EXPECT_NE(
      errorOf(estimateCollective(CollectiveKind::SendRecv, 1e6, packRanks(2, s),
                                 s, CollectiveAlgorithm::Tree))
          .find("point-to-point"),
      std::string::npos);
  EXPECT_NE(errorOf(estimateCollective(CollectiveKind::AllReduce, -1,
                                       packRanks(8, s), s))
                .find("negative or NaN bytes"),
            std::string::npos);
}

TEST(CollectiveModel, PlacementAndDegenerateGroups) {
  SystemSpec s = testSystem();
  RankPlacement p = placeRanks({0, 1, 4, 4}, s);
  EXPECT_EQ(p.numRanks, 3u);
  EXPECT_EQ(p.numNodes, 2u);
  EXPECT_EQ(p.ranksPerNode, 2u);
  auto one =
      estimateCollective(CollectiveKind::AllReduce, n, placeRanks({3}, s), s);
  ASSERT_TRUE(bool(one));
  EXPECT_EQ(one->timeUs, 0);
  // A dialect `group` (int64 ranks) places the same way.
  std::vector<int64_t> group = {0, 1, 4};
  RankPlacement q = placeGroup(group, s);
  EXPECT_EQ(q.numNodes, 2u);
  EXPECT_EQ(q.ranksPerNode, 2u);
  EXPECT_EQ(*parseCollectiveKind("all-gather"), CollectiveKind::AllGather);
  EXPECT_EQ(*parseCollectiveKind("AllReduce"), CollectiveKind::AllReduce);
  EXPECT_EQ(*parseCollectiveKind("recv"), CollectiveKind::SendRecv);
  EXPECT_FALSE(parseCollectiveKind("gossip"));
}

TEST(CollectiveModel, ParameterServerTransferCrossesNetworkThenPCIe) {
  SystemSpec s = testSystem();
  // One worker a server, as many servers as workers: the NIC's 5 GB/s, then
  // PCIe 10 GB/s: 10 + 4 + 1e8/5e9 + 1e8/1e10 s = 14 + 20000 + 10000 us.
  EXPECT_DOUBLE_EQ(parameterServerTransferUs(n, s, 4, 4, 1), 30014);
  // Two workers share a server's NIC: 2.5 GB/s, 40000 us on the network.
  EXPECT_DOUBLE_EQ(parameterServerTransferUs(n, s, 4, 4, 2), 50014);
  // One server for 4 workers: the PS tier gives each 5/4 GB/s = 1.25 GB/s.
  EXPECT_DOUBLE_EQ(parameterServerTransferUs(n, s, 4, 1, 1), 90014);
}

TEST(CollectiveModel, HostCopySharesThePCIeLink) {
  SystemSpec s = testSystem();
  // 4 + 1e8 / 1e10 s = 10004 us alone; 4 GPUs copying at once: 40004 us.
  EXPECT_DOUBLE_EQ(hostCopyUs(n, s, 1), 10004);
  EXPECT_DOUBLE_EQ(hostCopyUs(n, s, 4), 40004);
  EXPECT_DOUBLE_EQ(hostCopyUs(n, s, 0), 10004);
}
