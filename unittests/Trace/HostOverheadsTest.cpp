//===- HostOverheadsTest.cpp - Overhead statistics and extraction ---------===//

#include "perf/Trace/HostOverheads.h"
#include "perf/Support/Quantile.h"
#include "perf/Trace/TraceAnalysis.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace perf;
using namespace perf::trace;

TEST(OverheadStats, QuantilesInterpolateLikeNumpy) {
  std::vector<double> sorted = {1, 2, 3, 4};
  // numpy.percentile([1,2,3,4], [25, 50, 75]) = 1.75, 2.5, 3.25
  EXPECT_DOUBLE_EQ(perf::quantileOfSorted(sorted, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(perf::quantileOfSorted(sorted, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(perf::quantileOfSorted(sorted, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(perf::quantileOfSorted(sorted, 1.0), 4);
}

TEST(OverheadStats, RemovesOutliersBeyondOnePointFiveIqr) {
  // Q1 = 2, Q3 = 4, IQR = 2: whiskers [-1, 7]; 100 goes.
  OverheadStats stats = summarizeSamples({4, 100, 1, 3, 2});
  EXPECT_EQ(stats.count, 4u);
  EXPECT_EQ(stats.removed, 1u);
  EXPECT_DOUBLE_EQ(stats.mean, 2.5);
  // Population std of 1..4: sqrt(1.25).
  EXPECT_NEAR(stats.std, 1.118033988749895, 1e-12);
}

TEST(OverheadStats, KeepsEverythingWhenAsked) {
  OverheadStats stats = summarizeSamples({4, 100, 1, 3, 2}, false);
  EXPECT_EQ(stats.count, 5u);
  EXPECT_EQ(stats.removed, 0u);
  EXPECT_DOUBLE_EQ(stats.mean, 22);
}

TEST(OverheadStats, LowOutlierAndConstantSamples) {
  // Q1 = 10, Q3 = 11, IQR = 1: whiskers [8.5, 12.5]; 0 goes.
  OverheadStats low = summarizeSamples({10, 10, 11, 11, 0, 10.5});
  EXPECT_EQ(low.count, 5u);
  EXPECT_DOUBLE_EQ(low.mean, 10.5);
  OverheadStats same = summarizeSamples({5, 5, 5});
  EXPECT_EQ(same.count, 3u);
  EXPECT_DOUBLE_EQ(same.mean, 5);
  EXPECT_DOUBLE_EQ(same.std, 0);
  OverheadStats none = summarizeSamples({});
  EXPECT_EQ(none.count, 0u);
}

/// addmm [100,150] launching at [110,120] (kernel 30 us) and [125,130]
/// (kernel 10 us), one nested aten::empty at 102; view [160,170] launches
/// nothing. Times relative to the first event (ts 1000090).
static const char *const handTrace = R"json({
  "schemaVersion": 1,
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1000090, "dur": 110},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 7, "tid": 7, "ts": 1000100, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 7, "tid": 7, "ts": 1000102, "dur": 3},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000110, "dur": 10, "args": {"correlation": 11}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000125, "dur": 5, "args": {"correlation": 12}},
    {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 1000125, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 11}},
    {"ph": "X", "cat": "kernel", "name": "elementwise", "pid": 0, "tid": 7, "ts": 1000160, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 12}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::view", "pid": 7, "tid": 7, "ts": 1000160, "dur": 10}
  ]})json";

/// A hand-written Kineto trace, parsed (failures are test failures).
static KinetoTrace parseKineto(const char *text) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  EXPECT_TRUE(bool(json));
  llvm::Expected<KinetoTrace> trace =
      KinetoTrace::parse(llvm::formatv("{0}", *json).str(), "trace");
  EXPECT_TRUE(bool(trace));
  return std::move(*trace);
}

static KinetoTrace parseHandTrace() { return parseKineto(handTrace); }

