//===- Limits.h - Upper bounds on sizes, counts and iterations --*- C++ -*-===//
//
// perf reads files it did not write. Every size, count and iteration number
// that comes from an input file or an option is checked against one of these
// named bounds before anything is allocated or looped over, so a huge value
// is a located error naming the limit, not an out-of-memory abort, a hang or
// a signed overflow. docs/reliability.md lists them with their reasons.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_LIMITS_H
#define PERF_SUPPORT_LIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include <cstdint>
#include <optional>
#include <string>

namespace perf {

struct Limit {
  /// What errors call it ("max-extent").
  llvm::StringLiteral name;
  int64_t max;
};

/// One kernel size, tensor dimension or byte count (2^40: a terabyte-sized
/// tensor). Products of a few of them stay far inside a double, and sums of
/// two inside an int64.
inline constexpr Limit kMaxExtent{"max-extent", int64_t(1) << 40};
/// Elements of one tensor (the product of its dimensions).
inline constexpr Limit kMaxTensorElements{"max-tensor-elements", int64_t(1)
                                                                     << 48};
/// An integer `perf.*` fact: a count, size, degree or index, some summed
/// over a whole model (its parameters, its gradient bytes). Exact in a
/// double, and a few hundred times it stays inside an int64.
inline constexpr Limit kMaxCount{"max-count", int64_t(1) << 53};
/// Devices, ranks, replicas, stages, microbatches, streams and device ids.
inline constexpr Limit kMaxDevices{"max-devices", int64_t(1) << 16};
/// Back-to-back steps of the critical-path walk (--estimate-iterations).
inline constexpr Limit kMaxIterations{"max-iterations", 1000};
/// Points of one perf-sweep grid (each estimates the whole model).
inline constexpr Limit kMaxSweepPoints{"max-sweep-points", 100'000};
/// Ops of one graph and nodes of one imported model, read or created.
inline constexpr Limit kMaxGraphOps{"max-graph-ops", 10'000'000};
/// Ops a graph written with perf.repeat stands for once unrolled: the
/// timing passes walk every copy (about 0.4 KB of memory per op, so about
/// 12 GB at the limit; a few bytes of text must not ask for more).
inline constexpr Limit kMaxUnrolledOps{"max-unrolled-ops", 30'000'000};
/// Bytes of one input file, compressed or after decompression.
inline constexpr Limit kMaxInputBytes{"max-input-bytes",
                                      (int64_t(1) << 31) - 1};
/// Nesting of arrays and objects in a JSON input; the parsers recurse.
inline constexpr Limit kMaxJsonDepth{"max-json-depth", 256};

/// Whether `value` is at most the limit.
inline bool withinLimit(int64_t value, const Limit &limit) {
  return value <= limit.max;
}

/// "<what> is <value>, above the limit max-extent (1099511627776)".
std::string limitExceeded(const llvm::Twine &what, int64_t value,
                          const Limit &limit);

/// Why the tensor shape `dims` is beyond the limits (a dimension above
/// max-extent, or more elements than max-tensor-elements); nullopt when it is
/// within them. Negative dimensions (unknown sizes) are the caller's to
/// reject or skip.
std::optional<std::string> checkTensorShape(llvm::ArrayRef<int64_t> dims);

} // namespace perf

#endif // PERF_SUPPORT_LIMITS_H
