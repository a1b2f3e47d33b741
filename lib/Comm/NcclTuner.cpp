//===- NcclTuner.cpp - NCCL's collective cost model and tuner -------------===//
//
// Every constant below is NCCL's, from NVIDIA/nccl (Apache-2.0), NCCL 2.30
// at commit 5067397c (2026-06-11): src/graph/tuning.cc's
// ncclTunerConstantsDefaults and the code of ncclTopoTuneModel /
// ncclTopoGetAlgoTime; src/enqueue.cc's topoGetAlgoInfo; src/graph/search.cc's
// speed arrays; src/graph/topo.h's link figures; src/include/device.h and
// comm.h's channel and thread limits. Each table cites its source; the code
// is written from NCCL's formulation, not copied.
//
//===----------------------------------------------------------------------===//

#include "perf/Comm/NcclTuner.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include <algorithm>
#include <cmath>
#include <limits>

using namespace perf;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

llvm::StringRef perf::collectiveAlgorithmName(CollectiveAlgorithm algorithm) {
  switch (algorithm) {
  case CollectiveAlgorithm::Tree:
    return "tree";
  case CollectiveAlgorithm::Ring:
    return "ring";
  case CollectiveAlgorithm::CollNetDirect:
    return "collnet_direct";
  case CollectiveAlgorithm::CollNetChain:
    return "collnet_chain";
  case CollectiveAlgorithm::NVLS:
    return "nvls";
  case CollectiveAlgorithm::NVLSTree:
    return "nvls_tree";
  case CollectiveAlgorithm::PAT:
    return "pat";
  case CollectiveAlgorithm::Auto:
    return "auto";
  }
  return "auto";
}

/// Lower case without '-' and '_', so "NVLSTree", "nvls_tree" and
/// "nvls-tree" read the same.
static std::string foldName(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    if (c != '-' && c != '_')
      out.push_back(llvm::toLower(c));
  return out;
}

std::optional<CollectiveAlgorithm>
perf::parseCollectiveAlgorithm(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CollectiveAlgorithm>>(foldName(name))
      .Case("tree", CollectiveAlgorithm::Tree)
      .Case("ring", CollectiveAlgorithm::Ring)
      .Case("collnetdirect", CollectiveAlgorithm::CollNetDirect)
      .Case("collnetchain", CollectiveAlgorithm::CollNetChain)
      .Case("nvls", CollectiveAlgorithm::NVLS)
      .Case("nvlstree", CollectiveAlgorithm::NVLSTree)
      .Case("pat", CollectiveAlgorithm::PAT)
      .Case("auto", CollectiveAlgorithm::Auto)
      .Default(std::nullopt);
}

llvm::StringRef perf::collectiveProtocolName(CollectiveProtocol protocol) {
  switch (protocol) {
  case CollectiveProtocol::LL:
    return "LL";
  case CollectiveProtocol::LL128:
    return "LL128";
  case CollectiveProtocol::Simple:
    return "Simple";
  case CollectiveProtocol::Auto:
    return "auto";
  }
  return "auto";
}

std::optional<CollectiveProtocol>
perf::parseCollectiveProtocol(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<CollectiveProtocol>>(foldName(name))
      .Case("ll", CollectiveProtocol::LL)
      .Case("ll128", CollectiveProtocol::LL128)
      .Case("simple", CollectiveProtocol::Simple)
      .Case("auto", CollectiveProtocol::Auto)
      .Default(std::nullopt);
}

NcclArch NcclTopology::arch() const {
  // tuning.cc, ncclTopoTuneModel: compCapIndex.
  if (compCap >= 100)
    return NcclArch::Blackwell;
  if (compCap >= 90)
    return NcclArch::Hopper;
  if (compCap >= 80)
    return NcclArch::Ampere;
  return NcclArch::Volta;
}

//===----------------------------------------------------------------------===//
// NCCL's constants
//===----------------------------------------------------------------------===//

