//===- Spec.h - Choosing what perf-bench measures ---------------*- C++ -*-===//
//
// Two sources: a sweep spec (JSON, a cartesian product over shapes) and
// imported models (the perf dialect's kernel ops in textual MLIR). Both end
// in a deduplicated list of Kernels. See docs/runtime-bench.md.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_SPEC_H
#define PERF_BENCH_SPEC_H

#include "bench/Kernel.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace bench {

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

/// What scanning textual MLIR found.
struct ModelScan {
  std::vector<Kernel> kernels; // unique within the scan, in first-seen order
  unsigned kernelOps = 0;      // perf kernel ops seen (with repeats)
  /// perf.* ops that are no kernel perf-bench measures, by op name.
  std::map<std::string, unsigned> unknownOps;
  /// Kernel ops whose attributes perf-bench cannot measure, by reason.
  std::map<std::string, unsigned> unsupported;
};

/// Scans textual MLIR for perf dialect kernel ops (`perf.gemm {m = 64 : i64,
/// ...}`, generic or custom form) without linking MLIR. A malformed attribute
/// dictionary of a kernel op fails with "name:line: ..."; unknown ops and
/// unsupported attribute values are counted, not fatal.
bool scanModel(const std::string &text, const std::string &name, ModelScan &out,
               std::string &error);
bool scanModelFile(const std::string &path, ModelScan &out, std::string &error);

/// Parses one attribute dictionary body, the text between '{' and '}'.
bool parseAttrDict(const std::string &body, AttrMap &out, std::string &error);

/// Appends the kernels of `add` not yet in `into` (by Kernel::key) and not in
/// `skip`; returns how many it appended.
size_t mergeUnique(std::vector<Kernel> &into, const std::vector<Kernel> &add,
                   const std::set<std::string> &skip);

bool readFile(const std::string &path, std::string &out, std::string &error);

} // namespace bench

#endif // PERF_BENCH_SPEC_H
