//===- Spec.h - Choosing what perf-bench measures ---------------*- C++ -*-===//
//
// Two sources: a sweep spec (JSON, a cartesian product over shapes) and
// kernel lists (JSON, the database keys of a model's kernels as perf-opt
// writes them with --estimate=kernel-list=FILE). Both end in a deduplicated
// list of Kernels. See docs/runtime-bench.md.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_SPEC_H
#define PERF_BENCH_SPEC_H

#include "bench/Kernel.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace bench {

/// Arrays and objects nested deeper than this are refused before parsing.
constexpr unsigned kMaxJsonDepth = 512;

/// Parses JSON text into `out`, objects keeping the file's key order (a sweep
/// expands in the order the spec lists its axes). On failure returns false
/// with `error`: "line L, column C: what" for a syntax error, "nesting deeper
/// than 512" or "duplicate key 'k'" (nlohmann's parser callback, which
/// refuses them, knows no position). Never throws.
bool parseJsonText(const std::string &text, nlohmann::ordered_json &out,
                   std::string &error);

struct SweepSpec {
  std::vector<Kernel> kernels;
  /// Run settings the spec may carry; -1 where it does not.
  int warmup = -1;
  int reps = -1;
};

/// Expands a sweep spec. `name` prefixes error messages ("spec.json:
/// kernels[2]: conv2d: missing attribute 'r'").
bool parseSweepSpec(const std::string &text, const std::string &name,
                    SweepSpec &out, std::string &error);
bool loadSweepSpec(const std::string &path, SweepSpec &out, std::string &error);

/// The "schema" value of a kernel list.
constexpr const char *kKernelListSchema = "perf.kernel_list/1";

/// What a kernel list holds.
struct KernelList {
  std::vector<Kernel> kernels; // unique within the list, in file order
  uint64_t kernelOps = 0;      // sum of the entries' counts
  /// Kernel ops perf-bench cannot measure, by reason.
  std::map<std::string, uint64_t> unsupported;
};

/// Reads a kernel list: {"schema": "perf.kernel_list/1", "kernels": [{"kind",
/// "dtype", "signature", "count", "device"}, ...]}. Each entry is checked by
/// parseKernelKey(); an entry perf-bench cannot measure is counted in
/// `unsupported`, a malformed one fails with "name: kernels[i]: what".
bool parseKernelList(const std::string &text, const std::string &name,
                     KernelList &out, std::string &error);
bool loadKernelList(const std::string &path, KernelList &out,
                    std::string &error);

/// The "schema" value of a launch list.
constexpr const char *kLaunchListSchema = "perf.launch_list/1";

/// One launch of a step as perf-opt writes it with
/// --estimate=launch-list=FILE, in the order the host issues them.
struct PlannedLaunch {
  enum class Type { Kernel, Collective, Sync };
  Type type = Type::Kernel;
  int64_t device = 0;
  /// A sync's -1: every stream of the device.
  int64_t stream = 0;
  /// Index into GraphPlan::kernels, or -1 for a launch that is not replayed
  /// (a collective, a kernel perf-bench cannot run or one on another device).
  int64_t kernel = -1;
  /// Earlier launches on other streams this one waits for.
  std::vector<size_t> after;
};

/// A step to replay on one GPU (device 0 of the graph).
struct GraphPlan {
  std::string name, target;
  /// The step time perf predicted.
  double predictedUs = 0;
  std::vector<PlannedLaunch> launches;
  /// Its distinct kernels, each built once.
  std::vector<Kernel> kernels;
  /// Launches not replayed, by reason ("collective", "device 1", "gemm: ...").
  std::map<std::string, uint64_t> notReplayed;
  /// Whether a later launch waits for launch i.
  std::vector<bool> waitedFor;
};

/// Reads a launch list: {"schema": "perf.launch_list/1", "graphs": [{"name",
/// "device", "predicted_us", "launches": [...]}]}. Launches on devices other
/// than 0, collectives and kernels perf-bench cannot run are counted in
/// notReplayed; a malformed entry fails with "name: graphs[g].launches[i]:
/// what" (an "after" that is not an earlier launch included).
bool parseLaunchList(const std::string &text, const std::string &name,
                     std::vector<GraphPlan> &out, std::string &error);
bool loadLaunchList(const std::string &path, std::vector<GraphPlan> &out,
                    std::string &error);

/// Appends the kernels of `add` not yet in `into` (by Kernel::key) and not in
/// `skip`; returns how many it appended.
size_t mergeUnique(std::vector<Kernel> &into, const std::vector<Kernel> &add,
                   const std::set<std::string> &skip);

bool readFile(const std::string &path, std::string &out, std::string &error);

} // namespace bench

#endif // PERF_BENCH_SPEC_H
