//===- SystemSpec.h - A cluster of GPUs and the links between them -*- C++
//-*-===//
//
// What the communication cost models need to know about a machine: how many
// nodes, how many GPUs in each, and the bandwidth and latency of the links a
// collective can cross (the intra-node GPU link, the inter-node network, the
// host PCIe link). Bandwidths are per direction; the intra-node figure is per
// GPU, the inter-node figure per NIC. Achieved bandwidth is the nominal figure
// times an efficiency factor (70% by default, the utilization assumption of
// the Alibaba-PAI characterization study).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COMM_SYSTEMSPEC_H
#define PERF_COMM_SYSTEMSPEC_H

#include "perf/Support/GpuSpec.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>

namespace perf {

enum class LinkKind {
  NVLink2,
  NVLink3,
  NVLink4,
  PCIe3,
  PCIe4,
  PCIe5,
  Ethernet10,
  Ethernet25,
  Ethernet100,
  Ethernet200,
  Ethernet400,
  InfiniBandEDR,
  InfiniBandHDR,
  InfiniBandNDR,
  /// Bandwidth and latency given explicitly.
  Custom,
};

/// Spelling used in JSON ("nvlink3", "pcie4", "ethernet25", "ib-hdr"...).
llvm::StringRef linkKindName(LinkKind kind);
std::optional<LinkKind> parseLinkKind(llvm::StringRef name);

struct LinkSpec {
  LinkKind kind = LinkKind::Custom;
  /// Nominal bandwidth per direction in bytes/s: per GPU for GPU links, per
  /// NIC for the network.
  double bandwidth = 0;
  /// One-message latency (the alpha of the alpha-beta model) in us.
  double latencyUs = 0;
  /// Overrides SystemSpec::efficiency for this link when set.
  std::optional<double> efficiency;
};

/// Typical figures of a link kind: NVLink2/3/4 150/300/450 GB/s per GPU,
/// PCIe gen3/4/5 x16 15.75/31.5/63 GB/s, Ethernet and InfiniBand at their line
/// rate, with latencies typical of NCCL over each.
LinkSpec defaultLink(LinkKind kind);

/// What a group's traffic crosses: one NVLink domain, PCIe between the
/// domains (or GPUs) of a node, or the network between nodes.
enum class Fabric { NVLink, PCIe, Network };
constexpr unsigned kNumFabrics = 3;
/// "nvlink", "pcie", "network".
llvm::StringRef fabricName(Fabric fabric);
std::optional<Fabric> parseFabric(llvm::StringRef name);

/// Corrections to NCCL's figures for one collective on one fabric of a
/// system, fitted to measured times (bench/collectives/perf-comm-eval --fit
/// writes them into the system file). NCCL's tuner still picks the
/// (algorithm, protocol) pair with its own figures, as NCCL does; the
/// calibration prices the pair it picked:
///
///   latency   = latencyScale x NCCL's latency + latencyOffsetUs
///   bandwidth = bandwidthEfficiency x NCCL's algorithm bandwidth
struct CollectiveCalibration {
  double bandwidthEfficiency = 1;
  double latencyScale = 1;
  double latencyOffsetUs = 0;
  /// Rows the fit saw (0 for values derived from other collectives or
  /// systems) and where they came from.
  unsigned points = 0;
  std::string source;

  double latencyUs(double ncclLatencyUs) const {
    return latencyScale * ncclLatencyUs + latencyOffsetUs;
  }
};

struct SystemSpec {
  std::string name;
  /// Where the figures come from.
  std::string source;
  unsigned nodes = 1;
  unsigned gpusPerNode = 1;
  GpuSpec gpu;
  /// The GPU-to-GPU link inside a node.
  LinkSpec intraNode;
  /// GPUs fully connected by `intraNode`; GPUs of different domains of one
  /// node talk over `hostPcie` (NVLink-bridged pairs in PCIe servers). Zero
  /// means the whole node.
  unsigned intraNodeDomain = 0;
  /// The network between nodes; `nicsPerNode` NICs of `interNode.bandwidth`.
  LinkSpec interNode;
  unsigned nicsPerNode = 1;
  /// GPU-to-host link (also the path between GPUs without a direct link).
  LinkSpec hostPcie;
  /// Fraction of nominal bandwidth achieved.
  double efficiency = 0.7;
  /// The node's GPUs are connected through NVSwitch (NVLS and CollNet
  /// direct need one).
  bool nvSwitch = false;
  /// The network reduces in-switch (SHARP): NCCL's CollNet algorithms run.
  bool collNet = false;
  /// CUDA compute capability x 10 of the GPUs; 0 infers it from the GPU's
  /// name (computeCapability()).
  unsigned compCap = 0;