TEST(OverheadExtraction, HandMadeTraceWithPaperProfilerCosts) {
  KinetoTrace trace = parseHandTrace();
  ASSERT_EQ(trace.topLevelOps().size(), 2u);
  size_t addmm = trace.topLevelOps()[0], view = trace.topLevelOps()[1];
  EXPECT_EQ(trace.ops()[addmm].name, "aten::addmm");
  EXPECT_EQ(trace.deviceEventsOf(addmm).size(), 2u);
  ProfilerOverheads paper; // 2 us per CPU event, 4 us per runtime call
  OpOverheadSample a = measureOpOverheads(trace, addmm, std::nullopt, paper);
  EXPECT_FALSE(a.t1.has_value());
  // T2 = 110 - 100 - one nested event (aten::empty) * 2.
  EXPECT_DOUBLE_EQ(a.t2, 8);
  EXPECT_DOUBLE_EQ(a.t3, 20);
  ASSERT_EQ(a.t4.size(), 2u);
  EXPECT_DOUBLE_EQ(a.t4[0], 6);
  EXPECT_DOUBLE_EQ(a.t4[1], 1);
  ASSERT_EQ(a.t5.size(), 1u);
  EXPECT_DOUBLE_EQ(a.t5[0], 5);
  OpOverheadSample v =
      measureOpOverheads(trace, view, trace.ops()[addmm].end(), paper);
  EXPECT_DOUBLE_EQ(*v.t1, 8);   // 160 - 150 - 2
  EXPECT_DOUBLE_EQ(v.t5[0], 8); // whole op 10 - its own record 2

  HostOverheadTable table = extractOverheads(trace, trace.steps(), paper);
  EXPECT_DOUBLE_EQ(table.get("aten::addmm", Overhead::T2), 8);
  EXPECT_DOUBLE_EQ(table.runtimeCall("cudaLaunchKernel"), 3.5);
  EXPECT_DOUBLE_EQ(table.get("aten::view", Overhead::T1), 8);
}

TEST(Replay, AlgorithmOneByHand) {
  KinetoTrace trace = parseHandTrace();
  ReplayOptions options;
  options.profiler = ProfilerOverheads{0, 0};
  std::vector<ReplayResult> results =
      replayIterations(trace, trace.steps(), options);
  ASSERT_EQ(results.size(), 1u);
  // cpu: T1 10 + T2 10 = 20; k1 at max(1, 25) -> 55; cpu 30 + T5 5 = 35;
  // k2 at max(56, 37.5) -> 66; cpu 40 + T3 20 = 60; view: +10 +10 = 80;
  // the 30 us of the step after its last op: 110.
  EXPECT_DOUBLE_EQ(results[0].predictedHost, 110);
  EXPECT_DOUBLE_EQ(results[0].predictedDevice, 66);
  EXPECT_DOUBLE_EQ(results[0].predicted, 110);
  EXPECT_DOUBLE_EQ(results[0].measured, 110);
  EXPECT_DOUBLE_EQ(results[0].kernelTime, 40);

  std::vector<IterationBreakdown> rows = computeBreakdown(trace, trace.steps());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].gpuActive, 40);
  EXPECT_DOUBLE_EQ(rows[0].gpuIdle, 70);
  EXPECT_DOUBLE_EQ(rows[0].deviceTimeByOp["aten::addmm"], 40);
}

// Six launch-free aten::view ops of 10 us; the gaps between them (T1) are
// 4, 100, 1, 3 and 2 us.
static KinetoTrace parseGapTrace() {
  std::string events = R"({"ph": "X", "cat": "user_annotation", )"
                       R"("name": "ProfilerStep#1", "pid": 7, "tid": 7, )"
                       R"("ts": 1000000, "dur": 1000})";
  double start = 1000010;
  const double gaps[] = {4, 100, 1, 3, 2, 0};
  for (double gap : gaps) {
    events += R"(, {"ph": "X", "cat": "cpu_op", "name": "aten::view", )"
              R"("pid": 7, "tid": 7, "ts": )" +
              std::to_string(static_cast<int64_t>(start)) + R"(, "dur": 10})";
    start += 10 + gap;
  }
  return parseKineto(("{\"traceEvents\": [" + events + "]}").c_str());
}

