//===- NcclTunerTest.cpp - NCCL's tuning tables, worked by hand -----------===//
//
// One case per (algorithm, protocol) NCCL runs, on small topologies with
// round figures; the arithmetic follows tuning.cc and is in the comments
// (latencies in us, bandwidths in GB/s, times in us = latency + bytes /
// (1000 x bandwidth)).
//
//===----------------------------------------------------------------------===//

#include "perf/Comm/NcclTuner.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
constexpr unsigned kTree = unsigned(CollectiveAlgorithm::Tree);
constexpr unsigned kRing = unsigned(CollectiveAlgorithm::Ring);

/// 4 A100s on one NVLink node; ring and tree graphs of 2 channels at 20 GB/s.
NcclTopology fourAmpere() {
  NcclTopology t;
  t.nRanks = 4;
  t.nNodes = 1;
  t.compCap = 80;
  t.intraHw = NcclHw::NVLink;
  t.graphs[kRing] = {2, 20, 20};
  t.graphs[kTree] = {2, 20, 20};
  return t;
}

void expectCost(const NcclTuner &tuner, CollectiveKind kind,
                CollectiveAlgorithm a, CollectiveProtocol p, double latency,
                double bandwidth) {
  std::optional<NcclCost> c = tuner.cost(kind, a, p);
  ASSERT_TRUE(c) << collectiveAlgorithmName(a).str() << "/"
                 << collectiveProtocolName(p).str();
  EXPECT_NEAR(c->latencyUs, latency, 1e-9)
      << collectiveAlgorithmName(a).str() << "/"
      << collectiveProtocolName(p).str();
  EXPECT_NEAR(c->bandwidthGBs, bandwidth, 1e-9)
      << collectiveAlgorithmName(a).str() << "/"
      << collectiveProtocolName(p).str();
}
} // namespace

TEST(NcclTuner, RingAllReduceEachProtocol) {
  NcclTuner tuner(fourAmpere());
  // all_reduce over 4 ranks: 2 (4-1) = 6 steps, bus bandwidth 2 x 20 = 40,
  // algorithm bandwidth = bus x 4/6. Ampere on one node: llMaxBw 87.7.
  // LL:     min(87.7, 40 x .5) = 20 -> 13.333; 6.6 + 6 x 0.6 = 10.2 us.
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::Ring,
             CollectiveProtocol::LL, 10.2, 20.0 * 4 / 6);
  // LL128:  min(40 x .92, 2 x 20 per channel) = 36.8 -> 24.533;
  //         14 + 6 x 1.9 = 25.4 us.
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::Ring,
             CollectiveProtocol::LL128, 25.4, 36.8 * 4 / 6);
  // Simple: 40 -> 26.667; 8.4 + 6 x 3.4 = 28.8 us.
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::Ring,
             CollectiveProtocol::Simple, 28.8, 40.0 * 4 / 6);
}

TEST(NcclTuner, TreeAllReduceEachProtocol) {
  NcclTuner tuner(fourAmpere());
  // Tree all_reduce first: min(40 x .92, 2 x 24 perChMaxTreeBw) = 36.8; a
  // tree's algorithm bandwidth is half its bus bandwidth. Latency: base +
  // 2 ((4 - 1) x intra hop + log2(1 node) x net hop).
  // LL:     min(36.8 / 3.8, 87.7) = 9.6842 -> 4.8421; 6.8 + 2 x 3 x 0.6
  //         = 10.4 us.
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::Tree,
             CollectiveProtocol::LL, 10.4, 36.8 / 3.8 / 2);
  // LL128:  min(36.8 x 7/9 (one node), 2 x 20) = 28.622 -> 14.311;
  //         14 + 2 x 3 x 1.25 = 21.5 us.
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::Tree,
             CollectiveProtocol::LL128, 21.5, 36.8 * 7 / 9 / 2);
  // Simple: 36.8 -> 18.4; 8.4 + 2 x 3 x 4.0 = 32.4 us.
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::Tree,
             CollectiveProtocol::Simple, 32.4, 18.4);
  // Trees only reduce: no tree all_gather, broadcast or PAT all_reduce.
  EXPECT_FALSE(tuner.cost(CollectiveKind::AllGather, CollectiveAlgorithm::Tree,
                          CollectiveProtocol::Simple));
  EXPECT_FALSE(tuner.cost(CollectiveKind::Broadcast, CollectiveAlgorithm::Tree,
                          CollectiveProtocol::Simple));
  EXPECT_FALSE(tuner.cost(CollectiveKind::AllReduce, CollectiveAlgorithm::PAT,
                          CollectiveProtocol::Simple));
}

