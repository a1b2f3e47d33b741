//===- TimelineTest.cpp - The schedule as a Chrome trace ------------------===//

#include "perf/Schedule/Timeline.h"
#include "gtest/gtest.h"
#include <map>
#include <set>
#include <tuple>

using namespace perf;
namespace json = llvm::json;

namespace {
struct Slice {
  std::string name, category;
  int64_t pid, tid;
  double start, end;
};

/// The events of a trace, sorted by phase.
struct Parsed {
  std::vector<Slice> slices;
  /// flow id -> (start event, finish event) as (pid, tid, ts).
  std::map<int64_t,
           std::vector<std::tuple<std::string, int64_t, int64_t, double>>>
      flows;
  std::set<int64_t> namedProcesses;
  std::set<std::pair<int64_t, int64_t>> namedThreads;
};

Parsed parse(const json::Array &events) {
  Parsed p;
  for (const json::Value &v : events) {
    const json::Object &e = *v.getAsObject();
    std::string phase = e.getString("ph")->str();
    int64_t pid = *e.getInteger("pid");
    if (phase == "X") {
      double ts = *e.getNumber("ts");
      p.slices.push_back({e.getString("name")->str(), e.getString("cat")->str(),
                          pid, *e.getInteger("tid"), ts,
                          ts + *e.getNumber("dur")});
    } else if (phase == "s" || phase == "f") {
      p.flows[*e.getInteger("id")].emplace_back(
          phase, pid, *e.getInteger("tid"), *e.getNumber("ts"));
    } else if (phase == "M" && *e.getString("name") == "process_name") {
      p.namedProcesses.insert(pid);
    } else if (phase == "M" && *e.getString("name") == "thread_name") {
      p.namedThreads.insert({pid, *e.getInteger("tid")});
    }
  }
  return p;
}

size_t addOp(Schedule &s, int64_t device, std::vector<uint32_t> deps,
             std::vector<KernelSpec> kernels) {
  OpSpec op;
  op.device = device;
  op.t1 = 8;
  op.t2 = 10;
  op.t3 = 5;
  op.t5 = 5;
  for (KernelSpec &k : kernels) {
    k.launchUs = 10;
    s.addKernel(k);
  }
  return s.addOp(op, deps);
}

KernelSpec kernelOn(int64_t stream, double latency,
                    std::vector<int64_t> group = {}) {
  KernelSpec k;
  k.stream = stream;
  k.latencyUs = latency;
  k.group.assign(group.begin(), group.end());
  return k;
}

/// A 100 us GEMM on stream 0, a 20 us kernel on stream 1 that reads its
/// result, an all_reduce over devices 0 and 1 on stream 2, a synchronize.
/// T1=8, T2=10, T3=5, T4=10, T5=5 (the sync: T1=2, T5=3). By hand:
///   gemm op: host 0..33, launch 18..28, kernel 23..123
///   relu op: host 33..66, launch 51..61, ready at 56 but waits for the
///            gemm: 123..143 (an arrow from stream 0 to stream 1)
///   all_reduce op: host 66..99, launch 84..94, 89..139 on both GPUs
///   sync: host 99, T1 to 101, waits to 143 (stream 1), T5 to 146
Parsed buildTrace() {
  Schedule s;
  uint32_t gemm = addOp(s, 0, {}, {kernelOn(0, 100)});
  addOp(s, 0, {gemm}, {kernelOn(1, 20)});
  addOp(s, 0, {}, {kernelOn(2, 50, {0, 1})});
  OpSpec sync;
  sync.kind = OpSpec::Kind::Sync;
  sync.t1 = 2;
  sync.t5 = 3;
  s.addOp(sync);
  s.run();

  TimelineGraph g;
  g.name = "step";
  g.device = "toy";
  g.opNames = {"aten::mm", "aten::relu", "ddp::all_reduce", "perf.sync"};
  g.kernels = {{"gemm", "gemm", "roofline", 2e9, 1e6, -1},
               {"relu", "elementwise", "roofline", 0, 1e6, -1},
               {"all_reduce", "all_reduce", "nccl", 0, 0, -1}};
  json::Array events;
  int64_t flowId = 0;
  appendTimelineEvents(s, g, 0, flowId, events);
  // The document is what a viewer opens: it must print and parse back.
  std::string text;
  llvm::raw_string_ostream os(text);
  printTimeline(os, events);
  llvm::Expected<json::Value> back = json::parse(text);
  EXPECT_TRUE(bool(back));
  const json::Object *doc = back->getAsObject();
  EXPECT_EQ(*doc->getObject("otherData")->getString("schema"),
            "perf.timeline/1");
  return parse(*doc->getArray("traceEvents"));
}

const Slice *find(const Parsed &p, llvm::StringRef name, int64_t pid) {
  for (const Slice &s : p.slices)
    if (s.name == name && s.pid == pid)
      return &s;
  return nullptr;
}
} // namespace

