//===- SystemSpec.cpp - System description, presets and JSON --------------===//
//
// Link figures: NVLink per-GPU bandwidth from the V100/A100/H100 datasheets
// (300/600/900 GB/s bidirectional), PCIe x16 per direction from the PCI-SIG
// rates after 128b/130b encoding, network links at line rate. Latencies are
// typical NCCL one-hop figures (a few us on NVLink/PCIe and InfiniBand, tens
// of us over TCP on Ethernet); calibrate them per system where it matters
// (docs/distributed.md shows how and what it buys).
//
//===----------------------------------------------------------------------===//

#include "perf/Comm/SystemSpec.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cmath>
#include <vector>

using namespace perf;

static constexpr double GB = 1e9;

llvm::StringRef perf::linkKindName(LinkKind kind) {
  switch (kind) {
  case LinkKind::NVLink2:
    return "nvlink2";
  case LinkKind::NVLink3:
    return "nvlink3";
  case LinkKind::NVLink4:
    return "nvlink4";
  case LinkKind::PCIe3:
    return "pcie3";
  case LinkKind::PCIe4:
    return "pcie4";
  case LinkKind::PCIe5:
    return "pcie5";
  case LinkKind::Ethernet10:
    return "ethernet10";
  case LinkKind::Ethernet25:
    return "ethernet25";
  case LinkKind::Ethernet100:
    return "ethernet100";
  case LinkKind::Ethernet200:
    return "ethernet200";
  case LinkKind::Ethernet400:
    return "ethernet400";
  case LinkKind::InfiniBandEDR:
    return "ib-edr";
  case LinkKind::InfiniBandHDR:
    return "ib-hdr";
  case LinkKind::InfiniBandNDR:
    return "ib-ndr";
  case LinkKind::Custom:
    return "custom";
  }
  return "custom";
}

std::optional<LinkKind> perf::parseLinkKind(llvm::StringRef name) {
  auto kind = llvm::StringSwitch<std::optional<LinkKind>>(name.lower())
                  .Case("nvlink2", LinkKind::NVLink2)
                  .Case("nvlink3", LinkKind::NVLink3)
                  .Case("nvlink4", LinkKind::NVLink4)
                  .Case("pcie3", LinkKind::PCIe3)
                  .Case("pcie4", LinkKind::PCIe4)
                  .Case("pcie5", LinkKind::PCIe5)
                  .Case("ethernet10", LinkKind::Ethernet10)
                  .Case("ethernet25", LinkKind::Ethernet25)
                  .Case("ethernet100", LinkKind::Ethernet100)
                  .Case("ethernet200", LinkKind::Ethernet200)
                  .Case("ethernet400", LinkKind::Ethernet400)
                  .Case("ib-edr", LinkKind::InfiniBandEDR)
                  .Case("infiniband-edr", LinkKind::InfiniBandEDR)
                  .Case("ib-hdr", LinkKind::InfiniBandHDR)
                  .Case("infiniband-hdr", LinkKind::InfiniBandHDR)
                  .Case("ib-ndr", LinkKind::InfiniBandNDR)
                  .Case("infiniband-ndr", LinkKind::InfiniBandNDR)
                  .Case("custom", LinkKind::Custom)
                  .Default(std::nullopt);
  return kind;
}

LinkSpec perf::defaultLink(LinkKind kind) {
  auto make = [&](double gbs, double latencyUs) {
    LinkSpec l;
    l.kind = kind;
    l.bandwidth = gbs * GB;
    l.latencyUs = latencyUs;
    return l;
  };
  switch (kind) {
  case LinkKind::NVLink2:
    return make(150, 2);
  case LinkKind::NVLink3:
    return make(300, 2);
  case LinkKind::NVLink4:
    return make(450, 2);
  case LinkKind::PCIe3:
    return make(15.75, 4);
  case LinkKind::PCIe4:
    return make(31.5, 4);
  case LinkKind::PCIe5:
    return make(63, 4);
  case LinkKind::Ethernet10:
    return make(1.25, 25);
  case LinkKind::Ethernet25:
    return make(3.125, 25);
  case LinkKind::Ethernet100:
    return make(12.5, 15);
  case LinkKind::Ethernet200:
    return make(25, 15);
  case LinkKind::Ethernet400:
    return make(50, 15);
  case LinkKind::InfiniBandEDR:
    return make(12.5, 5);
  case LinkKind::InfiniBandHDR:
    return make(25, 5);
  case LinkKind::InfiniBandNDR:
    return make(50, 5);
  case LinkKind::Custom:
    return make(0, 0);
  }
  return make(0, 0);
}