TEST(NcclTuner, NvlsOnOneHopperNode) {
  // 8 H100s behind an NVSwitch; the NVLS graph has 8 channels at 40 GB/s.
  NcclTopology t;
  t.nRanks = 8;
  t.nNodes = 1;
  t.compCap = 90;
  t.nvls = t.nvSwitch = true;
  t.graphs[kRing] = t.graphs[kTree] = {12, 30, 30};
  t.graphs[unsigned(CollectiveAlgorithm::NVLS)] = {8, 40, 40};
  NcclTuner tuner(t);
  // intra = 40 x 0.85 (Hopper) x 7/8 channels x 2 (all_reduce) = 59.5,
  // inter = 40: 40 per channel, bus 8 x 40 = 320, x 8/14 = 182.857 GB/s.
  // The latency is the NVLink hop alone: 25 us.
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::NVLS,
             CollectiveProtocol::Simple, 25, 320.0 * 8 / 14);
  // NVLS runs Simple only; NVLS tree never on one node.
  EXPECT_FALSE(tuner.cost(CollectiveKind::AllReduce, CollectiveAlgorithm::NVLS,
                          CollectiveProtocol::LL));
  EXPECT_FALSE(tuner.cost(CollectiveKind::AllReduce,
                          CollectiveAlgorithm::NVLSTree,
                          CollectiveProtocol::Simple));
  // all_gather: intra = 40 x 0.85 x 7/8 x (8-1)/8 = 26.03 < 40, bus
  // 8 x 26.03125 = 208.25; gathers keep NVLS's bus figure. Latency 25 us.
  expectCost(tuner, CollectiveKind::AllGather, CollectiveAlgorithm::NVLS,
             CollectiveProtocol::Simple, 25, 8 * 40 * 0.85 * 7 / 8 * 7 / 8);
}

TEST(NcclTuner, NvlsTreeAcrossTwoHopperNodes) {
  // 2 nodes of 8 H100s; NVLS graph 8 channels, 40 GB/s inside, 20 across.
  NcclTopology t;
  t.nRanks = 16;
  t.nNodes = 2;
  t.compCap = 90;
  t.nvls = t.nvSwitch = true;
  t.graphs[kRing] = t.graphs[kTree] = {8, 24, 24};
  t.graphs[unsigned(CollectiveAlgorithm::NVLSTree)] = {8, 40, 20};
  NcclTuner tuner(t);
  // intra 59.5 (as on one node), inter 20 x 2 (two nodes) = 40, Hopper's
  // perChMaxNVLSTreeBw for two nodes 57.7: 40 per channel, bus 320, x 16/30
  // = 170.667. Latency: 25 (NVLink) + 2 x log2(2) x 20.9 (NET) = 66.8 us.
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::NVLSTree,
             CollectiveProtocol::Simple, 66.8, 320.0 * 16 / 30);
  // Multi-node NVLS without CollNet is off.
  EXPECT_FALSE(tuner.cost(CollectiveKind::AllReduce, CollectiveAlgorithm::NVLS,
                          CollectiveProtocol::Simple));
}

