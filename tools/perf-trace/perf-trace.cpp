//===- perf-trace.cpp - Analyze PyTorch profiler (Kineto) traces ----------===//
//
//   perf-trace breakdown trace.json[.gz] [--format=json]
//   perf-trace overheads trace.json[.gz] -o table.json
//   perf-trace replay    trace.json[.gz] [--overheads table.json]
//   perf-trace link      trace.json[.gz] --et et.json[.gz]
//
// See docs/traces.md.
//
//===----------------------------------------------------------------------===//

#include "perf/Support/InputError.h"
#include "perf/Trace/ExecutionTrace.h"
#include "perf/Trace/HostOverheads.h"
#include "perf/Trace/KinetoTrace.h"
#include "perf/Trace/TraceAnalysis.h"

#include "perf/Support/HugePages.h"
#include "perf/Support/Version.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>

using namespace llvm;
using namespace perf::trace;
using perf::HostOverheadTable;

static cl::OptionCategory category("perf-trace options");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<trace.json>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(category));
enum class Format { Text, Json };
static cl::opt<Format>
    outputFormat("format", cl::desc("Output format"), cl::init(Format::Text),
                 cl::values(clEnumValN(Format::Text, "text", "human-readable"),
                            clEnumValN(Format::Json, "json", "JSON")),
                 cl::cat(category));
static cl::opt<std::string> iterationMarker(
    "iteration-marker",
    cl::desc("Derive iterations from successive starts of host events with "
             "this name prefix (for traces without ProfilerStep#N)"),
    cl::cat(category));
static cl::opt<bool>
    wholeTrace("whole-trace",
               cl::desc("Treat the whole trace as one iteration even if it has "
                        "ProfilerStep spans"),
               cl::cat(category));
static cl::opt<double> cpuEventOverhead(
    "profiler-overhead-cpu",
    cl::desc("Profiler cost per CPU event subtracted from host intervals (us)"),
    cl::init(2.0), cl::cat(category));
static cl::opt<double> gpuEventOverhead(
    "profiler-overhead-gpu",
    cl::desc("Profiler cost per traced runtime call subtracted from T4 (us)"),
    cl::init(4.0), cl::cat(category));
static cl::opt<bool>
    keepOutliers("keep-outliers",
                 cl::desc("Do not remove samples outside 1.5 IQR"),
                 cl::cat(category));
static cl::opt<std::string> removeOutliersOf(
    "remove-outliers",
    cl::desc("Overhead types whose samples outside 1.5 IQR are removed before "
             "the mean, e.g. t2,t3,t4,t5 (default: all for overheads; none "
             "for replay, whose means must add up to the measured host "
             "time; 'none' keeps every sample)"),
    cl::value_desc("types"), cl::cat(category));
static cl::opt<bool> noCarry(
    "no-carry",
    cl::desc("replay: start every iteration with idle streams and end it when "
             "host and device are done (default: device work queued at the "
             "end of a ProfilerStep delays the next, adjacent one)"),
    cl::cat(category));
static cl::opt<bool> siteMedians(
    "site-medians",
    cl::desc("replay: T1, T2, T3 and T5 of the k-th op of each name in an "
             "iteration from the median over the (fitted) iterations, the "
             "table for the rest"),
    cl::cat(category));
static cl::opt<std::string> launchQueue(
    "launch-queue",
    cl::desc("replay: a table replay's launch waits while this many device "
             "events are pending, and launches made at a full queue give no "
             "T4 sample; 'auto' (the default) reads the depth off the "
             "iterations the table is extracted from when their launches "
             "fill the queue, else none; 0: unlimited"),
    cl::value_desc("auto|N"), cl::init("auto"), cl::cat(category));
static cl::opt<bool> holdout(
    "holdout",
    cl::desc("replay: extract the table from the even-numbered iterations "
             "(0, 2, ...) and report only the odd-numbered ones"),
    cl::cat(category));
