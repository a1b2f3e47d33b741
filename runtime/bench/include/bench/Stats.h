//===- Stats.h - Summaries of repeated timings ------------------*- C++ -*-===//

#ifndef PERF_BENCH_STATS_H
#define PERF_BENCH_STATS_H

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

struct Summary {
  size_t count = 0;
  double min = 0, max = 0, mean = 0;
  double median = 0, p10 = 0, p90 = 0;
  /// p90 - p10: the spread the database stores.
  double spread() const { return p90 - p10; }
};

/// The q-quantile (0..1) of `sorted`, linearly interpolated between the
/// closest ranks (numpy's default), so the median of {1, 2, 3, 4} is 2.5.
double quantile(const std::vector<double> &sorted, double q);

/// Summarizes `samples` (any order). An empty input gives a zero Summary.
Summary summarize(std::vector<double> samples);

/// A console progress bar for long sweeps, drawn on one line with '\r'.
class ProgressBar {
public:
  /// Draws nothing when `enabled` is false (output is not a terminal).
  ProgressBar(size_t total, bool enabled, std::FILE *out = stderr);
  /// Marks `done` of total finished; `label` names the current kernel.
  void update(size_t done, const std::string &label);
  /// Ends the line.
  void finish();

  /// The text of the bar: "[#####     ]  50% 5/10 eta 12s label", with a
  /// `width`-character bar; the eta is elapsed / done * remaining.
  static std::string render(size_t done, size_t total, double elapsedSec,
                            size_t width, const std::string &label);

private:
  size_t total;
  bool enabled;
  std::FILE *out;
  double startSec;
};

/// Seconds on a monotonic clock.
double monotonicSeconds();

} // namespace bench

#endif // PERF_BENCH_STATS_H
