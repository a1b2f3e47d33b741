//===- perf-comm-eval.cpp - Collective model against measured NCCL times --===//
//
// Reads measured NCCL times (<data>/<system>/<collective>.csv[.gz], the
// microsoft/vidur tables: median kernel time in ms per message size in
// bytes, GPU count and GPUs per node), prices every row with the collective
// model on the system of bench/collectives/systems/<system>.json, fits the
// calibration of every (system, collective, fabric) and scores:
//
//   NCCL alone   NCCL's figures, no calibration;
//   train        the calibration fitted on all the rows it is scored on;
//   held out,    leave-one-system-out: the (system, collective, fabric) is
//   systems      priced by a calibration fitted on the other systems' rows
//                of that collective and fabric (where no other system has
//                any, on the system's own send_recv over the fabric);
//   held out,    leave-one-size-band-out: fitted on the system's other size
//   sizes        bands (< 1 MiB, 1-16 MiB, >= 16 MiB) of the same rows.
//
// --write stores the fitted calibrations in the system files: measured
// (collective, fabric) pairs get their own fit, the others the fit over the
// systems that have them (the leave-one-system-out rule). The output is the
// Markdown of docs/distributed.md's tables (bench/collectives/update-docs.sh
// splices it in).
//
//===----------------------------------------------------------------------===//

#include "perf/Comm/CollectiveCalibration.h"
#include "perf/Comm/CollectiveModel.h"
#include "perf/Support/Version.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <map>
#include <optional>
#include <zlib.h>

using namespace perf;
namespace cl = llvm::cl;

static cl::OptionCategory category("perf-comm-eval options");
static cl::opt<std::string>
    dataDir("data", cl::desc("Directory of <system>/<collective>.csv[.gz]"),
            cl::init(PERF_SOURCE_DIR "/../shared/data/collectives"),
            cl::cat(category));
static cl::opt<std::string>
    systemsDir("systems", cl::desc("Directory of <system>.json"),
               cl::init(PERF_SOURCE_DIR "/bench/collectives/systems"),
               cl::cat(category));
static cl::list<std::string>
    onlySystems("system", cl::desc("Evaluate only these"), cl::cat(category));
static cl::opt<bool>
    writeCalibration("write",
                     cl::desc("Store the fitted calibrations in the system "
                              "files"),
                     cl::cat(category));

namespace {
/// One measured row.
struct Row {
  unsigned workers = 0, perNode = 0;
  double bytes = 0, measuredUs = 0;
};

/// A row priced by NCCL's figures on its system.
struct Priced {
  std::string system;
  CollectiveKind kind = CollectiveKind::AllReduce;
  Fabric fabric = Fabric::NVLink;
  Row row;
  CalibrationPoint point;
  CollectiveEstimate nccl;
};

/// Size bands of the tables: < 1 MiB, 1-16 MiB, >= 16 MiB.
constexpr unsigned kNumBands = 3;
unsigned bandOf(double bytes) {
  return bytes < (1 << 20) ? 0 : bytes < (16 << 20) ? 1 : 2;
}
constexpr const char *kBandNames[kNumBands] = {"< 1 MiB", "1-16 MiB",
                                               ">= 16 MiB"};

/// Mean absolute percentage error per band, >= 1 MiB and over all.
struct Errors {
  double sum[kNumBands] = {};
  unsigned n[kNumBands] = {};
  void add(double bytes, double predicted, double measured) {
    unsigned b = bandOf(bytes);
    sum[b] += std::fabs(predicted - measured) / measured;
    ++n[b];
  }
  std::string cell(double s, unsigned count) const {
    if (!count)
      return "-";
    return llvm::formatv("{0:F1}%", 100 * s / count).str();
  }
  std::string band(unsigned b) const { return cell(sum[b], n[b]); }
  std::string large() const { return cell(sum[1] + sum[2], n[1] + n[2]); }
  std::string all() const {
    return cell(sum[0] + sum[1] + sum[2], n[0] + n[1] + n[2]);
  }
  unsigned count() const { return n[0] + n[1] + n[2]; }
};

/// The four ways a row is scored.
enum Scheme { NcclAlone, Train, HeldOutSystem, HeldOutBand, kNumSchemes };
constexpr const char *kSchemeNames[kNumSchemes] = {
    "NCCL alone", "train", "held out: systems", "held out: sizes"};

using GroupKey = std::tuple<std::string, CollectiveKind, Fabric>;
} // namespace

static llvm::Error rowError(const std::string &path, size_t line,
                            const llvm::Twine &what) {
  return llvm::createStringError(path + ":" + llvm::Twine(line) + ": " + what);
}