TEST(OverheadExtraction, OutlierRemovalPerType) {
  KinetoTrace trace = parseGapTrace();
  ASSERT_EQ(trace.topLevelOps().size(), 6u);
  ProfilerOverheads none{0, 0};
  // Filtered (the same Q1 2, Q3 4, whiskers [-1, 7] as above): 100 goes.
  HostOverheadTable filtered = extractOverheads(trace, trace.steps(), none);
  EXPECT_DOUBLE_EQ(filtered.get("aten::view", Overhead::T1), 2.5);
  EXPECT_EQ(filtered.defaults[0]->removed, 1u);
  // Only T2-T5 filtered: T1 keeps the 100 us gap, mean 110 / 5 = 22.
  HostOverheadTable t1Kept = extractOverheads(trace, trace.steps(), none,
                                              {false, true, true, true, true});
  EXPECT_DOUBLE_EQ(t1Kept.get("aten::view", Overhead::T1), 22);
  EXPECT_DOUBLE_EQ(t1Kept.defaults[0]->mean, 22);
  EXPECT_EQ(t1Kept.defaults[0]->removed, 0u);
  EXPECT_DOUBLE_EQ(t1Kept.get("aten::view", Overhead::T5), 10);
  // Replayed with the untrimmed table the host time adds up to the trace's:
  // T1 10 from the step start, then 6 ops of T5 10 and 5 gaps of T1 22.
  ReplayOptions options;
  options.profiler = none;
  options.table = &t1Kept;
  std::vector<ReplayResult> results =
      replayIterations(trace, trace.steps(), options);
  ASSERT_EQ(results.size(), 1u);
  // The first op's T1 is the iteration's entry (its 10 us from the step's
  // start), each other op's the table's 22, and the step's 820 us after its
  // last op the table's iteration tail: the trace's 1000.
  EXPECT_DOUBLE_EQ(results[0].predicted, 10 + 5 * 22 + 6 * 10 + 820);
}

// Two adjacent steps: a 60 us GEMM launched in step 1 runs into step 2,
// whose aten::item synchronizes on it (test/Trace/replay-spill.test).
static const char *spillTrace = R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1000000, "dur": 50},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 7, "tid": 7, "ts": 1000050, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1000010, "dur": 30},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000020, "dur": 5, "args": {"correlation": 11}},
    {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 1000030, "dur": 60, "args": {"device": 0, "stream": 7, "correlation": 11}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 7, "tid": 7, "ts": 1000060, "dur": 36},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 7, "tid": 7, "ts": 1000065, "dur": 30, "args": {"correlation": 12}}
  ]})json";

TEST(Replay, DeviceWorkCarriesIntoTheNextStep) {
  KinetoTrace trace = parseKineto(spillTrace);
  ASSERT_EQ(trace.steps().size(), 2u);
  ReplayOptions options;
  options.profiler = ProfilerOverheads{0, 0};
  options.carryDeviceWork = true;
  std::vector<ReplayResult> carried =
      replayIterations(trace, trace.steps(), options);
  ASSERT_EQ(carried.size(), 2u);
  // Step 1: host 10 + 10 + 5 + 15 = 40, + the 10 us of the step after its
  // last op = 50; the GEMM runs [22.5, 82.5).
  EXPECT_DOUBLE_EQ(carried[0].predicted, 50);
  EXPECT_DOUBLE_EQ(carried[0].predictedDevice, 82.5);
  // Step 2 starts at 50: 32.5 us of GEMM left; 10 + 5, wait to 32.5, + the
  // 5 us the synchronize took after the GEMM it waited for ended (it
  // returned at 95, the GEMM ended at 90), + 1, + the step's last 4 us.
  EXPECT_DOUBLE_EQ(carried[1].predicted, 42.5);
  options.carryDeviceWork = false;
  std::vector<ReplayResult> separate =
      replayIterations(trace, trace.steps(), options);
  EXPECT_DOUBLE_EQ(separate[0].predicted, 82.5);
  EXPECT_DOUBLE_EQ(separate[1].predicted, 25);
}