/// A finite number at least `min` (NaN fails every comparison).
static bool atLeast(double x, double min) {
  return std::isfinite(x) && x >= min;
}

llvm::Error SystemSpec::validate() const {
  // Messages carry the JSON path as "at '<path>'", which loadSystemSpec turns
  // into a line of the file.
  auto bad = [&](const llvm::Twine &path, const llvm::Twine &what) {
    return llvm::createStringError("at '" + path + "': " + what + " (system '" +
                                   name + "')");
  };
  if (nodes == 0)
    return bad("nodes", "must be positive");
  if (gpusPerNode == 0)
    return bad("gpus_per_node", "must be positive");
  if (!(efficiency > 0 && efficiency <= 1))
    return bad("efficiency", "must be in (0, 1]");
  if (intraNodeDomain > gpusPerNode)
    return bad("intra_node_domain", "exceeds gpus_per_node");
  if (nicsPerNode == 0 && nodes > 1)
    return bad("nics_per_node", "must be positive on a multi-node system");
  struct Named {
    const char *name;
    const LinkSpec *link;
    bool needed;
  } links[] = {{"intra_node", &intraNode, gpusPerNode > 1},
               {"inter_node", &interNode, nodes > 1},
               {"host_pcie", &hostPcie, domainSize() < gpusPerNode}};
  for (const Named &l : links) {
    std::string at = l.name;
    if (!atLeast(l.link->latencyUs, 0))
      return bad(at + ".latency_us", "latency must be a non-negative number");
    double eff = l.link->efficiency.value_or(efficiency);
    if (!(eff > 0 && eff <= 1))
      return bad(at + ".efficiency", "must be in (0, 1]");
    if (!atLeast(l.link->bandwidth, 0))
      return bad(at + ".bandwidth_gbs",
                 "bandwidth must be a non-negative number");
    if (l.needed && l.link->bandwidth <= 0)
      return bad(at + ".bandwidth_gbs", "bandwidth must be positive");
  }
  for (unsigned k = 0; k < 6; ++k)
    for (unsigned f = 0; f < kNumFabrics; ++f) {
      const std::optional<CollectiveCalibration> &c = calibration[k][f];
      if (!c)
        continue;
      std::string at = ("calibration." + collectiveKindName(CollectiveKind(k)) +
                        "." + fabricName(Fabric(f)))
                           .str();
      if (!(std::isfinite(c->bandwidthEfficiency) &&
            c->bandwidthEfficiency > 0))
        return bad(at + ".bandwidth_efficiency", "must be a positive number");
      if (!atLeast(c->latencyScale, 0))
        return bad(at + ".latency_scale", "must be a non-negative number");
      if (!atLeast(c->latencyOffsetUs, 0))
        return bad(at + ".latency_offset_us", "must be a non-negative number");
    }
  return llvm::Error::success();
}

unsigned SystemSpec::computeCapability() const {
  if (compCap)
    return compCap;
  // NVIDIA's CUDA GPUs table (developer.nvidia.com/cuda-gpus).
  std::string n = llvm::StringRef(gpu.name).lower();
  auto has = [&](const char *s) { return n.find(s) != std::string::npos; };
  if (has("b200") || has("b100") || has("gb200"))
    return 100;
  if (has("h100") || has("h200") || has("h800") || has("gh200"))
    return 90;
  if (has("l4") || has("l40") || has("4090"))
    return 89;
  if (has("a10") && !has("a100"))
    return 86;
  if (has("a40") || has("a6000") || has("3090"))
    return 86;
  if (has("a100") || has("a800") || has("a30"))
    return 80;
  if (has("t4"))
    return 75;
  if (has("v100"))
    return 70;
  if (has("p100"))
    return 60;
  if (has("p4") || has("p40"))
    return 61;
  return 80;
}