namespace {
constexpr unsigned kTree = unsigned(CollectiveAlgorithm::Tree);
constexpr unsigned kRing = unsigned(CollectiveAlgorithm::Ring);
constexpr unsigned kCollNetDirect =
    unsigned(CollectiveAlgorithm::CollNetDirect);
constexpr unsigned kCollNetChain = unsigned(CollectiveAlgorithm::CollNetChain);
constexpr unsigned kNvls = unsigned(CollectiveAlgorithm::NVLS);
constexpr unsigned kNvlsTree = unsigned(CollectiveAlgorithm::NVLSTree);
constexpr unsigned kPat = unsigned(CollectiveAlgorithm::PAT);
constexpr unsigned kLL = unsigned(CollectiveProtocol::LL);
constexpr unsigned kLL128 = unsigned(CollectiveProtocol::LL128);
constexpr unsigned kSimple = unsigned(CollectiveProtocol::Simple);

// NCCL's function order (ncclFunc_t): the tuned ones.
enum NcclFunc { Broadcast, Reduce, AllGather, ReduceScatter, AllReduce };
constexpr unsigned kNumFuncs = 5;

// tuning.cc, ncclTunerConstantsDefaults.baseLatencies [algorithm][protocol]
// (us; LL, LL128, Simple).
constexpr double kBaseLat[kNumNcclAlgorithms][kNumNcclProtocols] = {
    {6.8, 14.0, 8.4}, // Tree
    {6.6, 14.0, 8.4}, // Ring
    {0, 0, 0},        // CollNet direct
    {0, 0, 0},        // CollNet chain
    {0, 0, 0},        // NVLS
    {0, 0, 0},        // NVLS tree
    {8.0, 8.0, 8.0},  // PAT
};

// tuning.cc, ncclTunerConstantsDefaults.hwLatencies [hw][algorithm]
// [protocol] (us per step; hw NVLINK, PCI, NET).
constexpr double kHwLat[3][kNumNcclAlgorithms][kNumNcclProtocols] = {
    {// NVLink
     {0.6, 1.25, 4.0},
     {0.6, 1.9, 3.4},
     {0, 0, 3.7},
     {0, 0, 2.8},
     {0, 0, 25},
     {0, 0, 25},
     {0, 0, 4.0}},
    {// PCI
     {1.0, 1.9, 4.0},
     {1.0, 2.5, 5.7},
     {0, 0, 3.7},
     {0, 0, 2.8},
     {0, 0, 0},
     {0, 0, 0},
     {0, 0, 4.0}},
    {// NET
     {5.0, 8.5, 14},
     {2.7, 4.0, 14.0},
     {0, 0, 31},
     {0, 0, 30},
     {0, 0, 18},
     {0, 0, 20.9},
     {0, 0, 14}},
};

// tuning.cc, ncclTunerConstantsDefaults.llMaxBws [index1][index2] (GB/s):
// index1 the GPU generation on one node, else the CPU (0 Intel, 1 AMD);
// index2 one node, two nodes, more.
constexpr double kLLMaxBw[4][3] = {
    {39.0, 39.0, 20.4},
    {87.7, 22.5, 19.0},
    {141.0, 45.0, 35.0},
    {2 * 141.0, 2 * 45.0, 2 * 35.0},
};
// ... perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws and
// perChMaxNVLSTreeBws [generation][index2] (GB/s per channel).
constexpr double kPerChMaxRingLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40, 40, 40}};
constexpr double kPerChMaxTreeLL128Bw[4][3] = {{20.0, 20.0, 20.0},
                                               {20.0, 20.0, 20.0},
                                               {36.7, 36.7, 29.0},
                                               {55.6, 31.67, 20.0}};
constexpr double kPerChMaxTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70, 42.8, 24}};
constexpr double kPerChMaxNVLSTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0, 96, 80}};
// tuning.cc, nvlsEfficiency [generation].
constexpr double kNvlsEfficiency[4] = {0.0, 0.0, 0.85, 0.74};