TEST(OverheadExtraction, AnIterationsFirstOpWaitsFromItsStart) {
  KinetoTrace trace = parseKineto(spillTrace);
  HostOverheadTable table =
      extractOverheads(trace, trace.steps(), ProfilerOverheads{0, 0}, false);
  // aten::mm starts 10 us into step 1, aten::item 10 us into step 2: the
  // iteration's entry, not a T1 of either op nor of the default.
  auto entry = table.regions.find(HostOverheadTable::kIterationRegion);
  ASSERT_NE(entry, table.regions.end());
  EXPECT_EQ(entry->second.count, 2u);
  EXPECT_DOUBLE_EQ(entry->second.mean, 10);
  EXPECT_FALSE(table.defaults[0].has_value());
  EXPECT_DOUBLE_EQ(
      table.entryT1(HostOverheadTable::kIterationRegion, "aten::item"), 10);
  // Their tails: step 1's last op ends at 40 (50 - 40 = 10), step 2's at 96
  // (100 - 96 = 4).
  ASSERT_TRUE(table.iterationTail.has_value());
  EXPECT_EQ(table.iterationTail->count, 2u);
  EXPECT_DOUBLE_EQ(table.iterationTailUs(), 7);
  // Without iterations there is no entry: the whole trace's first op has no
  // gap before it.
  HostOverheadTable whole =
      extractOverheads(trace, {}, ProfilerOverheads{0, 0}, false);
  EXPECT_TRUE(whole.regions.empty());
  EXPECT_FALSE(whole.iterationTail.has_value());
}

// One op launching two kernels; the second launch finds the first kernel
// still pending.
static const char *queueTrace = R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1000000, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1000010, "dur": 40},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000015, "dur": 5, "args": {"correlation": 11}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000025, "dur": 7, "args": {"correlation": 12}},
    {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 1000021, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 11}},
    {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 1000051, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 12}}
  ]})json";

TEST(Replay, FullLaunchQueueBlocksTheHost) {
  KinetoTrace trace = parseKineto(queueTrace);
  std::vector<unsigned> pending = pendingAtLaunch(trace);
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0], 0u);
  EXPECT_EQ(pending[1], 1u); // sgemm runs [21, 51)
  ProfilerOverheads none{0, 0};
  std::array<bool, 5> keep = {false, false, false, false, false};
  // Depth 1: the second launch was made at a full queue and gives no T4.
  HostOverheadTable table =
      extractOverheads(trace, trace.steps(), none, keep, 1);
  EXPECT_DOUBLE_EQ(table.runtimeCall("cudaLaunchKernel"), 5);
  EXPECT_EQ(table.runtime["cudaLaunchKernel"].count, 1u);
  EXPECT_EQ(table.launchQueueDepth, 1u);
  ReplayOptions options;
  options.profiler = none;
  options.table = &table;
  options.launchQueueDepth = 1;
  // T1 10 (the iteration's entry) + T2 5 = 15; sgemm [17.5, 47.5); cpu 20 +
  // T5 5 = 25; the queue is full until 47.5; relu [50, 60); cpu 52.5 + T3
  // (50 - 32) 18 + the iteration's tail (100 - 50) 50.
  std::vector<ReplayResult> blocked =
      replayIterations(trace, trace.steps(), options);
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_DOUBLE_EQ(blocked[0].predictedHost, 120.5);
  EXPECT_DOUBLE_EQ(blocked[0].predictedDevice, 60);
  EXPECT_DOUBLE_EQ(blocked[0].predicted, 120.5);
  // Unlimited: relu queues behind sgemm at [48.5, 58.5), host ends at
  // 25 + 5 + 18 + 50 = 98.
  options.launchQueueDepth = 0;
  std::vector<ReplayResult> free =
      replayIterations(trace, trace.steps(), options);
  EXPECT_DOUBLE_EQ(free[0].predictedHost, 98);
  EXPECT_DOUBLE_EQ(free[0].predictedDevice, 58.5);
  EXPECT_DOUBLE_EQ(free[0].predicted, 98);
}

