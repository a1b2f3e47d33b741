//===- perf-bench.cpp - GPU micro-benchmarks for the performance database -===//
//
// Chooses kernels (sweep specs, imported models), skips those the database
// already holds for the device, measures the rest and commits them batch by
// batch; or probes the device's achievable throughput. docs/runtime-bench.md.
//
//===----------------------------------------------------------------------===//

#include "bench/Database.h"
#include "bench/DeviceFile.h"
#include "bench/Runner.h"
#include "bench/Spec.h"
#include "bench/Stats.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace bench;

static const char *kVersion = "perf-bench 0.1";
/// Exit status when a GPU is needed and none is present (ctest's skip code).
static constexpr int kExitNoGpu = 77;

static std::atomic<bool> interrupted{false};
static void onSignal(int) { interrupted = true; }

static void usage() {
  std::fprintf(
      stderr,
      "usage: perf-bench [options]\n"
      "  --spec FILE          sweep spec (JSON); repeatable\n"
      "  --from FILE.mlir     kernels of an imported model; repeatable\n"
      "  --db FILE            performance database (SQLite) to fill\n"
      "  --device-name NAME   device key in the database (default: CUDA name)\n"
      "  --force              measure kernels the database already holds\n"
      "  --dry-run            list what would be measured, measure nothing\n"
      "  --warmup N           warm-up runs per kernel (default 10)\n"
      "  --reps N             timed repetitions per kernel (default 50)\n"
      "  --batch N            results per database transaction (default 16)\n"
      "  --gpu N              CUDA device index (default 0)\n"
      "  --no-cupti           time with CUDA events only\n"
      "  --no-progress        no progress bar\n"
      "  --probe              measure achievable FLOP/s, bandwidth, launch "
      "cost\n"
      "  --probe-out FILE     device JSON for --perf-device-file (default "
      "stdout)\n"
      "  --probe-base NAME    catalog GPU for figures the probe does not take\n"
      "  --host-overheads FILE  write the measured T4 overheads table\n"
      "  --export-csv FILE    write the database (this device, or all) as "
      "CSV\n");
}

namespace {
struct Options {
  std::vector<std::string> specs, models;
  std::string db, deviceName, probeOut, probeBase, hostOverheads, csv;
  bool force = false, dryRun = false, probe = false, progress = true;
  int batch = 16;
  RunOptions run;
  bool warmupSet = false, repsSet = false;
};
} // namespace

static bool parseInt(const char *flag, const char *text, int lo, int &out) {
  char *end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (!*text || *end || v < lo || v > 1000000) {
    std::fprintf(stderr, "perf-bench: %s expects an integer >= %d, got '%s'\n",
                 flag, lo, text);
    return false;
  }
  out = static_cast<int>(v);
  return true;
}

static bool parseArgs(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *&out) -> bool {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "perf-bench: %s needs a value\n", a.c_str());
        return false;
      }
      out = argv[++i];
      return true;
    };
    const char *v = nullptr;
    if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else if (a == "--spec") {
      if (!value(v))
        return false;
      o.specs.push_back(v);
    } else if (a == "--from") {
      if (!value(v))
        return false;
      o.models.push_back(v);
    } else if (a == "--db") {
      if (!value(v))
        return false;
      o.db = v;
    } else if (a == "--device-name") {
      if (!value(v))
        return false;
      o.deviceName = v;
    } else if (a == "--probe-out") {
      if (!value(v))
        return false;
      o.probeOut = v;
    } else if (a == "--probe-base") {
      if (!value(v))
        return false;
      o.probeBase = v;
    } else if (a == "--host-overheads") {
      if (!value(v))
        return false;
      o.hostOverheads = v;
    } else if (a == "--export-csv") {
      if (!value(v))
        return false;
      o.csv = v;
    } else if (a == "--warmup") {
      if (!value(v) || !parseInt("--warmup", v, 0, o.run.warmup))
        return false;
      o.warmupSet = true;
    } else if (a == "--reps") {
      if (!value(v) || !parseInt("--reps", v, 1, o.run.reps))
        return false;
      o.repsSet = true;
    } else if (a == "--batch") {
      if (!value(v) || !parseInt("--batch", v, 1, o.batch))
        return false;
    } else if (a == "--gpu") {
      if (!value(v) || !parseInt("--gpu", v, 0, o.run.device))
        return false;
    } else if (a == "--force") {
      o.force = true;
    } else if (a == "--dry-run") {
      o.dryRun = true;
    } else if (a == "--probe") {
      o.probe = true;
    } else if (a == "--no-cupti") {
      o.run.cupti = false;
    } else if (a == "--no-progress") {
      o.progress = false;
    } else {
      std::fprintf(stderr, "perf-bench: unknown option '%s'\n", a.c_str());
      usage();
      return false;
    }
  }
  if (o.specs.empty() && o.models.empty() && !o.probe && o.csv.empty()) {
    usage();
    return false;
  }
  if (!o.csv.empty() && o.db.empty()) {
    std::fprintf(stderr, "perf-bench: --export-csv needs --db\n");
    return false;
  }
  return true;
}

