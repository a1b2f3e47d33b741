//===- Quantile.h - Quantiles of measured samples, dependency-free -*- C++
//-*-===//
//
// The one quantile rule of the project: the overhead tables perf-trace
// extracts and the spreads perf-bench stores (built without LLVM) are both
// read off measured samples with it.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_QUANTILE_H
#define PERF_SUPPORT_QUANTILE_H

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace perf {

/// The q-quantile (q clamped to 0..1) of `sorted` (ascending values in
/// anything with size() and operator[]), linearly interpolated between the
/// closest ranks (numpy's default): the median of {1, 2, 3, 4} is 2.5.
/// 0 for no values.
template <typename SortedValues>
double quantileOfSorted(const SortedValues &sorted, double q) {
  size_t count = sorted.size();
  if (count == 0)
    return 0;
  q = std::min(1.0, std::max(0.0, q));
  double position = q * static_cast<double>(count - 1);
  size_t lower = static_cast<size_t>(std::floor(position));
  size_t upper = std::min(lower + 1, count - 1);
  double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

} // namespace perf

#endif // PERF_SUPPORT_QUANTILE_H