  unsigned numGpus() const { return nodes * gpusPerNode; }
  unsigned domainSize() const {
    return intraNodeDomain ? intraNodeDomain : gpusPerNode;
  }
  /// Global ranks are laid out node by node: rank r is on node r / gpusPerNode.
  unsigned nodeOf(unsigned rank) const { return rank / gpusPerNode; }
  /// Fitted corrections per collective kind and fabric (absent: NCCL's
  /// figures alone).
  std::optional<CollectiveCalibration> calibration[6][kNumFabrics];

  const CollectiveCalibration *calibrationFor(CollectiveKind kind,
                                              Fabric fabric) const {
    const auto &c = calibration[unsigned(kind)][unsigned(fabric)];
    return c ? &*c : nullptr;
  }

  /// `compCap`, else what the GPU's name says (V100 70, A100 80, A10/A40
  /// 86, L4 89, H100/H200 90, B200 100; 80 when unknown).
  unsigned computeCapability() const;
  /// Achieved bandwidth of a link in bytes/s.
  double achievedBandwidth(const LinkSpec &link) const {
    return link.bandwidth * link.efficiency.value_or(efficiency);
  }

  /// Checks what the cost models divide by.
  llvm::Error validate() const;
};

/// Where a group of ranks sits on a system.
struct RankPlacement {
  // Not an aggregate, so a braced rank list picks the ArrayRef<int> overloads.
  RankPlacement() {}
  unsigned numRanks = 0;
  /// Distinct nodes the group touches.
  unsigned numNodes = 0;
  /// Most ranks of the group on one node.
  unsigned ranksPerNode = 0;
  /// Whether some node's ranks span more than one NVLink domain.
  bool spansDomains = false;
};

/// Placement of explicit global ranks (rank r on node r / gpusPerNode).
RankPlacement placeRanks(llvm::ArrayRef<int> ranks, const SystemSpec &system);
/// The same for a `group` attribute of the perf dialect's collectives.
RankPlacement placeGroup(llvm::ArrayRef<int64_t> ranks,
                         const SystemSpec &system);
/// `count` ranks filling nodes in order with at most `perNode` per node
/// (0: the node's GPU count), the way NCCL tests and launchers pack them.
RankPlacement packRanks(unsigned count, const SystemSpec &system,
                        unsigned perNode = 0);

/// The fabric a group's collective crosses.
Fabric fabricOf(const RankPlacement &placement, const SystemSpec &system);

/// Built-in systems: "dgx-a100" (8x A100-SXM4-80GB, NVLink3, 8x HDR 200 Gb/s
/// InfiniBand), "dgx-h100" (8x H100-SXM5, NVLink4, 8x NDR 400 Gb/s),
/// "pcie-a100" (8x A100-PCIe-80GB on PCIe gen4, 100 GbE), "pai-v100-25gbe"
/// (the PAI testbed: 64 servers of 8x V100, 50 GB/s NVLink, 10 GB/s PCIe,
/// 25 Gb/s Ethernet).
llvm::ArrayRef<SystemSpec> systemPresets();
const SystemSpec *lookupSystemPreset(llvm::StringRef name);

/// Parses a system description. Keys: name, source, base (a preset the rest
/// overrides), nodes, gpus_per_node, gpu (catalog name or a device object as
/// in GpuSpec.h), intra_node / inter_node / host_pcie (objects with kind,
/// bandwidth_gbs, latency_us, efficiency), intra_node_domain, nics_per_node,
/// efficiency, nvswitch, collnet, compute_capability, calibration
/// ({collective: {fabric: {bandwidth_efficiency, latency_scale,
/// latency_offset_us, points, source}}}). An unknown key or a value of the
/// wrong type is an error naming `origin` and the JSON path.
llvm::Expected<SystemSpec> parseSystemSpec(const llvm::json::Value &value,
                                           llvm::StringRef origin = "system");
/// A preset name, or a JSON file (errors name the file and line).
llvm::Expected<SystemSpec> loadSystemSpec(llvm::StringRef presetOrPath);

llvm::json::Value toJson(const SystemSpec &spec);
/// The "calibration" object of a system file (empty when it has none).
llvm::json::Object calibrationToJson(const SystemSpec &spec);

} // namespace perf

#endif // PERF_COMM_SYSTEMSPEC_H