// A cudaFree that initializes the allocator while the device is idle (the
// first iteration of the param traces): a synchronizing call whose own time
// is host time, not a wait.
static const char *lazyInitTrace = R"json({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 7, "tid": 7, "ts": 1000000, "dur": 140},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaFree", "pid": 7, "tid": 7, "ts": 1000010, "dur": 100, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000120, "dur": 10, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 1000130, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 2}}
  ]})json";

TEST(KinetoTrace, AnOpEntersTheInnermostRegionItIsFirstIn) {
  // aten::empty is the first op of the fetch, nested in "## forward ##",
  // and so the first of "## forward ##" too; aten::to is the second op of
  // the fetch and aten::add the second of "## forward ##". aten::zeros sits
  // under the ProfilerStep alone, which is the iteration, not a region.
  KinetoTrace trace = parseKineto(R"json({
    "traceEvents": [
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
      {"ph": "X", "cat": "cpu_op", "name": "aten::zeros", "pid": 1, "tid": 1, "ts": 1, "dur": 2},
      {"ph": "X", "cat": "user_annotation", "name": "## forward ##", "pid": 1, "tid": 1, "ts": 5, "dur": 90},
      {"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 6, "dur": 40},
      {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 30, "dur": 2},
      {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 1, "tid": 1, "ts": 35, "dur": 2},
      {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 50, "dur": 2}
    ]})json");
  llvm::StringMap<std::string> entered;
  for (size_t op : trace.topLevelOps())
    entered[trace.ops()[op].name] = trace.enteredRegion(trace.ops()[op]).str();
  ASSERT_EQ(entered.size(), 4u);
  EXPECT_EQ(entered["aten::zeros"], "");
  EXPECT_EQ(entered["aten::empty"],
            "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(entered["aten::to"], "");
  EXPECT_EQ(entered["aten::add"], "");
}

// An all_reduce on stream 20 [1000100, 1000200) and a GEMM on stream 7
// [1000150, 1000180) under it: the GPU is busy 100 us, and 70 of the
// collective's are exposed (no other work overlaps them).
static const char *overlapTrace = R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1000000, "dur": 210},
    {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 7, "tid": 7, "ts": 1000090, "dur": 10},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000092, "dur": 4, "args": {"correlation": 31}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 20, "ts": 1000100, "dur": 100, "args": {"device": 0, "stream": 20, "correlation": 31}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1000140, "dur": 10},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000142, "dur": 4, "args": {"correlation": 32}},
    {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 1000150, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 32}}
  ]})json";

TEST(Replay, PartsSayWhereThePredictionDiffers) {
  KinetoTrace trace = parseKineto(overlapTrace);
  ReplayOptions options;
  options.profiler = ProfilerOverheads{0, 0};
  std::vector<ReplayResult> runs =
      replayIterations(trace, trace.steps(), options);
  ASSERT_EQ(runs.size(), 1u);
  const ReplayResult::Parts &m = runs[0].measuredParts;
  EXPECT_DOUBLE_EQ(m.hostEnd, 150);
  EXPECT_DOUBLE_EQ(m.gpuActive, 100);
  EXPECT_DOUBLE_EQ(m.exposedComm, 70);
  // With each op's own overheads: allreduce at 90 + 2 + 4/2 = 94..194,
  // the GEMM at 140 + 2 + 2 = 144..174 under it; host 150, and the step's
  // 60 us after its last op: 210.
  const ReplayResult::Parts &p = runs[0].predictedParts;
  EXPECT_DOUBLE_EQ(p.hostEnd, 210);
  EXPECT_DOUBLE_EQ(p.gpuActive, 100);
  EXPECT_DOUBLE_EQ(p.exposedComm, 70);
}