static cl::opt<std::string>
    overheadsFile("overheads",
                  cl::desc("replay: overhead table to use (default: the one "
                           "extracted from the trace itself)"),
                  cl::value_desc("table.json"), cl::cat(category));
static cl::opt<std::string> etFile("et", cl::desc("link: the execution trace"),
                                   cl::value_desc("et.json"),
                                   cl::cat(category));
static cl::opt<unsigned> topN("top", cl::desc("Ops/kinds listed in text"),
                              cl::init(10), cl::cat(category));

static int fail(const Twine &message) {
  WithColor::error(errs(), "perf-trace") << message << "\n";
  return 1;
}

static int fail(Error error) {
  return perf::reportError("perf-trace", std::move(error));
}

/// Iteration windows: --iteration-marker, else the trace's own iterations
/// (ProfilerStep spans, else its repeating structure), else the whole trace
/// (empty vector).
static std::vector<StepSpan> iterationWindows(const KinetoTrace &trace,
                                              std::string &how) {
  if (wholeTrace) {
    how = "whole trace";
    return {};
  }
  if (!iterationMarker.empty()) {
    std::vector<StepSpan> spans = trace.spansFromMarker(iterationMarker);
    how = (Twine(spans.size()) + " iterations between '" + iterationMarker +
           "' markers")
              .str();
    return spans;
  }
  return trace.iterations(&how);
}

/// The profiler costs to subtract. `replay` compares with the span of the
/// profiled run, which paid them, so it subtracts nothing unless told to;
/// `overheads` describes an unprofiled run and subtracts the paper's values.
static ProfilerOverheads profilerOverheads(bool forProfiledSpan = false) {
  ProfilerOverheads p;
  p.cpuEvent = cpuEventOverhead;
  p.gpuEvent = gpuEventOverhead;
  if (forProfiledSpan) {
    if (!cpuEventOverhead.getNumOccurrences())
      p.cpuEvent = 0;
    if (!gpuEventOverhead.getNumOccurrences())
      p.gpuEvent = 0;
  }
  return p;
}

/// Per type, whether the 1.5 IQR filter applies (--remove-outliers,
/// --keep-outliers, else all for `overheads` and none for `replay`).
static Expected<std::array<bool, 5>> outlierRemoval(bool forReplay) {
  std::array<bool, 5> remove;
  remove.fill(!keepOutliers && !forReplay);
  if (removeOutliersOf.empty())
    return remove;
  remove.fill(false);
  if (removeOutliersOf == "none")
    return remove;
  SmallVector<StringRef, 5> types;
  StringRef(removeOutliersOf).split(types, ',', -1, false);
  for (StringRef type : types) {
    type = type.trim();
    unsigned n = 0;
    if (!type.consume_front_insensitive("t") || type.getAsInteger(10, n) ||
        n < 1 || n > 5)
      return createStringError(inconvertibleErrorCode(),
                               "--remove-outliers: expected types t1..t5 or "
                               "'none', got '" +
                                   removeOutliersOf + "'");
    remove[n - 1] = true;
  }
  return remove;
}

static std::string shortened(StringRef name, size_t width = 60) {
  if (name.size() <= width)
    return name.str();
  return (name.take_front(width - 3) + "...").str();
}

