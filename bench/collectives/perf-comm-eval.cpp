//===- perf-comm-eval.cpp - Collective model against measured NCCL times --===//
//
// Reads the NCCL timings microsoft/vidur measured (<data>/<system>/
// {all_reduce,send_recv}.csv.gz: median kernel time in ms per message size in
// bytes, GPU count and GPUs per node), prices each row with the collective
// model on the system described by bench/collectives/systems/<system>.json,
// and prints the mean absolute percentage error per system, collective, group
// shape and message size band, as Markdown.
//
// --calibrate fits each system's NVLink-domain and inter-node link (alpha and
// achieved bandwidth, least squares on relative error) to its send_recv
// measurements only, then scores all_reduce, which the fit never saw: the
// send_recv rows are in-sample, the all_reduce rows held out.
//
//===----------------------------------------------------------------------===//

#include "perf/Comm/CollectiveModel.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <map>
#include <zlib.h>

using namespace perf;
namespace cl = llvm::cl;

static cl::opt<std::string>
    dataDir("data", cl::desc("Directory of <system>/<collective>.csv.gz"),
            cl::init(PERF_SOURCE_DIR "/../shared/data/collectives"));
static cl::opt<std::string>
    systemsDir("systems", cl::desc("Directory of <system>.json"),
               cl::init(PERF_SOURCE_DIR "/bench/collectives/systems"));
static cl::opt<bool> calibrate(
    "calibrate",
    cl::desc("Fit link alpha/bandwidth to send_recv and score all_reduce"));
static cl::list<std::string> onlySystems("system",
                                         cl::desc("Evaluate only these"));

namespace {
struct Sample {
  unsigned workers, perNode;
  double bytes, measuredUs;
};
struct Fit {
  double alphaUs = 0, bandwidth = 0;
  unsigned points = 0;
};
} // namespace

/// Rows of one gzipped vidur CSV; false if the file is absent.
static bool readSamples(const std::string &path, std::vector<Sample> &samples) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f)
    return false;
  std::string text;
  char buf[1 << 16];
  int got;
  while ((got = gzread(f, buf, sizeof(buf))) > 0)
    text.append(buf, got);
  gzclose(f);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n', -1, false);
  if (lines.empty())
    return true;
  llvm::SmallVector<llvm::StringRef> header;
  lines[0].split(header, ',');
  int median = -1, workers = -1, perNode = -1, size = -1;
  for (int i = 0, e = header.size(); i < e; ++i) {
    if (header[i].ends_with(".median"))
      median = i;
    else if (header[i] == "num_workers")
      workers = i;
    else if (header[i] == "devices_per_node")
      perNode = i;
    else if (header[i] == "size")
      size = i;
  }
  if (median < 0 || workers < 0 || perNode < 0 || size < 0) {
    llvm::errs() << path << ":1: missing a median, num_workers, "
                 << "devices_per_node or size column\n";
    return false;
  }
  for (size_t l = 1; l < lines.size(); ++l) {
    llvm::SmallVector<llvm::StringRef> cols;
    lines[l].split(cols, ',');
    Sample s;
    double ms = 0;
    if (cols.size() != header.size() ||
        cols[workers].getAsInteger(10, s.workers) ||
        cols[perNode].getAsInteger(10, s.perNode) ||
        cols[size].getAsDouble(s.bytes) || cols[median].getAsDouble(ms)) {
      llvm::errs() << path << ":" << l + 1 << ": malformed row\n";
      return false;
    }
    s.measuredUs = ms * 1000;
    samples.push_back(s);
  }
  return true;
}

/// t = alpha + bytes / B, minimizing the squared relative error (weights
/// 1/t^2), alpha clamped at zero.
static Fit fitAlphaBeta(const std::vector<Sample> &samples) {
  double sw = 0, swx = 0, swxx = 0, swt = 0, swxt = 0;
  for (const Sample &s : samples) {
    double w = 1 / (s.measuredUs * s.measuredUs);
    sw += w;
    swx += w * s.bytes;
    swxx += w * s.bytes * s.bytes;
    swt += w * s.measuredUs;
    swxt += w * s.bytes * s.measuredUs;
  }
  Fit f;
  f.points = samples.size();
  double det = sw * swxx - swx * swx;
  if (samples.size() < 2 || det == 0)
    return f;
  double alpha = (swt * swxx - swx * swxt) / det;
  double slope = (sw * swxt - swx * swt) / det; // us per byte
  if (alpha < 0) {
    alpha = 0;
    slope = swxt / swxx;
  }
  f.alphaUs = alpha;
  f.bandwidth = slope > 0 ? 1e6 / slope : 0;
  return f;
}