/// A trace of one op launching `n` kernels: launch i at `launchAt(i)` us,
/// its kernel running [kernelAt(i), kernelAt(i) + kernelUs).
template <typename LaunchAt, typename KernelAt>
static std::string launchTrace(int n, LaunchAt launchAt, KernelAt kernelAt,
                               double kernelUs) {
  std::string events = R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", )"
                       R"("pid": 7, "tid": 7, "ts": 1000000, "dur": 100000})";
  for (int i = 0; i < n; ++i)
    events += llvm::formatv(
        R"(, {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", )"
        R"("pid": 7, "tid": 7, "ts": {0}, "dur": 1, "args": {{"correlation": )"
        R"({1}}}, {{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, )"
        R"("tid": 7, "ts": {2}, "dur": {3}, "args": {{"device": 0, )"
        R"("stream": 7, "correlation": {1}}})",
        1000000 + launchAt(i), 100 + i, 1000000 + kernelAt(i), kernelUs);
  return "{\"traceEvents\": [" + events + "]}";
}

// A full queue pins the number pending at its depth: kernel i runs
// [100 + 10i, 110 + 10i) and is launched at 60 + 10i, when kernels i-4 to
// i-1 are pending (kernel i-5 ends as it launches), so 196 of the 200
// launches find 4 pending. A host that is merely ahead has no such plateau:
// 200 launches 1 us apart of kernels that all end later find 0, 1, ..., 199
// pending.
TEST(Replay, LaunchQueueDepthIsReadOffAPlateau) {
  KinetoTrace full = parseKineto(launchTrace(
                                     200, [](int i) { return 60 + 10 * i; },
                                     [](int i) { return 100 + 10 * i; }, 10)
                                     .c_str());
  std::vector<unsigned> pending = pendingAtLaunch(full);
  EXPECT_EQ(pending[3], 3u);
  EXPECT_EQ(pending[150], 4u);
  EXPECT_EQ(inferLaunchQueueDepth(full, {}), 4u);

  KinetoTrace ahead = parseKineto(
      launchTrace(
          200, [](int i) { return i; }, [](int i) { return 1000 + i; }, 5000)
          .c_str());
  EXPECT_EQ(pendingAtLaunch(ahead)[199], 199u);
  EXPECT_EQ(inferLaunchQueueDepth(ahead, {}), 0u);
  // Too few launches for a plateau: the first 60 of the full queue.
  KinetoTrace few = parseKineto(launchTrace(
                                    60, [](int i) { return 60 + 10 * i; },
                                    [](int i) { return 100 + 10 * i; }, 10)
                                    .c_str());
  EXPECT_EQ(inferLaunchQueueDepth(few, {}), 0u);
}

TEST(Replay, SynchronizingCallsKeepTheirOwnTime) {
  KinetoTrace trace = parseKineto(lazyInitTrace);
  OpOverheadSample sample =
      measureOpOverheads(trace, trace.topLevelOps().front(), std::nullopt,
                         ProfilerOverheads{0, 0});
  // Launch points: the cudaFree (nothing to wait for: all 100 us are its
  // own) and the launch.
  ASSERT_EQ(sample.launchPoints.size(), 2u);
  EXPECT_DOUBLE_EQ(sample.t2, 10);
  EXPECT_DOUBLE_EQ(sample.t4[0], 100);
  EXPECT_DOUBLE_EQ(sample.t4[1], 10);
  EXPECT_DOUBLE_EQ(sample.t5[0], 10);
  EXPECT_DOUBLE_EQ(sample.t3, 10);
  // Replayed: 10 + 100 + 10 + 10 + 10 = 140 on the host; the launch starts
  // at 120, the GEMM at 120 + 10 / 2 = 125 and ends at 145, after the host:
  // 145 (the trace's span: 150).
  ReplayOptions options;
  options.profiler = ProfilerOverheads{0, 0};
  std::vector<ReplayResult> own = replayIterations(trace, {}, options);
  ASSERT_EQ(own.size(), 1u);
  EXPECT_DOUBLE_EQ(own[0].predictedHost, 140);
  EXPECT_DOUBLE_EQ(own[0].predicted, 145);
  // The table keeps it under the function's name, not in the launches' T4.
  HostOverheadTable table = extractOverheads(trace, {}, ProfilerOverheads{0, 0},
                                             /*removeOutliers=*/false);
  EXPECT_DOUBLE_EQ(table.syncCall("cudaFree"), 100);
  EXPECT_DOUBLE_EQ(table.syncCall("cudaDeviceSynchronize"), 0);
  EXPECT_DOUBLE_EQ(table.defaults[3]->mean, 10);
}

