//===- LaunchList.cpp - A scheduled step as the launches to replay --------===//

#include "perf/Schedule/LaunchList.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <set>
#include <utility>

using namespace perf;

llvm::json::Object perf::launchListGraph(const Schedule &schedule,
                                         const ScheduleResult &result,
                                         const LaunchGraph &graph) {
  const std::vector<ScheduledOp> &ops = schedule.ops();
  // The launch number of each op's last kernel on each (device, stream):
  // what a consumer on another stream waits for (a stream runs its
  // launches in order, so the last one covers the rest).
  std::vector<std::map<std::pair<int64_t, int64_t>, int64_t>> lastOfOp(
      ops.size());
  llvm::json::Array launches;
  for (size_t i = 0; i < ops.size(); ++i) {
    const ScheduledOp &op = ops[i];
    const OpSpec &spec = schedule.opSpec(i);
    const std::string &name = i < graph.opNames.size() ? graph.opNames[i] : "";
    if (spec.kind == OpSpec::Kind::Sync) {
      launches.push_back(llvm::json::Object{{"type", "sync"},
                                            {"op", int64_t(i)},
                                            {"name", name},
                                            {"device", spec.device},
                                            {"stream", spec.syncStream}});
      continue;
    }
    for (size_t k : op.kernels) {
      const KernelSpec &sk = schedule.kernelSpec(k);
      const LaunchKernel &what =
          k < graph.kernels.size() ? graph.kernels[k] : LaunchKernel();
      std::pair<int64_t, int64_t> place{sk.device, sk.stream};
      // Producers' last launches elsewhere, each once, in launch order.
      std::set<int64_t> after;
      for (size_t dep : schedule.deps(i))
        for (const auto &[where, launch] : lastOfOp[dep])
          if (where != place)
            after.insert(launch);
      llvm::json::Array afterList;
      for (int64_t launch : after)
        afterList.push_back(launch);
      bool collective = !sk.group.empty();
      llvm::json::Object launch{{"type", collective ? "collective" : "kernel"},
                                {"op", int64_t(i)},
                                {"name", name},
                                {"device", sk.device},
                                {"stream", sk.stream},
                                {"kind", what.kind},
                                {"dtype", what.dtype},
                                {"predicted_us", sk.latencyUs},
                                {"after", std::move(afterList)}};
      if (collective) {
        launch["bytes"] = what.bytes;
        llvm::json::Array group;
        for (int64_t device : sk.group)
          group.push_back(device);
        launch["group"] = std::move(group);
      } else {
        launch["signature"] = what.signature;
      }
      int64_t number = int64_t(launches.size());
      launches.push_back(std::move(launch));
      lastOfOp[i][place] = number;
    }
  }
  return llvm::json::Object{{"name", graph.name},
                            {"device", graph.device},
                            {"predicted_us", result.e2eUs},
                            {"launches", std::move(launches)}};
}

void perf::printLaunchList(llvm::raw_ostream &os, llvm::json::Array graphs) {
  // One launch per line: the file greps and diffs, and a step of a million
  // launches is not indented a million times over.
  os << "{\"schema\": \"perf.launch_list/1\", \"graphs\": [";
  for (size_t g = 0; g < graphs.size(); ++g) {
    llvm::json::Object &graph = *graphs[g].getAsObject();
    llvm::json::Array launches = std::move(*graph.getArray("launches"));
    graph.erase("launches");
    os << (g ? ",\n" : "\n");
    // The graph's fields, then its launches.
    std::string head;
    llvm::raw_string_ostream hs(head);
    hs << llvm::json::Value(std::move(graph));
    head.pop_back(); // the closing brace
    os << head << (head.size() > 1 ? ", " : "") << "\"launches\": [";
    for (size_t i = 0; i < launches.size(); ++i)
      os << (i ? ",\n  " : "\n  ") << launches[i];
    os << "\n]}";
  }
  os << "\n]}\n";
}
