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

TEST(CollectiveModel, RingAllReduceInsideANode) {
  SystemSpec s = testSystem();
  // 2(p-1) alpha + 2(p-1)/p n/B = 2*3*2 + 1.5 * 1e8/5e10 s
  //                             = 12 us + 1.5 * 2000 us = 3012 us.
  EXPECT_DOUBLE_EQ(collectiveTimeUs(CollectiveKind::AllReduce, n, {0, 1, 2, 3},
                                    s, CollectiveAlgorithm::Ring),
                   3012);
}

TEST(CollectiveModel, GatherScatterAndAllToAll) {
  SystemSpec s = testSystem();
  // (p-1) alpha + (p-1)/p n/B = 3*2 + 0.75 * 2000 = 1506 us.
  EXPECT_DOUBLE_EQ(
      collectiveTimeUs(CollectiveKind::AllGather, n, {0, 1, 2, 3}, s), 1506);
  EXPECT_DOUBLE_EQ(
      collectiveTimeUs(CollectiveKind::ReduceScatter, n, {0, 1, 2, 3}, s),
      1506);
  // (p-1)(alpha + n/(pB)) = 3 * (2 + 500) = 1506 us.
  EXPECT_DOUBLE_EQ(
      collectiveTimeUs(CollectiveKind::AllToAll, n, {0, 1, 2, 3}, s), 1506);
  // Pipelined broadcast: (p-1) alpha + n/B = 6 + 2000 = 2006 us.
  EXPECT_DOUBLE_EQ(
      collectiveTimeUs(CollectiveKind::Broadcast, n, {0, 1, 2, 3}, s), 2006);
}

TEST(CollectiveModel, SendRecvPicksTheLink) {
  SystemSpec s = testSystem();
  // Same node: alpha + n/B = 2 + 2000 us.
  EXPECT_DOUBLE_EQ(collectiveTimeUs(CollectiveKind::SendRecv, n, {0, 1}, s),
                   2002);
  // Ranks 0 and 4 are on different nodes: 10 + 1e8/5e9 s = 10 + 20000 us.
  EXPECT_DOUBLE_EQ(collectiveTimeUs(CollectiveKind::SendRecv, n, {0, 4}, s),
                   20010);
}

TEST(CollectiveModel, TreeWinsOnlyForSmallMessages) {
  SystemSpec s = testSystem();
  // Tree: 2 ceil(log2 4) alpha + 2 n/B = 8 + 4000 = 4008 us; the ring's 3012
  // is cheaper, so auto keeps the ring.
  EXPECT_DOUBLE_EQ(collectiveTimeUs(CollectiveKind::AllReduce, n, {0, 1, 2, 3},
                                    s, CollectiveAlgorithm::Tree),
                   4008);
  auto big =
      estimateCollective(CollectiveKind::AllReduce, n, packRanks(4, s), s);
  EXPECT_EQ(big.algorithm, CollectiveAlgorithm::Ring);
  EXPECT_DOUBLE_EQ(big.timeUs, 3012);
  // 1 KB: ring 12 + 1.5 * 0.02 = 12.03 us, tree 8 + 2 * 0.02 = 8.04 us.
  auto small =
      estimateCollective(CollectiveKind::AllReduce, 1000, packRanks(4, s), s);
  EXPECT_EQ(small.algorithm, CollectiveAlgorithm::Tree);
  EXPECT_NEAR(small.timeUs, 8.04, 1e-9);
}

TEST(CollectiveModel, HierarchicalAcrossNodes) {
  SystemSpec s = testSystem();
  RankPlacement all = packRanks(8, s);
  EXPECT_EQ(all.numNodes, 2u);
  EXPECT_EQ(all.ranksPerNode, 4u);
  // Intra reduce-scatter and all-gather of n over 4 GPUs: 1506 us each.
  // Inter all-reduce of n/4 = 2.5e7 B across 2 nodes, each GPU getting 1/4 of
  // the 5 GB/s NIC (1.25e9 B/s): ring 2*1*10 + 2*(1/2)*2.5e7/1.25e9 s
  // = 20 + 20000 us (the tree's 20 + 40000 is slower).
  // Total 1506 + 20020 + 1506 = 23032 us.
  EXPECT_DOUBLE_EQ(collectiveTimeUs(CollectiveKind::AllReduce, n, all, s,
                                    CollectiveAlgorithm::Hierarchical),
                   23032);
  // A flat ring is bounded by the NIC share and the network alpha:
  // 2*7*10 + 2*(7/8)*1e8/1.25e9 s = 140 + 140000 us.
  EXPECT_DOUBLE_EQ(collectiveTimeUs(CollectiveKind::AllReduce, n, all, s,
                                    CollectiveAlgorithm::Ring),
                   140140);
  auto best = estimateCollective(CollectiveKind::AllReduce, n, all, s);
  EXPECT_EQ(best.algorithm, CollectiveAlgorithm::Hierarchical);
  EXPECT_DOUBLE_EQ(best.timeUs, 23032);
}

TEST(CollectiveModel, AllToAllAcrossNodes) {
  SystemSpec s = testSystem();
  // 8 ranks: 3/8 of n to local peers over NVLink (3.75e7/5e10 s = 750 us),
  // 4/8 to remote ones over the NIC share (5e7/1.25e9 s = 40000 us), at once;
  // plus 7 network alphas = 70 us. Total 40070 us.
  EXPECT_DOUBLE_EQ(
      collectiveTimeUs(CollectiveKind::AllToAll, n, packRanks(8, s), s), 40070);
}

TEST(CollectiveModel, GpusAcrossNVLinkDomainsUsePCIe) {
  SystemSpec s = testSystem();
  s.intraNodeDomain = 2; // NVLink-bridged pairs
  RankPlacement pair = placeRanks({0, 1}, s);
  EXPECT_FALSE(pair.spansDomains);
  RankPlacement quad = placeRanks({0, 1, 2, 3}, s);
  EXPECT_TRUE(quad.spansDomains);
  // PCIe at 10 GB/s achieved, 4 us: 2*3*4 + 1.5 * 1e8/1e10 s = 24 + 15000.
  EXPECT_DOUBLE_EQ(collectiveTimeUs(CollectiveKind::AllReduce, n, quad, s,
                                    CollectiveAlgorithm::Ring),
                   15024);
  EXPECT_DOUBLE_EQ(collectiveTimeUs(CollectiveKind::SendRecv, n, pair, s),
                   2002);
}

TEST(CollectiveModel, PlacementAndDegenerateGroups) {
  SystemSpec s = testSystem();
  RankPlacement p = placeRanks({0, 1, 4, 4}, s);
  EXPECT_EQ(p.numRanks, 3u);
  EXPECT_EQ(p.numNodes, 2u);
  EXPECT_EQ(p.ranksPerNode, 2u);
  EXPECT_EQ(collectiveTimeUs(CollectiveKind::AllReduce, n, {3}, s), 0);
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

TEST(CollectiveModel, PresetEfficiencyIsThePAIDefault) {
  const SystemSpec *dgx = lookupSystemPreset("dgx-a100");
  ASSERT_NE(dgx, nullptr);
  // 8 GPUs, ring, 1 GB: 2*7*2 us + 2*(7/8) * 1e9 / (0.7 * 300e9) s
  // = 28 us + 1.75 * 4761.905 us = 8361.905 us.
  EXPECT_NEAR(collectiveTimeUs(CollectiveKind::AllReduce, 1e9,
                               packRanks(8, *dgx), *dgx,
                               CollectiveAlgorithm::Ring),
              28 + 1.75 * 1e9 / 210e9 * 1e6, 1e-6);
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