TEST(Timeline, TimesWorkedByHand) {
  Parsed p = buildTrace();
  const Slice *gemm = find(p, "gemm", 0);
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->tid, 1); // stream 0
  EXPECT_DOUBLE_EQ(gemm->start, 23);
  EXPECT_DOUBLE_EQ(gemm->end, 123);
  const Slice *relu = find(p, "relu", 0);
  ASSERT_TRUE(relu);
  EXPECT_EQ(relu->tid, 2); // stream 1
  EXPECT_DOUBLE_EQ(relu->start, 123);
  EXPECT_DOUBLE_EQ(relu->end, 143);
  // The collective on both participants.
  for (int64_t pid : {0, 1}) {
    const Slice *ar = find(p, "all_reduce", pid);
    ASSERT_TRUE(ar) << "device " << pid;
    EXPECT_EQ(ar->tid, 3);
    EXPECT_DOUBLE_EQ(ar->start, 89);
    EXPECT_DOUBLE_EQ(ar->end, 139);
  }
  const Slice *wait = find(p, "wait", 0);
  ASSERT_TRUE(wait);
  EXPECT_DOUBLE_EQ(wait->start, 101);
  EXPECT_DOUBLE_EQ(wait->end, 143);
  const Slice *sync = find(p, "perf.sync", 0);
  ASSERT_TRUE(sync);
  EXPECT_DOUBLE_EQ(sync->end, 146);
  // The relu's wait on the GEMM is an arrow from stream 0 to stream 1.
  bool crossStream = false;
  for (const auto &[id, ends] : p.flows)
    if (ends.size() == 2 && std::get<2>(ends[0]) == 1 &&
        std::get<2>(ends[1]) == 2 && std::get<3>(ends[1]) == 123)
      crossStream = true;
  EXPECT_TRUE(crossStream);
}

TEST(Timeline, StructureIsConsistent) {
  Parsed p = buildTrace();
  // Every overhead phase lies inside a host op of its thread.
  for (const Slice &s : p.slices) {
    if (s.category != "overhead")
      continue;
    bool inside = false;
    for (const Slice &parent : p.slices)
      if ((parent.category == "host" || parent.category == "sync") &&
          parent.pid == s.pid && parent.tid == s.tid &&
          parent.start <= s.start && s.end <= parent.end)
        inside = true;
    EXPECT_TRUE(inside) << s.name << " at " << s.start;
  }
  // Host ops and device work never overlap on one track.
  for (const char *category : {"host", "kernel", "collective"}) {
    std::map<std::pair<int64_t, int64_t>, std::vector<const Slice *>> tracks;
    for (const Slice &s : p.slices)
      if (s.category == category ||
          (std::string(category) == "kernel" && s.category == "collective"))
        tracks[{s.pid, s.tid}].push_back(&s);
    for (auto &[track, slices] : tracks) {
      std::sort(
          slices.begin(), slices.end(),
          [](const Slice *a, const Slice *b) { return a->start < b->start; });
      for (size_t i = 1; i < slices.size(); ++i)
        EXPECT_LE(slices[i - 1]->end, slices[i]->start)
            << slices[i - 1]->name << " overlaps " << slices[i]->name;
    }
  }
  // Every flow has one start and one finish, the start first; every track
  // an event is on is named.
  EXPECT_EQ(p.flows.size(), 4u); // three launches, one cross-stream wait
  for (const auto &[id, ends] : p.flows) {
    ASSERT_EQ(ends.size(), 2u) << "flow " << id;
    EXPECT_EQ(std::get<0>(ends[0]), "s");
    EXPECT_EQ(std::get<0>(ends[1]), "f");
    EXPECT_LE(std::get<3>(ends[0]), std::get<3>(ends[1]));
  }
  for (const Slice &s : p.slices) {
    EXPECT_TRUE(p.namedProcesses.count(s.pid)) << s.pid;
    EXPECT_TRUE(p.namedThreads.count({s.pid, s.tid})) << s.pid << "/" << s.tid;
  }
}