// tuning.cc, treeCorrectionFactor [protocol][log2(bytes / 64)]: "Trees are
// not perfectly sticking to the model for medium sizes".
constexpr double kTreeCorrection[kNumNcclProtocols][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

// device.h: MAXCHANNELS 64; init.cc gives the ring graph MAXCHANNELS / 2.
constexpr unsigned kMaxGraphChannels = 32;
// device.h: NCCL_MAX_NVLS_ARITY.
constexpr unsigned kMaxNvlsArity = 32;
// device.h: NCCL_MAX_NTHREADS, NCCL_SIMPLE_MAX_NTHREADS,
// NCCL_LL_MAX_NTHREADS, NCCL_LL128_MAX_NTHREADS; topo.h: PCI_BW.
constexpr unsigned kMaxThreads = 640, kSimpleMaxThreads = 512,
                   kLLMaxThreads = 512, kLL128MaxThreads = 640;
constexpr double kPciBw = 12.0;
// comm.h: NCCL_LL_THREAD_THRESHOLD, NCCL_LL128_THREAD_THRESHOLD,
// NCCL_SIMPLE_THREAD_THRESHOLD (bytes per thread before more channels).
constexpr double kLLThreadThreshold = 8, kLL128ThreadThreshold = 8,
                 kSimpleThreadThreshold = 64;
// enqueue.cc: NCCL_P2P_LL_THRESHOLD default (bytes per channel).
constexpr double kP2pLLThreshold = 16384;

// search.cc: the per-channel speeds (GB/s) the search tries, fastest first.
constexpr double kSpeedIntra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                  9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
constexpr double kSpeedInter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0,
                                  12.0, 10.0, 9.0,  7.0,  6.0,  5.0,  4.0,
                                  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSm90SpeedIntra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                      15.0, 12.0, 11.0, 6.0,  3.0};
constexpr double kSm90SpeedInter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0,
                                      22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
                                      3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSm100SpeedIntra[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                       40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr double kSm100SpeedInter[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                       30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                       6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
} // namespace

/// NCCL's integer log2 (floor; 0 for 0 and 1).
static unsigned log2i(double x) {
  unsigned n = 0;
  while (x >= 2) {
    x /= 2;
    ++n;
  }
  return n;
}

static int ncclFunc(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::Broadcast:
    return Broadcast;
  case CollectiveKind::AllGather:
    return AllGather;
  case CollectiveKind::ReduceScatter:
    return ReduceScatter;
  case CollectiveKind::AllReduce:
    return AllReduce;
  case CollectiveKind::AllToAll:
  case CollectiveKind::SendRecv:
    return -1;
  }
  return -1;
}

//===----------------------------------------------------------------------===//
// Topology
//===----------------------------------------------------------------------===//

static bool isNvlink(LinkKind kind) {
  return kind == LinkKind::NVLink2 || kind == LinkKind::NVLink3 ||
         kind == LinkKind::NVLink4 || kind == LinkKind::Custom;
}

static bool isPcie(LinkKind kind) {
  return kind == LinkKind::PCIe3 || kind == LinkKind::PCIe4 ||
         kind == LinkKind::PCIe5;
}

/// A GPU link's bandwidth per direction as NCCL's topology rates it (GB/s).
static double ncclLinkBw(const LinkSpec &link, unsigned compCap) {
  double nominal = link.bandwidth / 1e9;
  if (isPcie(link.kind))
    // topo.cc: width x rate / 80, 12 GB/s for gen3 x16 (PCI_BW), against
    // 15.75 GB/s after 128b/130b encoding; the same ratio for gen4/5.
    return nominal * 12.0 / 15.75;
  if (!isNvlink(link.kind))
    return nominal;
  // topo.h: SM60/70/80/86/90/100_NVLINK_BW per link, against the links'
  // 20/25/25/14.0625/25/50 GB/s per direction.
  if (compCap >= 100)
    return nominal * 40.1 / 50.0;
  if (compCap >= 90)
    return nominal * 20.6 / 25.0;
  if (compCap == 86 || compCap == 89)
    return nominal * 12.0 / 14.0625;
  if (compCap >= 70)
    return nominal * 20.0 / 25.0;
  return nominal * 18.0 / 20.0;
}

