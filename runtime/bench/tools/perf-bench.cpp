//===- perf-bench.cpp - GPU micro-benchmarks for the performance database -===//
//
// Chooses kernels (sweep specs, kernel lists of models), skips those the
// database already holds for the device, measures the rest and commits them
// batch by batch; or probes the device's achievable throughput.
// docs/runtime-bench.md.
//
//===----------------------------------------------------------------------===//

#include "bench/Database.h"
#include "bench/DeviceFile.h"
#include "bench/Runner.h"
#include "bench/Spec.h"
#include "bench/Stats.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace bench;

static const char *kVersion = "perf-bench 0.7";
/// Exit status when a GPU is needed and none is present (ctest's skip code).
static constexpr int kExitNoGpu = 77;

static std::atomic<bool> interrupted{false};
static void onSignal(int) { interrupted = true; }

namespace {
struct Options {
  std::vector<std::string> specs, kernelLists;
  std::string db, deviceName, probeOut, probeBase, hostOverheads, csv;
  std::string runGraph, runGraphOut;
  bool force = false, dryRun = false, probe = false, noProgress = false,
       noCupti = false;
  int batch = 16;
  RunOptions run;
  bool warmupSet = false, repsSet = false;
};
} // namespace

/// The largest count or index an integer option takes.
static constexpr int kMaxCount = 1000000;

/// Reads the command line into `o`. Returns -1 to go on, otherwise the exit
/// status: 0 after --help or --version, 1 after an error.
static int parseArgs(int argc, char **argv, Options &o) {
  CLI::App app("GPU micro-benchmarks for the performance database "
               "(docs/runtime-bench.md).",
               "perf-bench");
  app.option_defaults()->always_capture_default();
  app.set_version_flag("--version", kVersion);
  // A list's captured default would read "=[]".
  app.add_option("--spec", o.specs, "Sweep spec (JSON); repeatable")
      ->type_name("FILE")
      ->default_str("");
  app.add_option("--from", o.kernelLists,
                 "Kernel list (JSON) of a model, as written by perf-opt "
                 "--estimate=kernel-list=FILE; repeatable")
      ->type_name("FILE")
      ->default_str("");
  CLI::Option *db =
      app.add_option("--db", o.db, "Performance database (SQLite) to fill")
          ->type_name("FILE");
  app.add_option("--device-name", o.deviceName,
                 "Device key in the database (default: the CUDA device name)")
      ->type_name("NAME");
  app.add_flag("--force", o.force,
               "Measure kernels the database already holds");
  app.add_flag("--dry-run", o.dryRun,
               "List what would be measured, measure nothing");
  CLI::Option *warmup =
      app.add_option("--warmup", o.run.warmup,
                     "Warm-up runs per kernel (overrides the spec's)")
          ->check(CLI::Range(0, kMaxCount));
  CLI::Option *reps =
      app.add_option("--reps", o.run.reps,
                     "Timed repetitions per kernel (overrides the spec's)")
          ->check(CLI::Range(1, kMaxCount));
  app.add_option("--batch", o.batch, "Results per database transaction")
      ->check(CLI::Range(1, kMaxCount));
  app.add_option("--gpu", o.run.device, "CUDA device index")
      ->check(CLI::Range(0, kMaxCount));
  app.add_flag("--no-cupti", o.noCupti, "Time with CUDA events only");
  app.add_flag("--no-progress", o.noProgress, "No progress bar");
  app.add_flag("--probe", o.probe,
               "Measure achievable FLOP/s, bandwidth and launch cost");
  app.add_option("--probe-out", o.probeOut,
                 "Device JSON for --perf-device-file (default: stdout)")
      ->type_name("FILE");
  app.add_option("--probe-base", o.probeBase,
                 "Catalog GPU for the figures the probe does not take")
      ->type_name("NAME");
  app.add_option("--host-overheads", o.hostOverheads,
                 "Write the measured T4 host overhead table")
      ->type_name("FILE");
  CLI::Option *runGraph =
      app.add_option("--run-graph", o.runGraph,
                     "Replay the steps of a launch list (perf-opt "
                     "--estimate=launch-list=FILE) on the GPU and time them")
          ->type_name("FILE");
  app.add_option("--run-graph-out", o.runGraphOut,
                 "Where --run-graph writes its JSON (default: stdout)")
      ->type_name("FILE")
      ->needs(runGraph);
  app.add_flag("--run-graph-fastest-conv", o.run.replayFastestConv,
               "Replay each convolution with cuDNN's fastest algorithm, as "
               "the database's rows (default: its heuristic choice)")
      ->needs(runGraph);
  app.add_option("--export-csv", o.csv,
                 "Write the database (this device, or all) as CSV")
      ->type_name("FILE")
      ->needs(db);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    // --help and --version arrive as exceptions with exit code 0.
    if (e.get_exit_code() == 0)
      return app.exit(e);
    std::fprintf(stderr, "perf-bench: error: %s\n", e.what());
    return 1;
  }
  if (o.specs.empty() && o.kernelLists.empty() && !o.probe && o.csv.empty() &&
      o.runGraph.empty()) {
    std::fprintf(stderr, "perf-bench: error: nothing to do: give --spec, "
                         "--from, --probe, --run-graph or --export-csv (see "
                         "--help)\n");
    return 1;
  }
  if (!o.runGraph.empty() && (!o.specs.empty() || !o.kernelLists.empty() ||
                              o.probe || !o.csv.empty() || !o.db.empty())) {
    std::fprintf(stderr, "perf-bench: error: --run-graph runs alone (no "
                         "--spec, --from, --probe, --db or --export-csv)\n");
    return 1;
  }
  o.warmupSet = warmup->count() > 0;
  o.repsSet = reps->count() > 0;
  o.run.cupti = !o.noCupti;
  return -1;
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

