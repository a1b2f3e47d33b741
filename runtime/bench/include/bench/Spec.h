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

/// Appends the kernels of `add` not yet in `into` (by Kernel::key) and not in
/// `skip`; returns how many it appended.
size_t mergeUnique(std::vector<Kernel> &into, const std::vector<Kernel> &add,
                   const std::set<std::string> &skip);

bool readFile(const std::string &path, std::string &out, std::string &error);

} // namespace bench

#endif // PERF_BENCH_SPEC_H