/// The fastest speed of `speeds` no faster than `limit` (the slowest when
/// none is), as ncclTopoCompute starts its search.
static double firstSpeed(llvm::ArrayRef<double> speeds, double limit) {
  for (double s : speeds)
    if (s <= limit)
      return s;
  return speeds.back();
}

/// ncclTopoDupChannels: fast channels are doubled at half the speed.
static void dupChannels(NcclGraph &g, unsigned compCap) {
  if (g.channels == 0 || g.bwIntra < 25.0)
    return;
  if (compCap > 80 && g.bwIntra < 50.0 && g.channels > 4)
    return;
  unsigned dup = std::min(g.channels * 2, kMaxGraphChannels);
  double div = double((dup + g.channels - 1) / g.channels);
  g.bwIntra /= div;
  g.bwInter /= div;
  g.channels = dup;
}

NcclTopology perf::describeNcclTopology(const RankPlacement &p,
                                        const SystemSpec &s) {
  NcclTopology t;
  t.nRanks = p.numRanks;
  t.nNodes = std::max(1u, p.numNodes);
  t.compCap = s.computeCapability();
  t.collNet = s.collNet;
  t.nvSwitch = s.nvSwitch;
  unsigned cc = t.compCap;
  bool multiNode = t.nNodes > 1;
  unsigned local = std::max(1u, p.ranksPerNode);

  // The intra-node path: PCIe across NVLink domains or over a PCIe-only
  // node; NVLink otherwise. With one GPU per node NCCL's intra type is
  // PATH_LOC, which it files under NCCL_HW_PCI.
  const LinkSpec &intraLink = p.spansDomains ? s.hostPcie : s.intraNode;
  bool nvlinkIntra = local > 1 && !p.spansDomains && isNvlink(s.intraNode.kind);
  t.intraHw = nvlinkIntra ? NcclHw::NVLink : NcclHw::PCI;
  double intraBw = local > 1 ? ncclLinkBw(intraLink, cc) : 0;

  llvm::ArrayRef<double> speedsIntra =
      cc >= 100  ? llvm::ArrayRef<double>(kSm100SpeedIntra)
      : cc >= 90 ? llvm::ArrayRef<double>(kSm90SpeedIntra)
                 : llvm::ArrayRef<double>(kSpeedIntra);
  llvm::ArrayRef<double> speedsInter =
      cc >= 100  ? llvm::ArrayRef<double>(kSm100SpeedInter)
      : cc >= 90 ? llvm::ArrayRef<double>(kSm90SpeedInter)
                 : llvm::ArrayRef<double>(kSpeedInter);

  NcclGraph ring;
  if (!multiNode) {
    ring.bwIntra = firstSpeed(speedsIntra, intraBw);
    ring.channels = unsigned(std::floor(intraBw / ring.bwIntra));
  } else {
    // A channel leaves the node through one NIC, reached over the GPU's
    // PCIe link; a node's GPUs reach their share of its NICs.
    double nic = ncclLinkBw(s.interNode, cc);
    double reach = std::min(nic, ncclLinkBw(s.hostPcie, cc));
    unsigned nics = std::max(1u, s.nicsPerNode);
    unsigned usable = std::clamp<unsigned>((local * nics + s.gpusPerNode - 1) /
                                               std::max(1u, s.gpusPerNode),
                                           1u, nics);
    ring.bwIntra = firstSpeed(speedsInter, reach);
    ring.channels =
        usable * unsigned(std::max(1.0, std::floor(nic / ring.bwIntra)));
    if (local > 1)
      ring.channels =
          std::min(ring.channels, unsigned(std::floor(intraBw / ring.bwIntra)));
  }
  ring.channels = std::clamp(ring.channels, 1u, kMaxGraphChannels);
  ring.bwInter = ring.bwIntra;
  dupChannels(ring, cc);
  // init.cc: the tree and CollNet chain graphs take the ring's channel count;
  // the search gives them the same speeds here.
  t.graphs[kRing] = ring;
  t.graphs[kTree] = ring;
  t.graphs[kCollNetChain] = ring;
  t.graphs[kCollNetDirect] = ring;
  t.graphs[kPat] = ring;

  // NVLS (search.cc: needs an NVSwitch and SM90): one head per GPU of the
  // node, up to NCCL_MAX_NVLS_ARITY channels sharing the GPU's NVLink.
  t.nvls = s.nvSwitch && cc >= 90 && nvlinkIntra && local > 1;
  if (t.nvls) {
    NcclGraph nvls;
    nvls.channels = std::min(local, kMaxNvlsArity);
    nvls.bwIntra = firstSpeed(speedsIntra, intraBw / nvls.channels);
    nvls.bwInter = multiNode ? ring.bwInter : nvls.bwIntra;
    t.graphs[kNvls] = nvls;
    t.graphs[kNvlsTree] = nvls;
  }

  // tuning.cc: LL128 is on by default only for NVLink inside the node and,
  // across nodes, a NIC at most a PCIe switch away from the GPU (PATH_PXB;
  // PATH_PXN on SM90). DGX-like nodes put a NIC per GPU or GPU pair on the
  // GPUs' switches; nodes with fewer NICs are taken to have them elsewhere.
  bool nicNear = 2 * s.nicsPerNode >= s.gpusPerNode;
  t.ll128 = cc >= 70 && (local <= 1 || nvlinkIntra) && (!multiNode || nicNear);
  return t;
}

