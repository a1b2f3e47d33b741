//===- Stats.cpp - Summaries of repeated timings, progress bar ------------===//

#include "bench/Stats.h"
#include "perf/Support/Quantile.h"

#include <algorithm>
#include <chrono>
#include <cmath>

using namespace bench;

double bench::quantile(const std::vector<double> &sorted, double q) {
  // The project's one quantile rule (perf/Support/Quantile.h).
  return perf::quantileOfSorted(sorted, q);
}

Summary bench::summarize(std::vector<double> samples) {
  Summary s;
  if (samples.empty())
    return s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  double sum = 0;
  for (double x : samples)
    sum += x;
  s.mean = sum / static_cast<double>(samples.size());
  s.median = quantile(samples, 0.5);
  s.p10 = quantile(samples, 0.1);
  s.p90 = quantile(samples, 0.9);
  return s;
}

double bench::monotonicSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

ProgressBar::ProgressBar(size_t total, bool enabled, std::FILE *out)
    : total(total), enabled(enabled), out(out), startSec(monotonicSeconds()) {}

std::string ProgressBar::render(size_t done, size_t total, double elapsedSec,
                                size_t width, const std::string &label) {
  double fraction = total ? static_cast<double>(done) / total : 1.0;
  fraction = std::min(1.0, fraction);
  size_t filled = static_cast<size_t>(fraction * width + 1e-9);
  std::string bar =
      "[" + std::string(filled, '#') + std::string(width - filled, ' ') + "]";
  char buf[96];
  std::snprintf(buf, sizeof(buf), " %3d%% %zu/%zu",
                static_cast<int>(fraction * 100 + 1e-9), done, total);
  bar += buf;
  if (done > 0 && done < total) {
    double eta = elapsedSec / static_cast<double>(done) *
                 static_cast<double>(total - done);
    std::snprintf(buf, sizeof(buf), " eta %.0fs", eta);
    bar += buf;
  }
  if (!label.empty())
    bar += " " + label;
  return bar;
}

void ProgressBar::update(size_t done, const std::string &label) {
  if (!enabled)
    return;
  std::string line =
      render(done, total, monotonicSeconds() - startSec, 30, label);
  if (line.size() > 110)
    line.resize(110);
  std::fprintf(out, "\r%-110s", line.c_str());
  std::fflush(out);
}

void ProgressBar::finish() {
  if (enabled)
    std::fprintf(out, "\n");
}