namespace {
struct Errors {
  // Size bands: < 1 MiB, 1-16 MiB, >= 16 MiB, all.
  double sum[4] = {0, 0, 0, 0};
  unsigned n[4] = {0, 0, 0, 0};
  void add(double bytes, double ape) {
    int band = bytes < (1 << 20) ? 0 : bytes < (16 << 20) ? 1 : 2;
    sum[band] += ape;
    ++n[band];
    sum[3] += ape;
    ++n[3];
  }
  std::string cell(int band) const {
    if (!n[band])
      return "-";
    return llvm::formatv("{0:F1}%", 100 * sum[band] / n[band]).str();
  }
};
} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "collective model vs measured NCCL times\n");
  std::vector<std::string> systems;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dataDir, ec), end; it != end && !ec;
       it.increment(ec))
    systems.push_back(llvm::sys::path::filename(it->path()).str());
  if (ec || systems.empty()) {
    llvm::errs() << dataDir << ": no measurements (" << ec.message() << ")\n";
    return 1;
  }
  llvm::sort(systems);

  llvm::outs() << "| system | collective | GPUs | per node | link | sizes | "
                  "< 1 MiB | 1-16 MiB | >= 16 MiB | all | at 64 MiB: "
                  "measured / model (us), algorithm |\n"
               << "|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::map<std::string, Errors> totals;
  for (const std::string &name : systems) {
    if (!onlySystems.empty() &&
        llvm::find(onlySystems, name) == onlySystems.end())
      continue;
    std::string specPath = systemsDir + "/" + name + ".json";
    auto loaded = loadSystemSpec(specPath);
    if (!loaded) {
      llvm::errs() << llvm::toString(loaded.takeError()) << "\n";
      return 1;
    }
    SystemSpec system = *loaded;
    std::map<std::string, std::vector<Sample>> byCollective;
    for (const char *c : {"all_reduce", "send_recv"}) {
      std::vector<Sample> samples;
      if (readSamples(dataDir + "/" + name + "/" + c + ".csv.gz", samples))
        byCollective[c] = std::move(samples);
    }

    if (calibrate) {
      // The two GPUs of a send_recv sit in one NVLink domain (perNode 2) or
      // on two nodes (perNode 1).
      std::vector<Sample> local, remote;
      for (const Sample &s : byCollective["send_recv"])
        (s.perNode == 1 ? remote : local).push_back(s);
      Fit intra = fitAlphaBeta(local), inter = fitAlphaBeta(remote);
      if (intra.bandwidth > 0) {
        system.intraNode.latencyUs = intra.alphaUs;
        system.intraNode.bandwidth = intra.bandwidth;
        system.intraNode.efficiency = 1.0;
      }
      if (inter.bandwidth > 0) {
        system.interNode.latencyUs = inter.alphaUs;
        system.interNode.bandwidth = inter.bandwidth;
        system.interNode.efficiency = 1.0;
      }
      llvm::errs() << llvm::formatv(
          "{0}: fitted intra-domain alpha {1:F1} us, {2:F1} GB/s ({3} "
          "points); inter-node alpha {4:F1} us, {5:F2} GB/s ({6} points)\n",
          name, intra.alphaUs, intra.bandwidth / 1e9, intra.points,
          inter.alphaUs, inter.bandwidth / 1e9, inter.points);
    }

    for (auto &[collective, samples] : byCollective) {
      CollectiveKind kind = *parseCollectiveKind(collective);
      std::map<std::pair<unsigned, unsigned>, Errors> groups;
      std::map<std::pair<unsigned, unsigned>, std::string> at64;
      for (const Sample &s : samples) {
        RankPlacement p = packRanks(s.workers, system, s.perNode);
        CollectiveEstimate e = estimateCollective(kind, s.bytes, p, system);
        double ape = std::fabs(e.timeUs - s.measuredUs) / s.measuredUs;
        groups[{s.workers, s.perNode}].add(s.bytes, ape);
        totals[collective +
               (calibrate && collective == "send_recv" ? " (in-sample)" : "")]
            .add(s.bytes, ape);
        if (s.bytes == 64 << 20)
          at64[{s.workers, s.perNode}] =
              llvm::formatv("{0:F0} / {1:F0}, {2}", s.measuredUs, e.timeUs,
                            collectiveAlgorithmName(e.algorithm));
      }
      for (auto &[shape, err] : groups) {
        RankPlacement p = packRanks(shape.first, system, shape.second);
        const char *link = p.numNodes > 1   ? "network"
                           : p.spansDomains ? "PCIe"
                                            : "NVLink";
        llvm::outs() << "| " << name << " | " << collective << " | "
                     << shape.first << " | " << shape.second << " | " << link
                     << " | " << err.n[3] << " | " << err.cell(0) << " | "
                     << err.cell(1) << " | " << err.cell(2) << " | "
                     << err.cell(3) << " | " << at64[shape] << " |\n";
      }
    }
  }
  llvm::outs() << "\n| collective | sizes | < 1 MiB | 1-16 MiB | >= 16 MiB "
                  "| all |\n|---|---|---|---|---|---|\n";
  for (auto &[collective, err] : totals)
    llvm::outs() << "| " << collective << " | " << err.n[3] << " | "
                 << err.cell(0) << " | " << err.cell(1) << " | " << err.cell(2)
                 << " | " << err.cell(3) << " |\n";
  return 0;
}