/// A trace of test/Trace/Inputs, parsed (failures are test failures).
static KinetoTrace loadInputTrace(llvm::StringRef name) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(PERF_SOURCE_DIR) +
                                            "/test/Trace/Inputs/" + name.str());
  EXPECT_TRUE(bool(buffer));
  llvm::Expected<KinetoTrace> trace =
      KinetoTrace::parse((*buffer)->getBuffer(), name);
  EXPECT_TRUE(bool(trace));
  return std::move(*trace);
}

/// Each ProfilerStep of `trace` replayed with its ops' own overheads, no
/// profiler-cost subtraction.
static std::vector<ReplayResult> replayOwn(const KinetoTrace &trace) {
  ReplayOptions options;
  options.profiler = ProfilerOverheads{0, 0};
  return replayIterations(trace, trace.steps(), options);
}

// A cross-stream wait (test/Trace/Inputs/stream_wait_kineto.json): the add
// on stream 20 waits for the GEMM on stream 7, recorded before it.
TEST(Replay, CrossStreamWaitOrdersTheStreams) {
  KinetoTrace trace = loadInputTrace("stream_wait_kineto.json");
  ASSERT_EQ(trace.streamWaits().size(), 1u);
  const StreamWait &wait = trace.streamWaits().front();
  EXPECT_EQ(wait.stream, 20);
  EXPECT_EQ(wait.waitOnStream, 7);
  EXPECT_EQ(trace.runtimeCalls()[wait.waitCall].name, "cudaStreamWaitEvent");
  EXPECT_EQ(trace.runtimeCalls()[wait.recordCall].name, "cudaEventRecord");
  std::vector<ReplayResult> own = replayOwn(trace);
  ASSERT_EQ(own.size(), 1u);
  // aten::mm: T1 10 (from the step's start), T2 2, the launch 5: the GEMM
  // runs [14.5, 114.5). The add, launched at 50, waits for it: [114.5,
  // 124.5), no in-stream gap (it is another stream's work). Without the
  // wait it would have run at 52.5 and the step ended at 114.5. The host
  // keeps the step's 70 us after its last op: 130.
  EXPECT_DOUBLE_EQ(own[0].predictedDevice, 124.5);
  EXPECT_DOUBLE_EQ(own[0].predictedHost, 130);
  EXPECT_DOUBLE_EQ(own[0].predicted, 130);
}

// The same wait in a trace that records only the cudaStreamWaitEvent call
// (test/Trace/Inputs/unnamed_stream_wait_kineto.json): the stream of the
// thread's next launch (20) waits for the one it launched on last (7). A
// cudaStreamSynchronize waits for the stream launched on last (30), whose
// copy had ended when it returned; the GEMM on stream 7 had not.
TEST(Replay, WaitsAreReadOffTheCallsWhenTheTraceRecordsNoGpuSide) {
  KinetoTrace trace = loadInputTrace("unnamed_stream_wait_kineto.json");
  ASSERT_EQ(trace.streamWaits().size(), 1u);
  EXPECT_EQ(trace.linkStats().waitsInferred, 1u);
  const StreamWait &wait = trace.streamWaits().front();
  EXPECT_EQ(wait.stream, 20);
  EXPECT_EQ(wait.waitOnStream, 7);
  EXPECT_EQ(wait.waitCall, wait.recordCall);
  EXPECT_EQ(trace.runtimeCalls()[wait.waitCall].name, "cudaStreamWaitEvent");
  const RuntimeCall &sync = trace.runtimeCalls().back();
  ASSERT_EQ(sync.name, "cudaStreamSynchronize");
  ASSERT_TRUE(sync.syncedStream.has_value());
  EXPECT_EQ(sync.syncedStream->second, 30);
  std::vector<ReplayResult> own = replayOwn(trace);
  ASSERT_EQ(own.size(), 1u);
  // The GEMM [14.5, 114.5), the add after it [114.5, 124.5). Host: 30 for
  // aten::mm, 60 after aten::add, then 60 + 2 + 4 (the copy [64, 68)) + 4 to
  // the synchronize at 70, which waits for the copy only and takes its own
  // 2 us: 72; + 8 to the op's end, + the step's last 20 us: 100 (waiting for
  // the whole device it would have been 126.5 + 8 + 20).
  EXPECT_DOUBLE_EQ(own[0].predictedDevice, 124.5);
  EXPECT_DOUBLE_EQ(own[0].predictedHost, 100);
}

