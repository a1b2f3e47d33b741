//===- CollectiveCalibration.cpp - Fitting NCCL's figures to measurements -===//

#include "perf/Comm/CollectiveCalibration.h"
#include <algorithm>
#include <array>
#include <cmath>

using namespace perf;

namespace {
constexpr unsigned kNumCoefficients = 3;
using Vector = std::array<double, kNumCoefficients>;

/// The point's features for (latencyScale, latencyOffsetUs, 1 / efficiency).
Vector features(const CalibrationPoint &p) {
  return {p.ncclLatencyUs, 1.0, p.bytes / (1000 * p.ncclBandwidthGBs)};
}

double dot(const Vector &a, const Vector &b) {
  double s = 0;
  for (unsigned i = 0; i < kNumCoefficients; ++i)
    s += a[i] * b[i];
  return s;
}

/// Weighted least squares over the coefficients marked free, the others held
/// at their value in `out`, by Gaussian elimination with partial pivoting on
/// the normal equations; false when they are singular (fewer independent
/// points than free coefficients).
bool weightedLeastSquares(llvm::ArrayRef<CalibrationPoint> points,
                          llvm::ArrayRef<double> weights,
                          const std::array<bool, kNumCoefficients> &free,
                          Vector &out) {
  unsigned idx[kNumCoefficients], n = 0;
  for (unsigned i = 0; i < kNumCoefficients; ++i)
    if (free[i])
      idx[n++] = i;
  double a[kNumCoefficients][kNumCoefficients + 1] = {};
  for (size_t k = 0; k < points.size(); ++k) {
    Vector f = features(points[k]);
    double y = points[k].measuredUs;
    for (unsigned i = 0; i < kNumCoefficients; ++i)
      if (!free[i])
        y -= out[i] * f[i];
    for (unsigned r = 0; r < n; ++r) {
      for (unsigned c = 0; c < n; ++c)
        a[r][c] += weights[k] * f[idx[r]] * f[idx[c]];
      a[r][n] += weights[k] * f[idx[r]] * y;
    }
  }
  double diagonal[kNumCoefficients];
  for (unsigned c = 0; c < n; ++c)
    diagonal[c] = a[c][c];
  for (unsigned c = 0; c < n; ++c) {
    unsigned pivot = c;
    for (unsigned r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[pivot][c]))
        pivot = r;
    // What is left of a column after elimination, against what it held: a
    // column the others explain (round-off aside) carries no information.
    if (!(std::fabs(a[pivot][c]) > 1e-9 * diagonal[c]))
      return false;
    std::swap(a[c], a[pivot]);
    for (unsigned r = 0; r < n; ++r) {
      if (r == c)
        continue;
      double factor = a[r][c] / a[c][c];
      for (unsigned j = c; j <= n; ++j)
        a[r][j] -= factor * a[c][j];
    }
  }
  for (unsigned r = 0; r < n; ++r)
    out[idx[r]] = a[r][n] / a[r][r];
  return true;
}

/// Weighted least squares with every coefficient >= 0: a coefficient that
/// comes out negative is held at 0 and the rest refitted (an active set
/// that only grows, enough for three coefficients). Points that cannot
/// separate the three (too few sizes) keep NCCL's latency (scale 1), then
/// also no offset, and fit what is left.
Vector nonNegativeLeastSquares(llvm::ArrayRef<CalibrationPoint> points,
                               llvm::ArrayRef<double> weights) {
  static const Vector kStart[] = {{0, 0, 0}, {1, 0, 0}, {1, 0, 0}};
  static const std::array<bool, kNumCoefficients> kFree[] = {
      {true, true, true}, {false, true, true}, {false, false, true}};
  for (unsigned attempt = 0; attempt < 3; ++attempt) {
    std::array<bool, kNumCoefficients> free = kFree[attempt];
    Vector beta = kStart[attempt];
    bool solved = true;
    while (solved) {
      solved = weightedLeastSquares(points, weights, free, beta);
      unsigned worst = kNumCoefficients;
      for (unsigned i = 0; solved && i < kNumCoefficients; ++i)
        if (free[i] && beta[i] < 0 &&
            (worst == kNumCoefficients || beta[i] < beta[worst]))
          worst = i;
      if (solved && worst == kNumCoefficients)
        return beta;
      if (solved) {
        free[worst] = false;
        beta[worst] = 0;
      }
    }
  }
  return {1, 0, 1};
}
} // namespace

double perf::calibratedTimeUs(const CollectiveCalibration &c,
                              const CalibrationPoint &p) {
  return c.latencyUs(p.ncclLatencyUs) +
         p.bytes / (1000 * c.bandwidthEfficiency * p.ncclBandwidthGBs);
}

CollectiveCalibration
perf::fitCollectiveCalibration(llvm::ArrayRef<CalibrationPoint> points) {
  CollectiveCalibration c;
  c.points = points.size();
  if (points.empty())
    return c;
  // Start from least squares on relative error (weights 1 / t^2), then
  // reweight each point by 1 / (t^2 |relative residual|) so the weighted
  // squares approach the absolute relative errors.
  std::vector<double> weights;
  for (const CalibrationPoint &p : points)
    weights.push_back(1 / (p.measuredUs * p.measuredUs));
  Vector beta = nonNegativeLeastSquares(points, weights);
  // Residuals below 1e-4 (0.01%) are floored so exact points do not take
  // all the weight.
  constexpr double kFloor = 1e-4;
  constexpr unsigned kIterations = 40;
  for (unsigned it = 0; it < kIterations; ++it) {
    for (size_t k = 0; k < points.size(); ++k) {
      double t = points[k].measuredUs;
      double r = std::fabs(dot(beta, features(points[k])) - t) / t;
      weights[k] = 1 / (t * t * std::max(r, kFloor));
    }
    beta = nonNegativeLeastSquares(points, weights);
  }
  c.latencyScale = beta[0];
  c.latencyOffsetUs = beta[1];
  // A bandwidth term the fit drops entirely (no size dependence) leaves the
  // efficiency at NCCL's own.
  c.bandwidthEfficiency = beta[2] > 0 ? 1 / beta[2] : 1;
  return c;
}