TEST(NcclTuner, CollNetDirectAndChain) {
  // 2 nodes of 8 A100s behind NVSwitches, SHARP on; CollNet graphs of 4
  // channels, 20 GB/s inside, 10 across.
  NcclTopology t;
  t.nRanks = 16;
  t.nNodes = 2;
  t.compCap = 80;
  t.collNet = t.nvSwitch = true;
  t.graphs[kRing] = t.graphs[kTree] = {8, 24, 24};
  t.graphs[unsigned(CollectiveAlgorithm::CollNetDirect)] = {4, 20, 10};
  t.graphs[unsigned(CollectiveAlgorithm::CollNetChain)] = {4, 20, 10};
  NcclTuner tuner(t);
  // Direct: bus 4 x 20 (CollNet uses the intra figure) = 80; GPU/NIC
  // factor 8/4 = 2, less (2-1)/2 = 1.5: 53.333; halved: 26.667. Latency
  // 2 (min(1, 7) x 3.7 + 7 x 0.4) + 31 (NET) = 44 us.
  expectCost(tuner, CollectiveKind::AllReduce,
             CollectiveAlgorithm::CollNetDirect, CollectiveProtocol::Simple, 44,
             80.0 / 1.5 / 2);
  // Chain: bus 80, halved: 40. Latency 2 x 7 x 2.8 + 30 = 69.2 us.
  expectCost(tuner, CollectiveKind::AllReduce,
             CollectiveAlgorithm::CollNetChain, CollectiveProtocol::Simple,
             69.2, 40);
  EXPECT_FALSE(tuner.cost(CollectiveKind::AllReduce,
                          CollectiveAlgorithm::CollNetChain,
                          CollectiveProtocol::LL));
  // Without SHARP neither runs.
  t.collNet = false;
  EXPECT_FALSE(NcclTuner(t).cost(CollectiveKind::AllReduce,
                                 CollectiveAlgorithm::CollNetDirect,
                                 CollectiveProtocol::Simple));
}

TEST(NcclTuner, PatAllGatherOneGpuPerNode) {
  // 4 nodes of one A100 each; PAT graph 2 channels at 10 GB/s.
  NcclTopology t;
  t.nRanks = 4;
  t.nNodes = 4;
  t.compCap = 80;
  t.graphs[kRing] = t.graphs[kTree] = {2, 10, 10};
  t.graphs[unsigned(CollectiveAlgorithm::PAT)] = {2, 10, 10};
  NcclTuner tuner(t);
  // More than two nodes: the inter figure, bus 2 x 10 = 20, x .75 = 15,
  // kept as is for gathers. Latency 8 + log2(4) x 14 / 3.5 + 4 x 2.8
  // = 8 + 8 + 11.2 = 27.2 us (one GPU per node: the tree's NET hop, 14).
  expectCost(tuner, CollectiveKind::AllGather, CollectiveAlgorithm::PAT,
             CollectiveProtocol::Simple, 27.2, 15);
  expectCost(tuner, CollectiveKind::ReduceScatter, CollectiveAlgorithm::PAT,
             CollectiveProtocol::Simple, 27.2, 15);
  // Two GPUs on a node: no PAT.
  t.nNodes = 2;
  EXPECT_FALSE(NcclTuner(t).cost(CollectiveKind::AllGather,
                                 CollectiveAlgorithm::PAT,
                                 CollectiveProtocol::Simple));
}