/// --run-graph: every graph of a launch list replayed and timed; a line per
/// graph on stderr, the JSON (perf.graph_run/1) to --run-graph-out.
static int runGraphs(const Options &o) {
  std::string error;
  std::vector<GraphPlan> plans;
  if (!loadLaunchList(o.runGraph, plans, error)) {
    std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
    return 1;
  }
  std::string why;
  if (!gpuAvailable(why)) {
    std::fprintf(stderr, "perf-bench: no CUDA device: %s\n", why.c_str());
    return kExitNoGpu;
  }
  DeviceInfo info;
  if (!gpuInit(o.run, info, error)) {
    std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
    return 1;
  }
  std::vector<GraphRun> runs;
  bool allRan = true;
  for (const GraphPlan &plan : plans) {
    runs.push_back(runGraph(plan, o.run));
    const GraphRun &run = runs.back();
    if (!run.ok) {
      allRan = false;
      std::fprintf(stderr, "perf-bench: graph @%s: %s\n", plan.name.c_str(),
                   run.error.c_str());
      continue;
    }
    Summary s = summarize(run.samplesUs);
    uint64_t notRun = 0;
    for (const auto &entry : run.notRun)
      notRun += entry.second;
    std::fprintf(stderr,
                 "perf-bench: graph @%s: %.3f us measured (median of %zu), "
                 "%.3f us predicted (%+.1f%%); %llu of %zu launches run, "
                 "%llu not\n",
                 plan.name.c_str(), s.median, s.count, plan.predictedUs,
                 s.median > 0 ? 100.0 * (plan.predictedUs / s.median - 1) : 0.0,
                 static_cast<unsigned long long>(run.kernelsRun),
                 plan.launches.size(), static_cast<unsigned long long>(notRun));
    for (const auto &[reason, n] : run.notRun)
      std::fprintf(stderr, "perf-bench:   not run: %llu x %s\n",
                   static_cast<unsigned long long>(n), reason.c_str());
  }
  gpuShutdown();
  // The source names how convolutions chose their algorithm: a replay is
  // only compared with database rows measured the same way.
  std::string source =
      std::string(kVersion) + (info.runtime.empty() ? "" : " " + info.runtime) +
      (o.run.replayFastestConv ? " conv=fastest" : " conv=heuristic");
  std::string device = !o.deviceName.empty() ? o.deviceName : info.name;
  if (!writeText(o.runGraphOut, graphRunJson(plans, runs, device, source)))
    return 1;
  return allRan ? 0 : 1;
}

int main(int argc, char **argv) {
  Options o;
  int exitStatus = parseArgs(argc, argv, o);
  if (exitStatus >= 0)
    return exitStatus;
  if (!o.runGraph.empty())
    return runGraphs(o);
  std::string error;

  // 1. What to measure.
  std::vector<Kernel> kernels;
  uint64_t kernelOps = 0, unsupported = 0;
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
  for (const std::string &path : o.kernelLists) {
    KernelList list;
    if (!loadKernelList(path, list, error)) {
      std::fprintf(stderr, "perf-bench: %s\n", error.c_str());
      return 1;
    }
    kernelOps += list.kernelOps;
    for (const auto &u : list.unsupported) {
      unsupported += u.second;
      std::fprintf(stderr, "perf-bench: %s: %llu kernel op(s) skipped: %s\n",
                   path.c_str(), static_cast<unsigned long long>(u.second),
                   u.first.c_str());
    }
    mergeUnique(kernels, list.kernels, {});
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
  if (!o.kernelLists.empty())
    std::printf(" (%llu kernel ops, %llu unsupported)",
                static_cast<unsigned long long>(kernelOps),
                static_cast<unsigned long long>(unsupported));
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
    ProgressBar bar(kernels.size(), !o.noProgress && isatty(fileno(stderr)));
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