llvm::StringRef perf::fabricName(Fabric fabric) {
  switch (fabric) {
  case Fabric::NVLink:
    return "nvlink";
  case Fabric::PCIe:
    return "pcie";
  case Fabric::Network:
    return "network";
  }
  return "nvlink";
}

std::optional<Fabric> perf::parseFabric(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Fabric>>(name.lower())
      .Case("nvlink", Fabric::NVLink)
      .Case("pcie", Fabric::PCIe)
      .Case("network", Fabric::Network)
      .Default(std::nullopt);
}

Fabric perf::fabricOf(const RankPlacement &p, const SystemSpec &s) {
  if (p.numNodes > 1)
    return Fabric::Network;
  bool pcieOnly = s.intraNode.kind == LinkKind::PCIe3 ||
                  s.intraNode.kind == LinkKind::PCIe4 ||
                  s.intraNode.kind == LinkKind::PCIe5;
  return p.spansDomains || pcieOnly ? Fabric::PCIe : Fabric::NVLink;
}

static SystemSpec makePreset(const char *name, const char *source,
                             const char *gpu, unsigned nodes,
                             unsigned gpusPerNode, LinkSpec intra,
                             LinkSpec inter, unsigned nics, LinkSpec pcie) {
  SystemSpec s;
  s.name = name;
  s.source = source;
  s.nodes = nodes;
  s.gpusPerNode = gpusPerNode;
  if (const GpuSpec *g = lookupGpu(gpu))
    s.gpu = *g;
  s.intraNode = intra;
  s.interNode = inter;
  s.nicsPerNode = nics;
  s.hostPcie = pcie;
  return s;
}

llvm::ArrayRef<SystemSpec> perf::systemPresets() {
  static const std::vector<SystemSpec> presets = [] {
    std::vector<SystemSpec> v;
    v.push_back(makePreset(
        "dgx-a100",
        "NVIDIA DGX A100 datasheet: 8x A100-SXM4-80GB, NVLink3 via NVSwitch "
        "(600 GB/s bidirectional per GPU), 8x ConnectX-6 HDR 200 Gb/s",
        "A100-SXM4-80GB", 1, 8, defaultLink(LinkKind::NVLink3),
        defaultLink(LinkKind::InfiniBandHDR), 8, defaultLink(LinkKind::PCIe4)));
    v.back().nvSwitch = true;
    v.push_back(makePreset(
        "dgx-h100",
        "NVIDIA DGX H100 datasheet: 8x H100-SXM5, NVLink4 via NVSwitch "
        "(900 GB/s bidirectional per GPU), 8x ConnectX-7 NDR 400 Gb/s",
        "H100-SXM5-80GB", 1, 8, defaultLink(LinkKind::NVLink4),
        defaultLink(LinkKind::InfiniBandNDR), 8, defaultLink(LinkKind::PCIe5)));
    v.back().nvSwitch = true;
    v.push_back(makePreset("pcie-a100",
                           "8x A100-PCIe-80GB without NVLink on a PCIe gen4 "
                           "switch, one 100 GbE NIC",
                           "A100-PCIe-80GB", 1, 8, defaultLink(LinkKind::PCIe4),
                           defaultLink(LinkKind::Ethernet100), 1,
                           defaultLink(LinkKind::PCIe4)));
    LinkSpec paiNvlink = defaultLink(LinkKind::NVLink2);
    paiNvlink.bandwidth = 50 * GB;
    LinkSpec paiPcie = defaultLink(LinkKind::PCIe3);
    paiPcie.bandwidth = 10 * GB;
    v.push_back(makePreset(
        "pai-v100-25gbe",
        "Wang et al., Characterizing Deep Learning Training Workloads on "
        "Alibaba-PAI, Sec. IV testbed: 64 servers of 8x V100, 50 GB/s NVLink, "
        "10 GB/s PCIe, 25 Gb/s Ethernet, 70% efficiency",
        "V100", 64, 8, paiNvlink, defaultLink(LinkKind::Ethernet25), 1,
        paiPcie));
    return v;
  }();
  return presets;
}