TEST(NcclTuner, ChoiceFollowsSizeWithTreeCorrection) {
  NcclTuner tuner(fourAmpere());
  // 1 KiB: ring LL 10.2 + 1024 / 13333.3 = 10.2768 us. Tree LL: log2(1024
  // / 64) = 4, correction .9: 10.4 + 1024 / (4842.1 x .9) = 10.635 us.
  std::optional<NcclChoice> small =
      tuner.choose(CollectiveKind::AllReduce, 1024);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->algorithm, CollectiveAlgorithm::Ring);
  EXPECT_EQ(small->protocol, CollectiveProtocol::LL);
  EXPECT_NEAR(small->timeUs, 10.2 + 1024 / (1000 * 40.0 / 3), 1e-9);
  std::optional<NcclCost> tree =
      tuner.sizedCost(CollectiveKind::AllReduce, CollectiveAlgorithm::Tree,
                      CollectiveProtocol::LL, 1024);
  ASSERT_TRUE(tree);
  EXPECT_NEAR(tree->bandwidthGBs, 36.8 / 3.8 / 2 * 0.9, 1e-9);
  // 4 MiB: ring Simple 28.8 + 4194304 / 26666.7 = 186.09 us beats LL128
  // (25.4 + 170.96) and LL (10.2 + 314.57).
  std::optional<NcclChoice> big =
      tuner.choose(CollectiveKind::AllReduce, 4 << 20);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->protocol, CollectiveProtocol::Simple);
  EXPECT_NEAR(big->timeUs, 28.8 + 4194304 / (1000 * 80.0 / 3), 1e-9);
  // topoGetAlgoInfo: 4 MiB keeps both channels (2 x 512 threads x 64 B is
  // far less); 1 KiB drops to one (LL: 2 x 512 threads x 8 B x 4 ranks).
  EXPECT_EQ(big->channels, 2u);
  EXPECT_EQ(small->channels, 1u);
  // Forcing the protocol, as NCCL_PROTO does.
  std::optional<NcclChoice> ll128 =
      tuner.choose(CollectiveKind::AllReduce, 4 << 20,
                   CollectiveAlgorithm::Auto, CollectiveProtocol::LL128);
  ASSERT_TRUE(ll128);
  EXPECT_NEAR(ll128->timeUs, 25.4 + 4194304 / (1000 * 36.8 * 4 / 6), 1e-9);
}

TEST(NcclTuner, RingPlateauAcrossNodes) {
  // 2 nodes x 8 A100s, ring graph 8 channels at 24 GB/s. Ring Simple
  // all_reduce: 30 steps, 2 of them across nodes; the intra hop is
  // max(3.4, 3 x 1 us network overhead) = 3.4; the net hop 14 (8 GPUs a
  // node). 8.4 + 28 x 3.4 + 2 x 14 = 131.6 us, x 1.4 (Ampere's ring
  // plateau, 1e8 / (8 x 16) >= 64 bytes) = 184.24 us; bandwidth 8 x 24 x
  // 16/30 = 102.4 GB/s.
  NcclTopology t;
  t.nRanks = 16;
  t.nNodes = 2;
  t.compCap = 80;
  t.graphs[kRing] = t.graphs[kTree] = {8, 24, 24};
  NcclTuner tuner(t);
  expectCost(tuner, CollectiveKind::AllReduce, CollectiveAlgorithm::Ring,
             CollectiveProtocol::Simple, 131.6, 102.4);
  std::optional<NcclCost> sized =
      tuner.sizedCost(CollectiveKind::AllReduce, CollectiveAlgorithm::Ring,
                      CollectiveProtocol::Simple, 1e8);
  ASSERT_TRUE(sized);
  EXPECT_NEAR(sized->latencyUs, 131.6 * 1.4, 1e-9);
}

TEST(NcclTuner, BroadcastIsOneRingHop) {
  NcclTuner tuner(fourAmpere());
  // Ring graphs with the same channels on every rank: base + one hop.
  // Simple: 8.4 + 3.4 = 11.8 us; 4 steps for 4 ranks: bandwidth x 4/4 = 40.
  expectCost(tuner, CollectiveKind::Broadcast, CollectiveAlgorithm::Ring,
             CollectiveProtocol::Simple, 11.8, 40);
}

TEST(NcclTuner, PointToPoint) {
  NcclTuner tuner(fourAmpere());
  // Up to 2 channels x 16384 B LL: 6.6 + 0.6 = 7.2 us, min(87.7, 40 x .5)
  // = 20 GB/s; above, Simple: 8.4 + 3.4 = 11.8 us at 2 x 20 = 40 GB/s.
  NcclChoice ll = tuner.p2p(32768);
  EXPECT_EQ(ll.protocol, CollectiveProtocol::LL);
  EXPECT_NEAR(ll.timeUs, 7.2 + 32768 / 20000.0, 1e-9);
  NcclChoice simple = tuner.p2p(32769);
  EXPECT_EQ(simple.protocol, CollectiveProtocol::Simple);
  EXPECT_NEAR(simple.timeUs, 11.8 + 32769 / 40000.0, 1e-9);
}