//===----------------------------------------------------------------------===//
// Tuning tables
//===----------------------------------------------------------------------===//

NcclTuner::NcclTuner(const NcclTopology &topology) : topo(topology) {
  unsigned nRanks = topo.nRanks, nNodes = std::max(1u, topo.nNodes);
  if (nRanks <= 1)
    return;
  unsigned gen = unsigned(topo.arch());
  unsigned index2 = nNodes <= 2 ? nNodes - 1 : 2;
  unsigned index1 = nNodes == 1 ? gen : (topo.amdCpu ? 1 : 0);
  double llMaxBw = kLLMaxBw[index1][index2];
  double perChMaxTreeBw = kPerChMaxTreeBw[gen][index2];
  double perChMaxRingLL128Bw = kPerChMaxRingLL128Bw[gen][index2];
  double perChMaxTreeLL128Bw = kPerChMaxTreeLL128Bw[gen][index2];
  double perChMaxNVLSTreeBw = kPerChMaxNVLSTreeBw[gen][index2];
  double ppn = topo.ppn();
  unsigned intraHw = unsigned(topo.intraHw);
  unsigned hw = nNodes == 1 ? intraHw : unsigned(NcclHw::Net);
  unsigned net = unsigned(NcclHw::Net);
  // tuning.cc, getNetOverhead: 1 us on Intel hosts, 2 us on AMD.
  double netOverheadBase = topo.amdCpu ? 2.0 : 1.0;
  // tuning.cc, ncclPatEnable: SM60+, one GPU per node, host networking.
  bool patEnabled = topo.compCap >= 60 && nNodes == nRanks;

  for (unsigned f = 0; f < kNumFuncs; ++f) {
    unsigned nsteps = f == AllReduce                         ? 2 * (nRanks - 1)
                      : f == ReduceScatter || f == AllGather ? nRanks - 1
                                                             : nRanks;
    bool gatherScatter = f == ReduceScatter || f == AllGather;
    for (unsigned a = 0; a < kNumNcclAlgorithms; ++a) {
      if ((f == Broadcast || f == Reduce) && a != kRing)
        continue;
      if (gatherScatter && a != kPat && a != kRing && a != kNvls &&
          a != kCollNetDirect)
        continue;
      if (f == AllReduce && a == kPat)
        continue;
      const NcclGraph &g = topo.graphs[a];
      for (unsigned p = 0; p < kNumNcclProtocols; ++p) {
        if ((a == kNvls || a == kNvlsTree) && p != kSimple)
          continue;
        if (gatherScatter && a == kPat && (p != kSimple || !patEnabled))
          continue;
        bool collnet = a == kCollNetDirect || a == kCollNetChain;
        double bw = nNodes <= 2 || collnet ? g.bwIntra : g.bwInter;
        if (a == kNvls || a == kNvlsTree) {
          if (g.channels < 2)
            continue;
          double intra =
              g.bwIntra * kNvlsEfficiency[gen] * (g.channels - 1) / g.channels;
          intra *= f == AllReduce ? 2.0 : (ppn - 1) / ppn;
          double inter =
              g.bwInter * ((nNodes <= 2 && a == kNvlsTree) ? 2.0 : 1.0);
          bw = std::min({intra, inter,
                         a == kNvlsTree ? perChMaxNVLSTreeBw
                                        : std::numeric_limits<double>::max()});
        }
        double busBw = g.channels * bw;

        // ncclTopoTuneModel's "model refinements".
        if (a == kRing && p == kLL)
          busBw = std::min(llMaxBw, busBw * .5);
        if (a == kRing && p == kLL128)
          busBw = std::min(busBw * 0.92, g.channels * perChMaxRingLL128Bw);
        if (a == kTree && f == AllReduce)
          busBw = std::min(busBw * .92, g.channels * perChMaxTreeBw);
        if (a == kTree && p == kLL)
          busBw = std::min(busBw * 1.0 / 3.8, llMaxBw);
        if (a == kTree && p == kLL128)
          busBw = std::min(busBw * (nNodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                           g.channels * perChMaxTreeLL128Bw);
        if (a == kPat)
          busBw *= .75;
        if (collnet && p != kSimple)
          busBw = 0;
        if (a == kCollNetDirect && p == kSimple) {
          if (gatherScatter) {
            busBw = ppn * std::min(g.bwIntra, g.bwInter * 0.9);
          } else {
            // "Collnet+Direct requires all GPUs to have a local NIC".
            double factor = ppn / g.channels;
            factor -= (factor - 1) / 2;
            busBw /= factor;
            if (topo.compCap >= 90)
              busBw *= .85;
          }
        }
        // NVLS and CollNet direct gather/scatter across nodes need the
        // CollNet plugin's own all_gather / reduce_scatter.
        if ((a == kNvls || a == kCollNetDirect) && gatherScatter &&
            nNodes > 1 && !topo.collNet)
          busBw = 0;

        // Bus bandwidth to algorithm bandwidth.
        double ratio = 1;
        if (!(a != kRing && gatherScatter))
          ratio = (a == kRing || a == kNvls || a == kNvlsTree)
                      ? double(nRanks) / nsteps
                      : .5;
        busBw *= ratio;

        double lat = kBaseLat[a][p];
        double intraLat = kHwLat[intraHw][a][p];
        // "With ppn=1 latencies are fully exposed, use the Tree network
        // latency".
        double interLat =
            (ppn == 1 ? kHwLat[net][kTree][p] : kHwLat[net][a][p]) +
            topo.latencyInter;
        if (p == kSimple)
          interLat += topo.latencyInter; // the flush
        if (a == kRing) {
          double hop = kHwLat[hw][a][p];
          if (f == Reduce || f == Broadcast) {
            // The ring graph has the same channels for every rank
            // (sameChannels), so one hop.
            lat += hop;
          } else {
            double netOverhead = 0;
            if (nNodes > 1)
              netOverhead = netOverheadBase * (p == kSimple ? 3 : 1);
            intraLat = std::max(intraLat, netOverhead);
            unsigned interSteps = nNodes == 1      ? 0
                                  : f == AllReduce ? 2 * (nNodes - 1)
                                                   : nNodes - 1;
            lat += (nsteps - interSteps) * intraLat + interSteps * interLat;
          }
        } else if (a == kTree) {
          if (f == AllReduce)
            lat += 2 * ((nRanks / nNodes - 1) * intraLat +
                        log2i(nNodes) * interLat);
        } else if (a == kCollNetDirect) {
          unsigned local = nRanks / nNodes;
          lat += 2 * (std::min(1u, local - 1) * intraLat + (local - 1) * 0.4) +
                 interLat;
        } else if (a == kCollNetChain) {
          lat += 2 * (nRanks / nNodes - 1) * intraLat + interLat;
        } else if (a == kNvls) {
          lat = intraLat + (nNodes > 1 ? interLat : 0);
        } else if (a == kNvlsTree) {
          lat += intraLat + 2 * log2i(nNodes) * interLat;
        } else if (a == kPat && gatherScatter) {
          lat += log2i(nNodes) * (interLat / 3.5) + nRanks * 2.8;
        }
        latencies[f][a][p] = lat;
        bandwidths[f][a][p] = busBw;
        busFactors[f][a][p] = ratio > 0 ? 1 / ratio : 1;
      }
    }
  }

  // Enables (tuning.cc, after the tables): LL128 only where the default
  // checks pass; NVLS tree never on one node; CollNet and multi-node NVLS
  // only with CollNet; CollNet direct only behind an NVSwitch.
  for (unsigned f = 0; f < kNumFuncs; ++f)
    for (unsigned a = 0; a < kNumNcclAlgorithms; ++a) {
      bool disable =
          (nNodes == 1 && a == kNvlsTree) ||
          (!topo.collNet && (a == kCollNetDirect || a == kCollNetChain ||
                             (a == kNvls && nNodes > 1))) ||
          (!topo.nvSwitch && a == kCollNetDirect) ||
          ((a == kNvls || a == kNvlsTree) && !topo.nvls);
      for (unsigned p = 0; p < kNumNcclProtocols; ++p)
        if (disable || (p == kLL128 && !topo.ll128))
          bandwidths[f][a][p] = 0;
    }
}

std::optional<NcclCost> NcclTuner::cost(CollectiveKind kind,
                                        CollectiveAlgorithm algorithm,
                                        CollectiveProtocol protocol) const {
  int f = ncclFunc(kind);
  if (f < 0 || algorithm == CollectiveAlgorithm::Auto ||
      protocol == CollectiveProtocol::Auto || topo.nRanks <= 1)
    return std::nullopt;
  unsigned a = unsigned(algorithm), p = unsigned(protocol);
  if (bandwidths[f][a][p] <= 0)
    return std::nullopt;
  return NcclCost{latencies[f][a][p], bandwidths[f][a][p], busFactors[f][a][p]};
}

std::optional<NcclCost> NcclTuner::sizedCost(CollectiveKind kind,
                                             CollectiveAlgorithm algorithm,
                                             CollectiveProtocol protocol,
                                             double bytes) const {
  std::optional<NcclCost> c = cost(kind, algorithm, protocol);
  if (!c)
    return c;
  // ncclTopoGetAlgoTime: int logSize = log2i(nBytes >> 6).
  double chunks = std::floor(bytes / 64);
  int logSize = chunks >= 1 ? int(log2i(chunks)) : -1;
  unsigned p = unsigned(protocol);
  if (algorithm == CollectiveAlgorithm::Tree &&
      kind == CollectiveKind::AllReduce && logSize >= 0 && logSize < 23)
    c->bandwidthGBs *= kTreeCorrection[p][logSize];
  if (algorithm == CollectiveAlgorithm::NVLSTree &&
      kind == CollectiveKind::AllReduce && logSize >= 0 && logSize < 24 &&
      topo.compCap >= 100)
    c->bandwidthGBs *= kTreeCorrection[p][logSize];
  // "Plateau effect of ring": multi-node Simple ring all_reduce with at
  // least 64 bytes per channel and rank.
  unsigned channels =
      std::min(topo.graphs[kTree].channels, topo.graphs[kRing].channels);
  if (algorithm == CollectiveAlgorithm::Ring &&
      protocol == CollectiveProtocol::Simple && topo.nNodes > 1 &&
      kind == CollectiveKind::AllReduce && channels > 0 &&
      std::floor(bytes / (double(channels) * topo.nRanks)) >= 64)
    c->latencyUs *= topo.compCap < 80 ? 1.9 : 1.4;
  return c;
}

std::optional<NcclChoice> NcclTuner::choose(CollectiveKind kind, double bytes,
                                            CollectiveAlgorithm algorithm,
                                            CollectiveProtocol protocol) const {
  std::optional<NcclChoice> best;
  for (unsigned a = 0; a < kNumNcclAlgorithms; ++a) {
    if (algorithm != CollectiveAlgorithm::Auto && a != unsigned(algorithm))
      continue;
    for (unsigned p = 0; p < kNumNcclProtocols; ++p) {
      if (protocol != CollectiveProtocol::Auto && p != unsigned(protocol))
        continue;
      auto c =
          sizedCost(kind, CollectiveAlgorithm(a), CollectiveProtocol(p), bytes);
      if (!c)
        continue;
      double time = c->latencyUs + bytes / (1000 * c->bandwidthGBs);
      if (!best || time < best->timeUs) {
        best = NcclChoice{CollectiveAlgorithm(a), CollectiveProtocol(p), time,
                          *c, 0};
      }
    }
  }
  if (!best)
    return best;

  // topoGetAlgoInfo: fewer channels (then threads) while each thread would
  // get less than its threshold of bytes. NVLS runs on its own channels.
  unsigned a = unsigned(best->algorithm), p = unsigned(best->protocol);
  unsigned nc =
      std::min(topo.graphs[kTree].channels, topo.graphs[kRing].channels);
  if (a == kNvls || a == kNvlsTree) {
    best->channels = topo.graphs[kNvls].channels;
    return best;
  }
  double nt =
      p == kLL      ? kLLMaxThreads
      : p == kLL128 ? kLL128MaxThreads
      : a == kRing &&
              topo.graphs[kRing].bwIntra * topo.graphs[kRing].channels <= kPciBw
          ? 256
      : (a == kRing || a == kTree) ? kSimpleMaxThreads
                                   : kMaxThreads;
  double threshold = p == kLL      ? kLLThreadThreshold
                     : p == kLL128 ? kLL128ThreadThreshold
                                   : kSimpleThreadThreshold;
  if (a == kRing && p == kLL)
    threshold *= topo.nRanks;
  while (nc >= 2 && bytes < nc * nt * threshold)
    --nc;
  best->channels = std::max(1u, nc);
  return best;
}

NcclChoice NcclTuner::p2p(double bytes) const {
  NcclChoice c;
  c.algorithm = CollectiveAlgorithm::Ring;
  const NcclGraph &g = topo.graphs[kRing];
  unsigned channels = std::max(1u, g.channels);
  c.channels = channels;
  bool ll = bytes <= channels * kP2pLLThreshold;
  c.protocol = ll ? CollectiveProtocol::LL : CollectiveProtocol::Simple;
  unsigned p = unsigned(c.protocol);
  unsigned nNodes = std::max(1u, topo.nNodes);
  unsigned hw = nNodes == 1 ? unsigned(topo.intraHw) : unsigned(NcclHw::Net);
  double hop = nNodes == 1 ? kHwLat[hw][kRing][p]
                           : kHwLat[hw][kTree][p] + topo.latencyInter;
  double busBw = channels * g.bwIntra;
  if (ll) {
    unsigned gen = unsigned(topo.arch());
    unsigned index2 = nNodes <= 2 ? nNodes - 1 : 2;
    unsigned index1 = nNodes == 1 ? gen : (topo.amdCpu ? 1 : 0);
    busBw = std::min(kLLMaxBw[index1][index2], busBw * .5);
  }
  c.cost = NcclCost{kBaseLat[kRing][p] + hop, busBw, 1};
  c.timeUs = c.cost.latencyUs + bytes / (1000 * busBw);
  return c;
}