static std::string foldName(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ')
      out.push_back(llvm::toLower(c));
  return out;
}

const SystemSpec *perf::lookupSystemPreset(llvm::StringRef name) {
  std::string key = foldName(name);
  for (const SystemSpec &s : systemPresets())
    if (foldName(s.name) == key)
      return &s;
  return nullptr;
}

RankPlacement perf::placeRanks(llvm::ArrayRef<int> ranks,
                               const SystemSpec &system) {
  RankPlacement p;
  llvm::SmallSet<int, 16> unique;
  llvm::DenseMap<unsigned, unsigned> perNode;
  // (node, domain) pairs seen, to tell whether a node's ranks span domains.
  llvm::DenseMap<unsigned, unsigned> domainOfNode;
  unsigned domain = std::max(1u, system.domainSize());
  for (int r : ranks) {
    if (r < 0 || !unique.insert(r).second)
      continue;
    unsigned node = system.nodeOf(unsigned(r));
    unsigned d = (unsigned(r) % system.gpusPerNode) / domain;
    ++perNode[node];
    auto [it, inserted] = domainOfNode.try_emplace(node, d);
    if (!inserted && it->second != d)
      p.spansDomains = true;
  }
  p.numRanks = unique.size();
  p.numNodes = perNode.size();
  for (auto &kv : perNode)
    p.ranksPerNode = std::max(p.ranksPerNode, kv.second);
  return p;
}

RankPlacement perf::placeGroup(llvm::ArrayRef<int64_t> ranks,
                               const SystemSpec &system) {
  llvm::SmallVector<int> narrow;
  for (int64_t r : ranks)
    narrow.push_back(r < 0 || r > INT32_MAX ? -1 : int(r));
  return placeRanks(llvm::ArrayRef<int>(narrow), system);
}