static void printTop(raw_ostream &os, const std::map<std::string, double> &m,
                     double total, StringRef indent) {
  std::vector<std::pair<double, std::string>> sorted;
  for (auto &[name, time] : m)
    sorted.push_back({time, name});
  llvm::sort(sorted, [](auto &a, auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (size_t i = 0; i < sorted.size() && i < topN; ++i)
    os << indent
       << format("%10.1f us %5.1f%%  ", sorted[i].first,
                 total > 0 ? 100 * sorted[i].first / total : 0.0)
       << shortened(sorted[i].second) << "\n";
}

static int runBreakdown(const KinetoTrace &trace, raw_ostream &os) {
  std::string how;
  std::vector<StepSpan> windows = iterationWindows(trace, how);
  std::vector<IterationBreakdown> rows = computeBreakdown(trace, windows);
  double spanSum = 0, activeSum = 0;
  std::map<std::string, double> byOp, byKind;
  for (const IterationBreakdown &row : rows) {
    spanSum += row.span;
    activeSum += row.gpuActive;
    for (auto &[k, v] : row.deviceTimeByOp)
      byOp[k] += v / rows.size();
    for (auto &[k, v] : row.deviceTimeByKind)
      byKind[k] += v / rows.size();
  }
  double n = rows.empty() ? 1 : rows.size();
  if (outputFormat == Format::Json) {
    json::Array iterations;
    for (const IterationBreakdown &row : rows) {
      json::Object ops, kinds;
      for (auto &[k, v] : row.deviceTimeByOp)
        ops[k] = v;
      for (auto &[k, v] : row.deviceTimeByKind)
        kinds[k] = v;
      iterations.push_back(
          json::Object{{"name", row.name},
                       {"span_us", row.span},
                       {"gpu_active_us", row.gpuActive},
                       {"gpu_idle_us", row.gpuIdle},
                       {"top_level_ops", row.topLevelOps},
                       {"device_events", row.deviceEvents},
                       {"device_time_by_op_us", std::move(ops)},
                       {"device_time_by_kind_us", std::move(kinds)}});
    }
    json::Object mean{{"span_us", spanSum / n},
                      {"gpu_active_us", activeSum / n},
                      {"gpu_idle_us", (spanSum - activeSum) / n}};
    json::Object root{{"schema", "perf.trace_breakdown/1"},
                      {"trace", inputFile.getValue()},
                      {"gpu", trace.gpuName()},
                      {"iterations_from", how},
                      {"iterations", std::move(iterations)},
                      {"mean", std::move(mean)}};
    os << formatv("{0:2}", json::Value(std::move(root))) << "\n";
    return 0;
  }
  os << "trace: " << inputFile << "\n";
  os << "gpu: " << (trace.gpuName().empty() ? "(unknown)" : trace.gpuName())
     << "\n";
  os << "iterations: " << how << "\n";
  os << "host pid " << trace.hostPid() << ", " << trace.hostThreads().size()
     << " host threads, " << trace.streams().size() << " streams, "
     << trace.topLevelOps().size() << " top-level ops, "
     << trace.deviceEvents().size() << " device events\n";
  os << "iteration                      span_us  gpu_active_us  gpu_idle_us  "
        "active%\n";
  for (const IterationBreakdown &row : rows)
    os << format("%-28s %10.1f %14.1f %12.1f %7.1f%%\n",
                 shortened(row.name, 28).c_str(), row.span, row.gpuActive,
                 row.gpuIdle,
                 row.span > 0 ? 100 * row.gpuActive / row.span : 0.0);
  os << format("%-28s %10.1f %14.1f %12.1f %7.1f%%\n", "mean", spanSum / n,
               activeSum / n, (spanSum - activeSum) / n,
               spanSum > 0 ? 100 * activeSum / spanSum : 0.0);
  double kindTotal = 0;
  for (auto &[k, v] : byKind)
    kindTotal += v;
  os << "device time per iteration by kernel kind:\n";
  printTop(os, byKind, kindTotal, "  ");
  os << "device time per iteration by op (top " << topN << "):\n";
  printTop(os, byOp, kindTotal, "  ");
  return 0;
}

/// --launch-queue: a number, or for 'auto' the depth the launches of
/// `windows` show (inferLaunchQueueDepth).
static Expected<unsigned> launchQueueDepth(const KinetoTrace &trace,
                                           ArrayRef<StepSpan> windows) {
  if (launchQueue == "auto")
    return inferLaunchQueueDepth(trace, windows);
  unsigned depth = 0;
  if (StringRef(launchQueue).getAsInteger(10, depth))
    return createStringError("--launch-queue takes 'auto' or a number of "
                             "pending device events, got '" +
                             launchQueue + "'");
  return depth;
}

static int runOverheads(const KinetoTrace &trace, raw_ostream &os) {
  std::string how;
  std::vector<StepSpan> windows = iterationWindows(trace, how);
  Expected<std::array<bool, 5>> removal = outlierRemoval(false);
  if (!removal)
    return fail(removal.takeError());
  Expected<unsigned> depth = launchQueueDepth(trace, windows);
  if (!depth)
    return fail(depth.takeError());
  HostOverheadTable table =
      extractOverheads(trace, windows, profilerOverheads(), *removal, *depth);
  HostOverheadTable::Extraction extraction;
  extraction.profilerCpuUs = profilerOverheads().cpuEvent;
  extraction.profilerRuntimeUs = profilerOverheads().gpuEvent;
  extraction.outliersRemoved = llvm::is_contained(*removal, true);
  table.extraction = extraction;
  table.source = (Twine("perf-trace on ") + sys::path::filename(inputFile) +
                  " (pid " + Twine(trace.hostPid()) + "), " + how)
                     .str();
  if (outputFormat == Format::Json || outputFile != "-") {
    os << formatv("{0:2}", table.toJson()) << "\n";
    return 0;
  }
  os << table.source << "\n";
  if (table.launchQueueDepth > 0)
    os << "launch queue: full at " << table.launchQueueDepth
       << " pending device events (launches made then give no T4)\n";
  os << "type    mean_us    std_us    count\n";
  for (unsigned t = 0; t < 5; ++t)
    if (table.defaults[t])
      os << format("T%u   %9.2f %9.2f %8u\n", t + 1, table.defaults[t]->mean,
                   table.defaults[t]->std, table.defaults[t]->count);
  os << "T4 by runtime function:\n";
  for (const auto &entry : table.runtime)
    os << format("  %-40s %9.2f %9.2f %8u\n",
                 shortened(entry.getKey(), 40).c_str(), entry.getValue().mean,
                 entry.getValue().std, entry.getValue().count);
  if (!table.regions.empty())
    os << "T1 entering an annotated region:\n";
  for (const auto &entry : table.regions)
    os << format("  %-40s %9.2f %9.2f %8u\n",
                 shortened(entry.getKey(), 40).c_str(), entry.getValue().mean,
                 entry.getValue().std, entry.getValue().count);
  if (const std::optional<perf::OverheadStats> &tail = table.iterationTail)
    os << format("After an iteration's last op:\n  %-40s %9.2f %9.2f %8u\n",
                 "tail", tail->mean, tail->std, tail->count);
  return 0;
}

/// What ReplayResult::Parts says, measured and predicted.
static json::Object partsJson(const ReplayResult &r) {
  auto one = [](const ReplayResult::Parts &p, double span) {
    return json::Object{{"host_end_us", p.hostEnd},
                        {"gpu_active_us", p.gpuActive},
                        {"gpu_idle_us", span - p.gpuActive},
                        {"exposed_comm_us", p.exposedComm}};
  };
  return json::Object{{"measured", one(r.measuredParts, r.measured)},
                      {"predicted", one(r.predictedParts, r.predicted)}};
}

static int runReplay(const KinetoTrace &trace, raw_ostream &os) {
  std::string how;
  std::vector<StepSpan> windows = iterationWindows(trace, how);
  HostOverheadTable table;
  std::string tableName;
  // Held out: fit on the even-numbered iterations, report the odd ones.
  std::vector<StepSpan> fitWindows = windows;
  if (holdout) {
    if (windows.size() < 2)
      return fail("--holdout needs at least two iterations, the trace has " +
                  Twine(windows.size()));
    fitWindows.clear();
    for (size_t i = 0; i < windows.size(); i += 2)
      fitWindows.push_back(windows[i]);
    how += ", table from the " + std::to_string(fitWindows.size()) +
           " even-numbered, errors on the " +
           std::to_string(windows.size() - fitWindows.size()) +
           " odd-numbered (held out)";
  }
  // The launch queue's depth: given, or read off the iterations the table
  // is extracted from; with a table from elsewhere, the one it records (the
  // trace replayed is then the test).
  unsigned queueDepth = 0;
  if (overheadsFile.empty() || launchQueue != "auto") {
    Expected<unsigned> depth = launchQueueDepth(trace, fitWindows);
    if (!depth)
      return fail(depth.takeError());
    queueDepth = *depth;
  }
  if (!overheadsFile.empty()) {
    Expected<HostOverheadTable> loaded = HostOverheadTable::load(overheadsFile);
    if (!loaded)
      return fail(loaded.takeError());
    table = std::move(*loaded);
    tableName = overheadsFile;
    // A table made for unprofiled steps (perf-trace overheads' defaults)
    // leaves out what the profiler added to the trace replayed here.
    if (table.extraction && !table.extraction->forProfiledReplay())
      errs() << "perf-trace: note: " << overheadsFile
             << " was extracted with the profiler's cost subtracted ("
             << format("%g", table.extraction->profilerCpuUs)
             << " us a CPU event, "
             << format("%g", table.extraction->profilerRuntimeUs)
             << " us a runtime call) or outliers left out, for unprofiled "
                "steps; to replay a profiled trace with it, extract it with "
                "--profiler-overhead-cpu=0 --profiler-overhead-gpu=0 "
                "--remove-outliers=none\n";
    if (launchQueue == "auto")
      queueDepth = table.launchQueueDepth;
  } else {
    Expected<std::array<bool, 5>> removal = outlierRemoval(true);
    if (!removal)
      return fail(removal.takeError());
    table = extractOverheads(trace, fitWindows, profilerOverheads(true),
                             *removal, queueDepth);
    tableName = "extracted from this trace";
  }
  SiteOverheads sites;
  if (siteMedians) {
    sites = extractSiteOverheads(trace, fitWindows, profilerOverheads(true));
    tableName += ", per-site medians";
  }
  ReplayOptions withTable;
  withTable.carryDeviceWork = !noCarry;
  withTable.launchQueueDepth = queueDepth;
  if (queueDepth > 0)
    tableName += ", launch queue of " + std::to_string(queueDepth) +
                 (launchQueue != "auto"   ? ""
                  : overheadsFile.empty() ? " (read off the trace)"
                                          : " (the table's)");
  if (siteMedians)
    withTable.sites = &sites;
  withTable.table = &table;
  withTable.profiler = profilerOverheads(true);
  ReplayOptions measured = withTable;
  measured.table = nullptr;
  std::vector<ReplayResult> tableRuns =
      replayIterations(trace, windows, withTable);
  std::vector<ReplayResult> measuredRuns =
      replayIterations(trace, windows, measured);
  if (holdout) {
    // Every iteration is replayed (device work carries over), the odd ones
    // are reported.
    auto odd = [](std::vector<ReplayResult> &runs) {
      std::vector<ReplayResult> kept;
      for (size_t i = 1; i < runs.size(); i += 2)
        kept.push_back(std::move(runs[i]));
      runs = std::move(kept);
    };
    odd(tableRuns);
    odd(measuredRuns);
  }
  auto summary = [](const std::vector<ReplayResult> &runs, double &meanAbs,
                    double &totalErr) {
    double sumAbs = 0, measuredSum = 0, predictedSum = 0;
    for (const ReplayResult &r : runs) {
      sumAbs += std::fabs(r.relativeError());
      measuredSum += r.measured;
      predictedSum += r.predicted;
    }
    meanAbs = runs.empty() ? 0 : sumAbs / runs.size();
    totalErr = measuredSum > 0 ? (predictedSum - measuredSum) / measuredSum : 0;
  };
  double tableMeanAbs, tableTotal, measuredMeanAbs, measuredTotal;
  summary(tableRuns, tableMeanAbs, tableTotal);
  summary(measuredRuns, measuredMeanAbs, measuredTotal);
  unsigned inferredWaits = trace.linkStats().waitsInferred;
  unsigned recordedWaits = trace.streamWaits().size() - inferredWaits;
  if (outputFormat == Format::Json) {
    json::Array rows;
    for (size_t i = 0; i < tableRuns.size(); ++i)
      rows.push_back(json::Object{
          {"name", tableRuns[i].name},
          {"measured_us", tableRuns[i].measured},
          {"predicted_us", tableRuns[i].predicted},
          {"error", tableRuns[i].relativeError()},
          {"predicted_measured_overheads_us", measuredRuns[i].predicted},
          {"error_measured_overheads", measuredRuns[i].relativeError()},
          {"kernel_only_us", tableRuns[i].kernelTime},
          {"ops", tableRuns[i].ops},
          {"device_events", tableRuns[i].deviceEvents},
          {"parts", partsJson(tableRuns[i])},
          {"parts_measured_overheads", partsJson(measuredRuns[i])}});
    json::Object root{
        {"schema", "perf.trace_replay/1"},
        {"trace", inputFile.getValue()},
        {"iterations_from", how},
        {"overheads", tableName},
        {"stream_waits", json::Object{{"recorded", recordedWaits},
                                      {"inferred", inferredWaits}}},
        {"iterations", std::move(rows)},
        {"mean_abs_error", tableMeanAbs},
        {"total_error", tableTotal},
        {"mean_abs_error_measured_overheads", measuredMeanAbs}};
    os << formatv("{0:2}", json::Value(std::move(root))) << "\n";
    return 0;
  }
  os << "trace: " << inputFile << "\n";
  os << "iterations: " << how << "\n";
  os << "overheads: " << tableName << "\n";
  os << "stream waits: " << recordedWaits << " recorded, " << inferredWaits
     << " read off cudaStreamWaitEvent calls\n";
  os << "iteration                  measured_us  predicted_us   error  "
        "op-own-T_us   error  kernel_only_us\n";
  for (size_t i = 0; i < tableRuns.size(); ++i) {
    const ReplayResult &r = tableRuns[i];
    const ReplayResult &m = measuredRuns[i];
    os << format("%-26s %11.1f %13.1f %+6.1f%% %12.1f %+6.1f%% %15.1f\n",
                 shortened(r.name, 26).c_str(), r.measured, r.predicted,
                 100 * r.relativeError(), m.predicted, 100 * m.relativeError(),
                 r.kernelTime);
  }
  os << format("mean |error|: %.1f%% with the table, %.1f%% with each op's "
               "own overheads\n",
               100 * tableMeanAbs, 100 * measuredMeanAbs);
  // Where each prediction differs from its iteration.
  os << "where the table replay differs (measured -> predicted, us from the "
        "iteration's start):\n";
  os << "iteration                  host_end                  gpu_active      "
        "          gpu_idle                  exposed_comm\n";
  for (const ReplayResult &r : tableRuns) {
    const ReplayResult::Parts &m = r.measuredParts, &p = r.predictedParts;
    auto pair = [](double a, double b) {
      return formatv("{0,10:f1} -> {1,-10:f1}", a, b).str();
    };
    std::string line =
        formatv("{0,-26}", shortened(r.name, 26)).str() +
        pair(m.hostEnd, p.hostEnd) + "  " + pair(m.gpuActive, p.gpuActive) +
        "  " + pair(r.measured - m.gpuActive, r.predicted - p.gpuActive) +
        "  " + pair(m.exposedComm, p.exposedComm);
    os << StringRef(line).rtrim() << "\n";
  }
  os << format("total error: %+.1f%% with the table\n", 100 * tableTotal);
  return 0;
}

static int runLink(KinetoTrace &trace, raw_ostream &os) {
  if (etFile.empty())
    return fail("link needs --et <execution trace>");
  Expected<ExecutionTrace> et = ExecutionTrace::load(etFile);
  if (!et)
    return fail(et.takeError());
  KinetoTrace::EtLinkResult link = trace.linkExecutionTrace(*et);
  if (link.pidMismatch)
    WithColor::warning(errs(), "perf-trace")
        << "execution trace pid " << et->pid() << " differs from the Kineto "
        << "host pid " << trace.hostPid() << "\n";
  if (link.unlinked || link.nameMismatch)
    WithColor::warning(errs(), "perf-trace")
        << link.unlinked << " of " << link.operators
        << " top-level ops have no execution trace node, " << link.nameMismatch
        << " matched a node of another name\n";
  const KinetoLinkStats &stats = trace.linkStats();
  os << "execution trace: " << etFile << " (schema " << et->schema() << ", "
     << et->nodes().size() << " nodes, " << et->topLevelOps().size()
     << " top-level ops)\n";
  os << "kineto: " << link.operators << " top-level ops, " << link.linked
     << " linked, " << link.unlinked << " unlinked, " << link.nameMismatch
     << " name mismatches"
     << (link.alignedByName ? " (aligned by op name)" : " (by record id)")
     << "\n";
  os << "execution trace: " << link.etUnlinked << " of "
     << et->topLevelOps().size() << " top-level ops not in the Kineto trace; "
     << link.unlinkedWithDeviceWork
     << " unlinked Kineto ops with device work inside the linked stretch\n";
  os << "device events: " << stats.deviceEvents << ", " << stats.deviceUnlinked
     << " without a runtime call\n";
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // A trace of millions of events is read whole and walked event by event.
  perf::tuneHeapForLargeGraphs();
  StringRef usage = "usage: perf-trace <breakdown|overheads|replay|link> "
                    "trace.json[.gz] [options]\n";
  if (argc < 2) {
    errs() << usage;
    return 1;
  }
  StringRef command = argv[1];
  if (command == "--version") {
    perf::printVersion(outs(), "perf-trace");
    return 0;
  }
  // What --help prints above the options, as the other tools' overviews.
  StringRef overview =
      "perf-trace: Kineto trace analysis\n\n"
      "  perf-trace breakdown TRACE   per iteration: span, GPU active and idle "
      "time, device time per kernel kind and op\n"
      "  perf-trace overheads TRACE   the T1-T5 host overhead table "
      "(docs/host-overheads.md)\n"
      "  perf-trace replay TRACE      each iteration replayed with the table "
      "and with its ops' own overheads\n"
      "  perf-trace link TRACE --et ET  how many ops link to an execution "
      "trace\n\n"
      "  perf-trace replay test/Trace/Inputs/tiny_kineto.json --format=json\n";
  cl::HideUnrelatedOptions(category);
  if (command == "-h" || command == "--help" || command == "help") {
    const char *helpArgs[] = {argv[0], "--help"};
    cl::ParseCommandLineOptions(2, helpArgs, overview);
    return 0;
  }
  if (command != "breakdown" && command != "overheads" && command != "replay" &&
      command != "link")
    return fail("unknown command '" + command + "'; " + usage.rtrim());
  // Parse the options after the command.
  std::vector<const char *> args{argv[0]};
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  if (!cl::ParseCommandLineOptions(args.size(), args.data(), overview, &errs()))
    return 1;

  Expected<KinetoTrace> trace = KinetoTrace::load(inputFile);
  if (!trace)
    return fail(trace.takeError());
  const KinetoLinkStats &stats = trace->linkStats();
  if (stats.deviceUnlinked)
    WithColor::warning(errs(), "perf-trace")
        << stats.deviceUnlinked << " of " << stats.deviceEvents
        << " device events have no matching runtime call\n";

  std::error_code ec;
  ToolOutputFile output(outputFile, ec, sys::fs::OF_TextWithCRLF);
  if (ec)
    return fail(outputFile + ": " + ec.message());
  int rc = 1;
  if (command == "breakdown")
    rc = runBreakdown(*trace, output.os());
  else if (command == "overheads")
    rc = runOverheads(*trace, output.os());
  else if (command == "replay")
    rc = runReplay(*trace, output.os());
  else
    rc = runLink(*trace, output.os());
  if (rc == 0)
    output.keep();
  return rc;
}