// A wait whose next launch comes from the op that launched the stream's
// last work orders that op's own kernels, which the MLIR path's
// dependencies between ops cannot carry: it is not inferred, so both paths
// agree. A wait the measured times contradict (the waiting stream's work
// started before the other stream's ended) is not inferred either.
TEST(Replay, InferredWaitsStayBetweenOpsAndAgreeWithTheMeasuredTimes) {
  KinetoTrace inOneOp = parseKineto(R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1000000, "dur": 200},
    {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 7, "tid": 7, "ts": 1000010, "dur": 40},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000012, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "copy", "pid": 0, "tid": 7, "ts": 1000015, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 7, "tid": 7, "ts": 1000020, "dur": 2, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000030, "dur": 5, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 20, "ts": 1000066, "dur": 10, "args": {"device": 0, "stream": 20, "correlation": 3}}
  ]})json");
  EXPECT_EQ(inOneOp.streamWaits().size(), 0u);
  KinetoTrace contradicted = parseKineto(R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 1000000, "dur": 200},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 1000010, "dur": 10},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000012, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "sgemm", "pid": 0, "tid": 7, "ts": 1000015, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 7, "tid": 7, "ts": 1000030, "dur": 10},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 7, "tid": 7, "ts": 1000031, "dur": 2, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1000034, "dur": 5, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "add", "pid": 0, "tid": 20, "ts": 1000040, "dur": 10, "args": {"device": 0, "stream": 20, "correlation": 3}}
  ]})json");
  EXPECT_EQ(contradicted.streamWaits().size(), 0u);
}

// Iterations: ProfilerStep spans holding an op (an empty trailing step is
// none), else the spans between optimizer annotations.
TEST(KinetoTraceIterations, ProfilerStepsWithOpsThenOptimizerSteps) {
  KinetoTrace steps = parseKineto(R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 7, "tid": 7, "ts": 100, "dur": 50},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 7, "tid": 7, "ts": 150, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 110, "dur": 30}
  ]})json");
  std::string how;
  std::vector<StepSpan> spans = steps.iterations(&how);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "ProfilerStep#1");
  EXPECT_EQ(how, "1 ProfilerStep spans (1 without ops left out)");

  KinetoTrace loop = parseKineto(R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "Optimizer.zero_grad#SGD.zero_grad", "pid": 7, "tid": 7, "ts": 100, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 110, "dur": 30},
    {"ph": "X", "cat": "user_annotation", "name": "Optimizer.zero_grad#SGD.zero_grad", "pid": 7, "tid": 7, "ts": 200, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 210, "dur": 30},
    {"ph": "X", "cat": "user_annotation", "name": "Optimizer.zero_grad#SGD.zero_grad", "pid": 7, "tid": 7, "ts": 320, "dur": 5}
  ]})json");
  spans = loop.iterations(&how);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_DOUBLE_EQ(spans[1].dur, 120);
  EXPECT_EQ(how, "2 iterations between 'Optimizer.zero_grad' annotations (no "
                 "ProfilerStep spans)");

  KinetoTrace none = parseKineto(R"json({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 110, "dur": 30}
  ]})json");
  EXPECT_TRUE(none.iterations(&how).empty());
}