RankPlacement perf::packRanks(unsigned count, const SystemSpec &system,
                              unsigned perNode) {
  if (perNode == 0 || perNode > system.gpusPerNode)
    perNode = system.gpusPerNode;
  RankPlacement p;
  p.numRanks = count;
  p.ranksPerNode = std::min(count, perNode);
  p.numNodes = p.ranksPerNode ? (count + perNode - 1) / perNode : 0;
  p.spansDomains = p.ranksPerNode > system.domainSize();
  return p;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {
/// Reads one JSON object, recording the first error with its path.
class Reader {
public:
  explicit Reader(llvm::StringRef origin) : origin(origin.str()) {}

  llvm::Error error(const llvm::Twine &path, const llvm::Twine &what) {
    return llvm::createStringError(origin + ": at '" + path + "': " + what);
  }

  llvm::Error number(const llvm::json::Value &v, const llvm::Twine &path,
                     double &out) {
    if (auto d = v.getAsNumber()) {
      out = *d;
      return llvm::Error::success();
    }
    return error(path, "expected a number");
  }

  llvm::Error count(const llvm::json::Value &v, const llvm::Twine &path,
                    unsigned &out) {
    auto i = v.getAsInteger();
    if (!i || *i < 0)
      return error(path, "expected a non-negative integer");
    out = unsigned(*i);
    return llvm::Error::success();
  }

  llvm::Error link(const llvm::json::Value &v, const std::string &path,
                   LinkSpec &out) {
    const llvm::json::Object *o = v.getAsObject();
    if (!o)
      return error(path, "expected an object");
    // The kind first: its defaults are what the other keys override.
    if (const llvm::json::Value *k = o->get("kind")) {
      auto s = k->getAsString();
      if (!s)
        return error(path + ".kind", "expected a string");
      auto kind = parseLinkKind(*s);
      if (!kind)
        return error(path + ".kind", "unknown link kind '" + *s + "'");
      out = defaultLink(*kind);
    }
    for (const auto &kv : *o) {
      llvm::StringRef key = kv.first;
      std::string at = path + "." + key.str();
      double d = 0;
      if (key == "kind")
        continue;
      if (key == "bandwidth_gbs") {
        if (auto e = number(kv.second, at, d))
          return e;
        out.bandwidth = d * GB;
      } else if (key == "latency_us") {
        if (auto e = number(kv.second, at, d))
          return e;
        out.latencyUs = d;
      } else if (key == "efficiency") {
        if (auto e = number(kv.second, at, d))
          return e;
        out.efficiency = d;
      } else {
        return error(at, "unknown key '" + key + "'");
      }
    }
    return llvm::Error::success();
  }

  llvm::Error boolean(const llvm::json::Value &v, const llvm::Twine &path,
                      bool &out) {
    if (auto b = v.getAsBoolean()) {
      out = *b;
      return llvm::Error::success();
    }
    return error(path, "expected true or false");
  }

  /// "calibration": {collective: {fabric: {bandwidth_efficiency,
  /// latency_scale, latency_offset_us, points, source}}}.
  llvm::Error calibration(const llvm::json::Value &v, SystemSpec &s) {
    const llvm::json::Object *byKind = v.getAsObject();
    if (!byKind)
      return error("calibration", "expected an object");
    for (const auto &k : *byKind) {
      std::string kindPath = "calibration." + k.first.str();
      std::optional<CollectiveKind> kind = parseCollectiveKind(k.first);
      if (!kind)
        return error(kindPath,
                     "unknown collective '" + llvm::StringRef(k.first) + "'");
      const llvm::json::Object *byFabric = k.second.getAsObject();
      if (!byFabric)
        return error(kindPath, "expected an object");
      for (const auto &f : *byFabric) {
        std::string fabricPath = kindPath + "." + f.first.str();
        std::optional<Fabric> fabric = parseFabric(f.first);
        if (!fabric)
          return error(fabricPath, "unknown fabric '" +
                                       llvm::StringRef(f.first) +
                                       "' (nvlink, pcie, network)");
        const llvm::json::Object *o = f.second.getAsObject();
        if (!o)
          return error(fabricPath, "expected an object");
        CollectiveCalibration c;
        for (const auto &kv : *o) {
          llvm::StringRef key = kv.first;
          std::string at = fabricPath + "." + key.str();
          if (key == "bandwidth_efficiency") {
            if (auto e = number(kv.second, at, c.bandwidthEfficiency))
              return e;
          } else if (key == "latency_scale") {
            if (auto e = number(kv.second, at, c.latencyScale))
              return e;
          } else if (key == "latency_offset_us") {
            if (auto e = number(kv.second, at, c.latencyOffsetUs))
              return e;
          } else if (key == "points") {
            if (auto e = count(kv.second, at, c.points))
              return e;
          } else if (key == "source") {
            auto str = kv.second.getAsString();
            if (!str)
              return error(at, "expected a string");
            c.source = str->str();
          } else {
            return error(at, "unknown key '" + key + "'");
          }
        }
        s.calibration[unsigned(*kind)][unsigned(*fabric)] = c;
      }
    }
    return llvm::Error::success();
  }

  std::string origin;
};
} // namespace

llvm::Expected<SystemSpec> perf::parseSystemSpec(const llvm::json::Value &value,
                                                 llvm::StringRef origin) {
  Reader r(origin);
  const llvm::json::Object *o = value.getAsObject();
  if (!o)
    return r.error("$", "expected an object");
  SystemSpec s;
  if (const llvm::json::Value *base = o->get("base")) {
    auto name = base->getAsString();
    if (!name)
      return r.error("base", "expected a string");
    const SystemSpec *preset = lookupSystemPreset(*name);
    if (!preset)
      return r.error("base", "unknown system preset '" + *name + "'");
    s = *preset;
  }
  for (const auto &kv : *o) {
    llvm::StringRef key = kv.first;
    const llvm::json::Value &v = kv.second;
    double d = 0;
    if (key == "base")
      continue;
    if (key == "name" || key == "source") {
      auto str = v.getAsString();
      if (!str)
        return r.error(key, "expected a string");
      (key == "name" ? s.name : s.source) = str->str();
    } else if (key == "nodes") {
      if (auto e = r.count(v, key, s.nodes))
        return std::move(e);
    } else if (key == "gpus_per_node") {
      if (auto e = r.count(v, key, s.gpusPerNode))
        return std::move(e);
    } else if (key == "intra_node_domain") {
      if (auto e = r.count(v, key, s.intraNodeDomain))
        return std::move(e);
    } else if (key == "nics_per_node") {
      if (auto e = r.count(v, key, s.nicsPerNode))
        return std::move(e);
    } else if (key == "efficiency") {
      if (auto e = r.number(v, key, d))
        return std::move(e);
      s.efficiency = d;
    } else if (key == "nvswitch") {
      if (auto e = r.boolean(v, key, s.nvSwitch))
        return std::move(e);
    } else if (key == "collnet") {
      if (auto e = r.boolean(v, key, s.collNet))
        return std::move(e);
    } else if (key == "compute_capability") {
      if (auto e = r.count(v, key, s.compCap))
        return std::move(e);
    } else if (key == "calibration") {
      if (auto e = r.calibration(v, s))
        return std::move(e);
    } else if (key == "gpu") {
      if (auto name = v.getAsString()) {
        const GpuSpec *g = lookupGpu(*name);
        if (!g)
          return r.error(key, "unknown GPU '" + *name + "'");
        s.gpu = *g;
      } else if (v.getAsObject()) {
        auto g = parseGpuSpec(v);
        if (!g)
          return r.error(key, llvm::toString(g.takeError()));
        s.gpu = std::move(*g);
      } else {
        return r.error(key, "expected a GPU name or a device object");
      }
    } else if (key == "intra_node" || key == "inter_node" ||
               key == "host_pcie") {
      LinkSpec &link = key == "intra_node"   ? s.intraNode
                       : key == "inter_node" ? s.interNode
                                             : s.hostPcie;
      if (auto e = r.link(v, key.str(), link))
        return std::move(e);
    } else {
      return r.error(key, "unknown key '" + key + "'");
    }
  }
  if (s.name.empty())
    return r.error("name", "missing system name");
  if (auto e = s.validate())
    return llvm::createStringError(origin + ": " +
                                   llvm::toString(std::move(e)));
  return s;
}

/// The line of the JSON path an error names ("at 'a.b.c'") in `text`: each
/// component's `"key"` searched after the previous one's (llvm::json keeps
/// no source locations).
static unsigned lineOfKey(llvm::StringRef text, llvm::StringRef message) {
  size_t q1 = message.find("at '");
  if (q1 == llvm::StringRef::npos)
    return 0;
  q1 += 3;
  size_t q2 = message.find("'", q1 + 1);
  llvm::SmallVector<llvm::StringRef> keys;
  message.slice(q1 + 1, q2).split(keys, '.');
  size_t at = 0;
  for (llvm::StringRef key : keys) {
    size_t found = text.find(("\"" + key + "\"").str(), at);
    if (found == llvm::StringRef::npos)
      return 0;
    at = found;
  }
  return 1 + text.take_front(at).count('\n');
}

/// llvm::json's "[line:col, byte=N]: what" as "path:line:col: what", with a
/// word on the numbers JSON cannot spell (Python writes NaN and Infinity).
static std::string jsonSyntaxError(llvm::StringRef path, llvm::StringRef text,
                                   llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  llvm::StringRef m = message;
  unsigned line = 0, col = 0;
  size_t byte = 0;
  if (m.consume_front("[") && !m.consumeInteger(10, line) &&
      m.consume_front(":") && !m.consumeInteger(10, col) &&
      m.consume_front(", byte=") && !m.consumeInteger(10, byte) &&
      m.consume_front("]: ")) {
    std::string out =
        (path + ":" + llvm::Twine(line) + ":" + llvm::Twine(col) + ": " + m)
            .str();
    // The token where the parser stopped, from line and column (1-based).
    llvm::StringRef rest = text;
    for (unsigned l = 1; l < line && !rest.empty(); ++l)
      rest = rest.split('\n').second;
    rest = rest.drop_front(col > 0 ? col - 1 : 0);
    for (llvm::StringRef bad : {"NaN", "Infinity", "-Infinity", "nan", "inf"})
      if (rest.starts_with(bad))
        return out + " (" + bad.str() +
               " is not a JSON number: latencies and bandwidths must be "
               "finite)";
    return out;
  }
  return (path + ": " + message).str();
}

llvm::Expected<SystemSpec> perf::loadSystemSpec(llvm::StringRef presetOrPath) {
  if (const SystemSpec *preset = lookupSystemPreset(presetOrPath))
    return *preset;
  auto buf = llvm::MemoryBuffer::getFile(presetOrPath);
  if (!buf)
    return llvm::createStringError(
        presetOrPath +
        ": not a system preset and not readable: " + buf.getError().message());
  llvm::StringRef text = (*buf)->getBuffer();
  auto json = llvm::json::parse(text);
  if (!json)
    return llvm::createStringError(
        jsonSyntaxError(presetOrPath, text, json.takeError()));
  auto spec = parseSystemSpec(*json, presetOrPath);
  if (!spec) {
    std::string msg = llvm::toString(spec.takeError());
    if (unsigned line = lineOfKey(text, msg.substr(presetOrPath.size())))
      msg = presetOrPath.str() + ":" + std::to_string(line) +
            msg.substr(presetOrPath.size());
    return llvm::createStringError(msg);
  }
  return spec;
}

static llvm::json::Value linkToJson(const LinkSpec &l) {
  llvm::json::Object o{{"kind", linkKindName(l.kind)},
                       {"bandwidth_gbs", l.bandwidth / GB},
                       {"latency_us", l.latencyUs}};
  if (l.efficiency)
    o["efficiency"] = *l.efficiency;
  return o;
}

llvm::json::Object perf::calibrationToJson(const SystemSpec &s) {
  llvm::json::Object calibration;
  for (unsigned k = 0; k < 6; ++k) {
    llvm::json::Object byFabric;
    for (unsigned f = 0; f < kNumFabrics; ++f)
      if (const std::optional<CollectiveCalibration> &c = s.calibration[k][f]) {
        llvm::json::Object entry{
            {"bandwidth_efficiency", c->bandwidthEfficiency},
            {"latency_scale", c->latencyScale},
            {"latency_offset_us", c->latencyOffsetUs},
            {"points", int64_t(c->points)}};
        if (!c->source.empty())
          entry["source"] = c->source;
        byFabric[fabricName(Fabric(f))] = std::move(entry);
      }
    if (!byFabric.empty())
      calibration[collectiveKindName(CollectiveKind(k))] = std::move(byFabric);
  }
  return calibration;
}

llvm::json::Value perf::toJson(const SystemSpec &s) {
  llvm::json::Object o{{"name", s.name},
                       {"nodes", int64_t(s.nodes)},
                       {"gpus_per_node", int64_t(s.gpusPerNode)},
                       {"intra_node", linkToJson(s.intraNode)},
                       {"intra_node_domain", int64_t(s.intraNodeDomain)},
                       {"inter_node", linkToJson(s.interNode)},
                       {"nics_per_node", int64_t(s.nicsPerNode)},
                       {"host_pcie", linkToJson(s.hostPcie)},
                       {"efficiency", s.efficiency}};
  if (!s.source.empty())
    o["source"] = s.source;
  if (s.nvSwitch)
    o["nvswitch"] = true;
  if (s.collNet)
    o["collnet"] = true;
  if (s.compCap)
    o["compute_capability"] = int64_t(s.compCap);
  llvm::json::Object calibration = calibrationToJson(s);
  if (!calibration.empty())
    o["calibration"] = std::move(calibration);
  // A catalog GPU is written by name; a custom or modified one inline.
  const GpuSpec *known = lookupGpu(s.gpu.name);
  if (known && toJson(*known) == toJson(s.gpu))
    o["gpu"] = s.gpu.name;
  else
    o["gpu"] = toJson(s.gpu);
  return o;
}