/// The rows of one table (gzip or plain CSV).
static llvm::Expected<std::vector<Row>> readTable(const std::string &path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f)
    return llvm::createStringError(path + ": cannot open");
  std::string text;
  char buf[1 << 16];
  int got;
  while ((got = gzread(f, buf, sizeof(buf))) > 0)
    text.append(buf, got);
  bool failed = got < 0;
  gzclose(f);
  if (failed)
    return llvm::createStringError(path + ": not a readable gzip or CSV file");
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n', -1, false);
  if (lines.empty())
    return llvm::createStringError(path + ": empty");
  llvm::SmallVector<llvm::StringRef> header;
  lines[0].trim().split(header, ',');
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
  if (median < 0 || workers < 0 || perNode < 0 || size < 0)
    return rowError(path, 1,
                    "missing a *.median, num_workers, devices_per_node or "
                    "size column");
  std::vector<Row> rows;
  for (size_t l = 1; l < lines.size(); ++l) {
    llvm::SmallVector<llvm::StringRef> cols;
    lines[l].trim().split(cols, ',');
    Row r;
    double ms = 0;
    if (cols.size() != header.size() ||
        cols[workers].getAsInteger(10, r.workers) ||
        cols[perNode].getAsInteger(10, r.perNode) ||
        cols[size].getAsDouble(r.bytes) || cols[median].getAsDouble(ms))
      return rowError(path, l + 1, "malformed row");
    if (!(ms > 0) || !(r.bytes > 0) || r.workers < 1 || r.perNode < 1)
      return rowError(path, l + 1,
                      "time, size, num_workers and devices_per_node must be "
                      "positive");
    r.measuredUs = ms * 1000;
    rows.push_back(r);
  }
  return rows;
}

/// Every table of every system directory, priced with NCCL's figures.
static llvm::Error loadAll(std::map<std::string, SystemSpec> &systems,
                           std::map<std::string, std::string> &systemFiles,
                           std::vector<Priced> &priced) {
  std::vector<std::string> names;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dataDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_directory(it->path()))
      names.push_back(llvm::sys::path::filename(it->path()).str());
  if (ec || names.empty())
    return llvm::createStringError(dataDir + ": no measurements (" +
                                   ec.message() + ")");
  llvm::sort(names);
  for (const std::string &name : names) {
    if (!onlySystems.empty() &&
        llvm::find(onlySystems, name) == onlySystems.end())
      continue;
    std::string specPath = systemsDir + "/" + name + ".json";
    auto spec = loadSystemSpec(specPath);
    if (!spec)
      return spec.takeError();
    SystemSpec bare = *spec;
    for (auto &byFabric : bare.calibration)
      for (auto &c : byFabric)
        c.reset();
    systems[name] = *spec;
    systemFiles[name] = specPath;

    std::vector<std::string> tables;
    for (llvm::sys::fs::directory_iterator it(dataDir + "/" + name, ec), end;
         it != end && !ec; it.increment(ec))
      tables.push_back(it->path());
    llvm::sort(tables);
    for (const std::string &path : tables) {
      llvm::StringRef file = llvm::sys::path::filename(path);
      llvm::StringRef stem = file;
      if (!stem.consume_back(".csv.gz") && !stem.consume_back(".csv"))
        continue;
      std::optional<CollectiveKind> kind = parseCollectiveKind(stem);
      if (!kind)
        return llvm::createStringError(path + ": unknown collective '" + stem +
                                       "'");
      auto rows = readTable(path);
      if (!rows)
        return rows.takeError();
      for (size_t i = 0; i < rows->size(); ++i) {
        const Row &r = (*rows)[i];
        if (r.perNode > bare.gpusPerNode || r.workers > bare.numGpus())
          return rowError(
              path, i + 2,
              llvm::Twine(r.workers) + " GPUs, " + llvm::Twine(r.perNode) +
                  " per node, do not fit system '" + name + "' of " + specPath);
        RankPlacement p = packRanks(r.workers, bare, r.perNode);
        auto e = estimateCollective(*kind, r.bytes, p, bare);
        if (!e)
          return rowError(path, i + 2, llvm::toString(e.takeError()));
        Priced q;
        q.system = name;
        q.kind = *kind;
        q.fabric = fabricOf(p, bare);
        q.row = r;
        q.nccl = *e;
        q.point = {r.bytes, r.measuredUs, e->latencyUs, e->bandwidthGBs};
        priced.push_back(q);
      }
    }
  }
  return llvm::Error::success();
}