static bool writeText(const std::string &path, const std::string &text) {
  if (path.empty() || path == "-") {
    std::fputs(text.c_str(), stdout);
    return true;
  }
  std::ofstream out(path);
  out << text;
  if (!out) {
    std::fprintf(stderr, "perf-bench: cannot write '%s'\n", path.c_str());
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  Options o;
  if (!parseArgs(argc, argv, o))
    return 1;
  std::string error;

  // 1. What to measure.
  std::vector<Kernel> kernels;
  unsigned kernelOps = 0, unknownOps = 0, unsupported = 0;
  for (const std::string &path : o.specs) {
    SweepSpec spec;
    if (!loadSweepSpec(path, spec, error)) {
      std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
      return 1;
    }
    if (spec.warmup >= 0 && !o.warmupSet)
      o.run.warmup = spec.warmup;
    if (spec.reps > 0 && !o.repsSet)
      o.run.reps = spec.reps;
    mergeUnique(kernels, spec.kernels, {});
  }
  for (const std::string &path : o.models) {
    ModelScan scan;
    if (!scanModelFile(path, scan, error)) {
      std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
      return 1;
    }
    kernelOps += scan.kernelOps;
    for (const auto &u : scan.unknownOps)
      unknownOps += u.second;
    for (const auto &u : scan.unsupported) {
      unsupported += u.second;
      std::fprintf(stderr, "perf-bench: %s: %u kernel op(s) skipped: %s\n",
                   path.c_str(), u.second, u.first.c_str());
    }
    mergeUnique(kernels, scan.kernels, {});
  }

  // 2. The device, unless nothing needs one.
  bool needGpu = o.probe || (!kernels.empty() && !o.dryRun);
  DeviceInfo info;
  if (needGpu) {
    std::string why;
    if (!gpuAvailable(why)) {
      std::fprintf(stderr, "perf-bench: no CUDA device: %s\n", why.c_str());
      return kExitNoGpu;
    }
    if (!gpuInit(o.run, info, error)) {
      std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
      return 1;
    }
  }
  std::string device = !o.deviceName.empty() ? o.deviceName : info.name;
  std::string source =
      std::string(kVersion) + (info.runtime.empty() ? "" : " " + info.runtime);

  PerfDatabase db;
  db.setBatchSize(static_cast<size_t>(o.batch));
  if (!o.db.empty() && !db.open(o.db, error)) {
    std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
    return 1;
  }

  // 3. Resume: what the database already holds for this device.
  size_t before = kernels.size();
  if (!o.db.empty() && !o.force && !device.empty()) {
    std::set<std::string> have = db.existingKeys(device);
    std::vector<Kernel> todo;
    mergeUnique(todo, kernels, have);
    kernels.swap(todo);
  }
  std::printf("perf-bench: %zu kernels to measure", kernels.size());
  if (!o.models.empty())
    std::printf(" (%u kernel ops, %u other perf ops, %u unsupported)",
                kernelOps, unknownOps, unsupported);
  if (before != kernels.size())
    std::printf(", %zu already in the database", before - kernels.size());
  std::printf("\n");

  if (o.dryRun) {
    for (const Kernel &k : kernels)
      std::printf("%s %s %s\n", k.kind.c_str(), k.dtype.c_str(),
                  k.signature().c_str());
    kernels.clear();
  }

  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  int status = 0;

  // 4. Probe.
  if (o.probe) {
    ProbeResult probe;
    if (!runProbe(o.run, probe, error)) {
      std::fprintf(stderr, "perf-bench: probe: %s\n", error.c_str());
      return 1;
    }
    probe.name = device;
    probe.base = o.probeBase;
    std::string json = deviceJson(probe);
    if (!writeText(o.probeOut, json))
      return 1;
    if (!o.db.empty() && !db.putDevice(device, json, error)) {
      std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
      return 1;
    }
    std::string overheads =
        hostOverheadJson(probe, source + " --probe on " + info.name);
    if (!o.hostOverheads.empty() && !writeText(o.hostOverheads, overheads))
      return 1;
  }

  // 5. Measure, committing batch by batch.
  if (!kernels.empty()) {
    if (o.db.empty())
      std::fprintf(stderr, "perf-bench: no --db given, results are printed "
                           "only\n");
    if (!o.db.empty()) {
      char clocks[160];
      std::snprintf(clocks, sizeof(clocks),
                    "sm %.0f MHz (max %.0f), memory %.0f MHz, as found",
                    info.smClockMHz, info.maxSmClockMHz, info.memClockMHz);
      if (!db.putDevice(device, std::nullopt, error) ||
          !db.putMeta("perf-bench.clocks." + device, clocks, error)) {
        std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
        return 1;
      }
    }
    ProgressBar bar(kernels.size(), o.progress && isatty(fileno(stderr)));
    size_t measured = 0, skipped = 0;
    for (size_t i = 0; i < kernels.size() && !interrupted; ++i) {
      const Kernel &k = kernels[i];
      bar.update(i, k.kind + " " + k.dtype + " " + k.signature());
      Measurement m = measureKernel(k, o.run);
      if (!m.ok) {
        ++skipped;
        std::fprintf(stderr, "\nperf-bench: skipped %s %s %s: %s\n",
                     k.kind.c_str(), k.dtype.c_str(), k.signature().c_str(),
                     m.skipReason.c_str());
        continue;
      }
      Summary s = summarize(m.samplesUs);
      ++measured;
      if (o.db.empty()) {
        std::printf("%s %s %s: %.3f us (p10 %.3f, p90 %.3f)%s%s\n",
                    k.kind.c_str(), k.dtype.c_str(), k.signature().c_str(),
                    s.median, s.p10, s.p90, m.algo.empty() ? "" : " algo ",
                    m.algo.c_str());
        continue;
      }
      KernelRow row;
      row.device = device;
      row.dtype = k.dtype;
      row.kind = k.kind;
      row.signature = k.signature();
      row.latencyUs = s.median;
      row.spreadUs = s.spread();
      row.reps = static_cast<int64_t>(s.count);
      if (!m.algo.empty())
        row.algo = m.algo;
      if (!m.kernelNames.empty())
        row.kernelName = m.kernelNames;
      row.source = source + " " + m.timing;
      if (!db.add(row, error)) {
        std::fprintf(stderr, "\nperf-bench: %s\n", error.c_str());
        status = 1;
        break;
      }
    }
    bar.update(measured + skipped, "");
    bar.finish();
    if (!db.flush(error)) {
      std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
      status = 1;
    }
    std::printf("perf-bench: measured %zu, skipped %zu%s\n", measured, skipped,
                interrupted ? ", interrupted (rerun to resume)" : "");
    if (interrupted)
      status = 130;
  }
  if (needGpu)
    gpuShutdown();

  // 6. CSV export.
  if (!o.csv.empty()) {
    std::ofstream out(o.csv);
    if (!out || !db.exportCsv(out, o.deviceName.empty() ? "" : device, error)) {
      std::fprintf(stderr, "perf-bench: cannot write '%s': %s\n", o.csv.c_str(),
                   error.c_str());
      return 1;
    }
  }
  if (!db.close(error)) {
    std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
    return 1;
  }
  return status;
}