TEST(NcclTuner, TopologyOfPresets) {
  // DGX A100: NVLink3 300 GB/s is 240 GB/s in NCCL's figures (20 of every
  // 25 GB/s link): 6 channels at speedArrayIntra's 40, doubled to 12 x 20.
  const SystemSpec *a100 = lookupSystemPreset("dgx-a100");
  ASSERT_NE(a100, nullptr);
  NcclTopology t = describeNcclTopology(packRanks(8, *a100), *a100);
  EXPECT_EQ(t.compCap, 80u);
  EXPECT_EQ(t.graphs[kRing].channels, 12u);
  EXPECT_DOUBLE_EQ(t.graphs[kRing].bwIntra, 20);
  EXPECT_FALSE(t.nvls);
  EXPECT_TRUE(t.ll128);
  // DGX H100: 450 x 20.6 / 25 = 370.8 GB/s: 6 channels at the SM90 array's
  // 60, doubled to 12 x 30; NVLS: 8 heads at the fastest speed under
  // 370.8 / 8 = 46.35, 40.
  const SystemSpec *h100 = lookupSystemPreset("dgx-h100");
  ASSERT_NE(h100, nullptr);
  NcclTopology h = describeNcclTopology(packRanks(8, *h100), *h100);
  EXPECT_EQ(h.compCap, 90u);
  EXPECT_EQ(h.graphs[kRing].channels, 12u);
  EXPECT_DOUBLE_EQ(h.graphs[kRing].bwIntra, 30);
  EXPECT_TRUE(h.nvls);
  EXPECT_EQ(h.graphs[unsigned(CollectiveAlgorithm::NVLS)].channels, 8u);
  EXPECT_DOUBLE_EQ(h.graphs[unsigned(CollectiveAlgorithm::NVLS)].bwIntra, 40);
  // Two DGX A100 nodes: a channel leaves through one 25 GB/s HDR NIC reached
  // over 24 GB/s of PCIe gen4 (31.5 x 12 / 15.75): speedArrayInter's 24, one
  // channel per NIC, 8 channels, not doubled (24 < 25).
  SystemSpec two = *a100;
  two.nodes = 2;
  NcclTopology m = describeNcclTopology(packRanks(16, two), two);
  EXPECT_EQ(m.nNodes, 2u);
  EXPECT_EQ(m.graphs[kRing].channels, 8u);
  EXPECT_DOUBLE_EQ(m.graphs[kRing].bwInter, 24);
  EXPECT_TRUE(m.ll128);
}

TEST(NcclTuner, Names) {
  EXPECT_EQ(parseCollectiveAlgorithm("NVLSTree"),
            CollectiveAlgorithm::NVLSTree);
  EXPECT_EQ(parseCollectiveAlgorithm("collnet_direct"),
            CollectiveAlgorithm::CollNetDirect);
  EXPECT_EQ(parseCollectiveAlgorithm("Ring"), CollectiveAlgorithm::Ring);
  EXPECT_FALSE(parseCollectiveAlgorithm("hierarchical"));
  EXPECT_FALSE(parseCollectiveAlgorithm("butterfly"));
  EXPECT_EQ(parseCollectiveProtocol("ll128"), CollectiveProtocol::LL128);
  EXPECT_EQ(parseCollectiveProtocol("Simple"), CollectiveProtocol::Simple);
  EXPECT_FALSE(parseCollectiveProtocol("LL64"));
  EXPECT_EQ(collectiveAlgorithmName(CollectiveAlgorithm::NVLSTree),
            "nvls_tree");
}