/// The sum of absolute percentage errors of the best constant for `times`
/// (the median weighted by 1 / t minimizes it).
static double bestConstantErrors(std::vector<double> times) {
  llvm::sort(times);
  double total = 0, half = 0;
  for (double t : times)
    total += 1 / t;
  double best = times.empty() ? 0 : times.back();
  for (double t : times) {
    half += 1 / t;
    if (half >= total / 2) {
      best = t;
      break;
    }
  }
  double sum = 0;
  for (double t : times)
    sum += std::fabs(best - t) / t;
  return sum;
}

static std::vector<CalibrationPoint>
pointsOf(const std::vector<Priced> &rows, llvm::ArrayRef<size_t> which,
         std::optional<unsigned> skipBand = std::nullopt) {
  std::vector<CalibrationPoint> out;
  for (size_t i : which)
    if (!skipBand || bandOf(rows[i].row.bytes) != *skipBand)
      out.push_back(rows[i].point);
  return out;
}

/// Writes the calibrations into the system file: its other keys stay, in
/// the order the file has them, "calibration" last, its figures to four
/// significant digits (the fit's noise is not worth keeping; the change is
/// well under 0.1% of any time).
static llvm::Error writeSystemFile(const std::string &path,
                                   const SystemSpec &spec) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return llvm::createStringError(path + ": " + buf.getError().message());
  llvm::StringRef text = (*buf)->getBuffer();
  auto json = llvm::json::parse(text);
  if (!json)
    return llvm::createStringError(path + ": " +
                                   llvm::toString(json.takeError()));
  llvm::json::Object *o = json->getAsObject();
  if (!o)
    return llvm::createStringError(path + ": not a JSON object");
  std::vector<std::pair<size_t, std::string>> keys;
  for (const auto &kv : *o)
    if (kv.first != "calibration")
      keys.push_back(
          {text.find(("\"" + llvm::StringRef(kv.first) + "\"").str()),
           kv.first.str()});
  llvm::sort(keys);

  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec);
  if (ec)
    return llvm::createStringError(path + ": " + ec.message());
  llvm::json::OStream j(file, 2);
  auto figure = [&](llvm::StringRef key, double x) {
    j.attributeBegin(key);
    j.rawValue(llvm::formatv("{0}", llvm::format("%.4g", x)).str());
    j.attributeEnd();
  };
  j.object([&] {
    for (auto &[at, key] : keys)
      j.attribute(key, *o->get(key));
    j.attributeObject("calibration", [&] {
      for (unsigned k = 0; k < 6; ++k) {
        bool any = false;
        for (const auto &c : spec.calibration[k])
          any |= c.has_value();
        if (!any)
          continue;
        j.attributeObject(collectiveKindName(CollectiveKind(k)), [&] {
          for (unsigned f = 0; f < kNumFabrics; ++f) {
            const std::optional<CollectiveCalibration> &c =
                spec.calibration[k][f];
            if (!c)
              continue;
            j.attributeObject(fabricName(Fabric(f)), [&] {
              figure("latency_scale", c->latencyScale);
              figure("latency_offset_us", c->latencyOffsetUs);
              figure("bandwidth_efficiency", c->bandwidthEfficiency);
              j.attribute("points", int64_t(c->points));
              j.attribute("source", c->source);
            });
          }
        });
      }
    });
  });
  file << "\n";
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  perf::setVersionPrinter("perf-comm-eval");
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "perf-comm-eval: the collective model against measured NCCL times\n\n"
      "  perf-comm-eval                 the tables of docs/distributed.md\n"
      "  perf-comm-eval --write         refit the calibrations into the "
      "system files\n");
  std::map<std::string, SystemSpec> systems;
  std::map<std::string, std::string> systemFiles;
  std::vector<Priced> rows;
  if (auto err = loadAll(systems, systemFiles, rows)) {
    llvm::errs() << llvm::toString(std::move(err)) << "\n";
    return 1;
  }

  // Rows per (system, collective, fabric).
  std::map<GroupKey, std::vector<size_t>> groups;
  for (size_t i = 0; i < rows.size(); ++i)
    groups[{rows[i].system, rows[i].kind, rows[i].fabric}].push_back(i);

  // Fits: on all of a group's rows; on the other systems' rows of the same
  // collective and fabric; on the group's rows outside each size band.
  std::map<GroupKey, CollectiveCalibration> train;
  std::map<GroupKey, std::optional<CollectiveCalibration>> heldOutSystem;
  std::map<GroupKey, std::optional<CollectiveCalibration>>
      heldOutBand[kNumBands];
  for (auto &[key, which] : groups) {
    auto &[system, kind, fabric] = key;
    train[key] = fitCollectiveCalibration(pointsOf(rows, which));
    train[key].source = "fitted on " + std::to_string(which.size()) +
                        " measured " + collectiveKindName(kind).str() +
                        " times over " + fabricName(fabric).str();
    std::vector<size_t> others;
    std::string from;
    for (auto &[otherKey, otherRows] : groups)
      if (std::get<0>(otherKey) != system && std::get<1>(otherKey) == kind &&
          std::get<2>(otherKey) == fabric) {
        others.insert(others.end(), otherRows.begin(), otherRows.end());
        from += (from.empty() ? "" : ", ") + std::get<0>(otherKey);
      }
    if (others.empty() && kind != CollectiveKind::SendRecv) {
      auto own = groups.find({system, CollectiveKind::SendRecv, fabric});
      if (own != groups.end()) {
        others = own->second;
        from = system + " send_recv";
      }
    }
    if (!others.empty()) {
      heldOutSystem[key] = fitCollectiveCalibration(pointsOf(rows, others));
      heldOutSystem[key]->source = "fitted on " + from;
    }
    for (unsigned b = 0; b < kNumBands; ++b) {
      auto points = pointsOf(rows, which, b);
      if (!points.empty())
        heldOutBand[b][key] = fitCollectiveCalibration(points);
    }
  }

  // Score every row four ways; totals per collective and per group shape.
  using ShapeKey = std::tuple<std::string, CollectiveKind, unsigned, unsigned>;
  std::map<ShapeKey, Errors[kNumSchemes]> byShape;
  std::map<ShapeKey, std::string> at64MiB;
  std::map<CollectiveKind, Errors[kNumSchemes]> byKind;
  for (const Priced &r : rows) {
    GroupKey key{r.system, r.kind, r.fabric};
    double predicted[kNumSchemes];
    predicted[NcclAlone] = r.nccl.timeUs;
    predicted[Train] = calibratedTimeUs(train[key], r.point);
    const auto &sys = heldOutSystem[key];
    predicted[HeldOutSystem] =
        sys ? calibratedTimeUs(*sys, r.point) : r.nccl.timeUs;
    const auto &band = heldOutBand[bandOf(r.row.bytes)][key];
    predicted[HeldOutBand] =
        band ? calibratedTimeUs(*band, r.point) : r.nccl.timeUs;
    ShapeKey shape{r.system, r.kind, r.row.workers, r.row.perNode};
    for (unsigned s = 0; s < kNumSchemes; ++s) {
      byShape[shape][s].add(r.row.bytes, predicted[s], r.row.measuredUs);
      byKind[r.kind][s].add(r.row.bytes, predicted[s], r.row.measuredUs);
    }
    if (r.row.bytes == (64 << 20))
      at64MiB[shape] = llvm::formatv(
          "{0:F0} / {1:F0} / {2:F0}, {3}/{4}", r.row.measuredUs, r.nccl.timeUs,
          predicted[Train], collectiveAlgorithmName(r.nccl.algorithm),
          collectiveProtocolName(r.nccl.protocol));
  }

  // The noise floor below 1 MiB: the error of the best constant per
  // factor-of-two size window, an oracle that sees the rows it scores.
  std::map<ShapeKey, std::map<int, std::vector<double>>> windows;
  for (const Priced &r : rows)
    if (bandOf(r.row.bytes) == 0)
      windows[{r.system, r.kind, r.row.workers, r.row.perNode}]
             [int(std::floor(std::log2(r.row.bytes)))]
                 .push_back(r.row.measuredUs);
  std::map<ShapeKey, Errors> floorByShape;
  std::map<CollectiveKind, Errors> floorByKind;
  for (auto &[shape, byWindow] : windows) {
    Errors &e = floorByShape[shape];
    Errors &k = floorByKind[std::get<1>(shape)];
    for (auto &[w, times] : byWindow) {
      double sum = bestConstantErrors(times);
      e.sum[0] += sum;
      e.n[0] += times.size();
      k.sum[0] += sum;
      k.n[0] += times.size();
    }
  }

  llvm::raw_ostream &os = llvm::outs();
  os << "### Error per system and group (MAPE; train = fitted on these "
        "rows, held out = fitted without them)\n\n"
     << "| system | collective | GPUs | per node | fabric | sizes | NCCL "
        "alone | noise floor < 1 MiB | train < 1 MiB | train >= 1 MiB | held "
        "out (systems) < 1 "
        "MiB | held out (systems) >= 1 MiB | held out (sizes) < 1 MiB | "
        "held out (sizes) >= 1 MiB | at 64 MiB: measured / NCCL / "
        "calibrated (us), NCCL's choice |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (auto &[shape, err] : byShape) {
    auto &[system, kind, workers, perNode] = shape;
    RankPlacement p = packRanks(workers, systems[system], perNode);
    os << "| " << system << " | " << collectiveKindName(kind) << " | "
       << workers << " | " << perNode << " | "
       << fabricName(fabricOf(p, systems[system])) << " | "
       << err[NcclAlone].count() << " | " << err[NcclAlone].all() << " | "
       << floorByShape[shape].band(0) << " | " << err[Train].band(0) << " | "
       << err[Train].large() << " | " << err[HeldOutSystem].band(0) << " | "
       << err[HeldOutSystem].large() << " | " << err[HeldOutBand].band(0)
       << " | " << err[HeldOutBand].large() << " | "
       << (at64MiB.count(shape) ? at64MiB[shape] : "-") << " |\n";
  }
  os << "\n### Error per collective\n\n"
     << "| collective | scored as | sizes |";
  for (const char *b : kBandNames)
    os << " " << b << " |";
  os << " >= 1 MiB | all |\n|---|---|---|---|---|---|---|---|\n";
  for (auto &[kind, err] : byKind)
    for (unsigned s = 0; s < kNumSchemes; ++s) {
      os << "| " << collectiveKindName(kind) << " | " << kSchemeNames[s]
         << " | " << err[s].count() << " |";
      for (unsigned b = 0; b < kNumBands; ++b)
        os << " " << err[s].band(b) << " |";
      os << " " << err[s].large() << " | " << err[s].all() << " |\n";
    }
  for (auto &[kind, err] : floorByKind)
    os << "| " << collectiveKindName(kind)
       << " | noise floor: best constant per 2x size window | " << err.count()
       << " | " << err.band(0) << " | - | - | - | - |\n";
  os << "\n### Fitted calibrations\n\n"
     << "| system | collective | fabric | rows | latency scale | latency "
        "offset (us) | bandwidth efficiency | held out (systems): scale / "
        "offset / efficiency, from |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  for (auto &[key, c] : train) {
    const auto &h = heldOutSystem[key];
    os << "| " << std::get<0>(key) << " | "
       << collectiveKindName(std::get<1>(key)) << " | "
       << fabricName(std::get<2>(key)) << " | " << c.points << " | "
       << llvm::formatv("{0:F3} | {1:F2} | {2:F3}", c.latencyScale,
                        c.latencyOffsetUs, c.bandwidthEfficiency)
       << " | "
       << (h ? llvm::formatv("{0:F3} / {1:F2} / {2:F3}, {3}", h->latencyScale,
                             h->latencyOffsetUs, h->bandwidthEfficiency,
                             h->source)
                   .str()
             : std::string("NCCL alone"))
       << " |\n";
  }

  if (writeCalibration) {
    // Each system gets its own fits and, for a collective and fabric it has
    // no rows of but can run, the fit over the systems that have them.
    std::map<std::pair<CollectiveKind, Fabric>, std::vector<size_t>> pooled;
    for (auto &[key, which] : groups)
      pooled[{std::get<1>(key), std::get<2>(key)}].insert(
          pooled[{std::get<1>(key), std::get<2>(key)}].end(), which.begin(),
          which.end());
    for (auto &[name, spec] : systems) {
      SystemSpec out = spec;
      for (auto &byFabric : out.calibration)
        for (auto &c : byFabric)
          c.reset();
      for (auto &[kf, which] : pooled) {
        auto [kind, fabric] = kf;
        bool can = fabric == Fabric::Network ? out.nodes > 1
                   : fabric == Fabric::PCIe ? out.domainSize() < out.gpusPerNode
                                            : out.gpusPerNode > 1;
        if (!can)
          continue;
        auto own = train.find({name, kind, fabric});
        CollectiveCalibration c;
        if (own != train.end()) {
          c = own->second;
        } else {
          std::vector<size_t> others;
          std::string from;
          for (size_t i : which)
            if (rows[i].system != name) {
              others.push_back(i);
              if (from.find(rows[i].system) == std::string::npos)
                from += (from.empty() ? "" : ", ") + rows[i].system;
            }
          c = fitCollectiveCalibration(pointsOf(rows, others));
          c.source = "no measurements here: fitted on " + from;
          c.points = 0;
        }
        out.calibration[unsigned(kind)][unsigned(fabric)] = c;
      }
      if (auto err = writeSystemFile(systemFiles[name], out)) {
        llvm::errs() << llvm::toString(std::move(err)) << "\n";
        return 1;
      }
      llvm::errs() << "wrote " << systemFiles[name] << "\n";
    }
  }
  return 0;
}
