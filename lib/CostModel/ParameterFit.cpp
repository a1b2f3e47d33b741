//===- ParameterFit.cpp - Nelder-Mead within parameter ranges -------------===//

#include "perf/CostModel/ParameterFit.h"
#include <algorithm>
#include <cmath>
#include <numeric>

using namespace perf;

std::vector<double>
perf::minimizeWithin(llvm::ArrayRef<FitParameter> parameters,
                     llvm::function_ref<double(llvm::ArrayRef<double>)> loss,
                     unsigned iterations) {
  size_t n = parameters.size();
  auto clamp = [&](std::vector<double> x) {
    for (size_t i = 0; i < n; ++i)
      x[i] = std::clamp(x[i], parameters[i].lo, parameters[i].hi);
    return x;
  };
  auto value = [&](const std::vector<double> &x) {
    double v = loss(x);
    return std::isfinite(v) ? v : 1e300;
  };
  // The first simplex: the start and a step of a tenth of each range.
  std::vector<std::vector<double>> simplex(n + 1);
  std::vector<double> start(n);
  for (size_t i = 0; i < n; ++i)
    start[i] = parameters[i].start;
  simplex[0] = clamp(start);
  for (size_t i = 0; i < n; ++i) {
    std::vector<double> x = simplex[0];
    double step = 0.1 * (parameters[i].hi - parameters[i].lo);
    x[i] += x[i] + step <= parameters[i].hi ? step : -step;
    simplex[i + 1] = clamp(x);
  }
  std::vector<double> f(n + 1);
  for (size_t i = 0; i <= n; ++i)
    f[i] = value(simplex[i]);

  std::vector<size_t> order(n + 1);
  for (unsigned it = 0; it < iterations; ++it) {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return f[a] < f[b]; });
    size_t best = order.front(), worst = order.back(),
           second = order[n > 0 ? n - 1 : 0];
    if (std::abs(f[worst] - f[best]) <= 1e-12 * (std::abs(f[best]) + 1e-12))
      break;
    std::vector<double> centroid(n, 0);
    for (size_t i : order)
      if (i != worst)
        for (size_t j = 0; j < n; ++j)
          centroid[j] += simplex[i][j] / double(n);
    auto towards = [&](double t) {
      std::vector<double> x(n);
      for (size_t j = 0; j < n; ++j)
        x[j] = centroid[j] + t * (simplex[worst][j] - centroid[j]);
      return clamp(x);
    };
    std::vector<double> reflected = towards(-1);
    double fr = value(reflected);
    if (fr < f[best]) {
      std::vector<double> expanded = towards(-2);
      double fe = value(expanded);
      if (fe < fr) {
        simplex[worst] = expanded;
        f[worst] = fe;
      } else {
        simplex[worst] = reflected;
        f[worst] = fr;
      }
      continue;
    }
    if (fr < f[second]) {
      simplex[worst] = reflected;
      f[worst] = fr;
      continue;
    }
    std::vector<double> contracted = towards(fr < f[worst] ? -0.5 : 0.5);
    double fc = value(contracted);
    if (fc < std::min(fr, f[worst])) {
      simplex[worst] = contracted;
      f[worst] = fc;
      continue;
    }
    // Shrink towards the best vertex.
    for (size_t i = 0; i <= n; ++i) {
      if (i == best)
        continue;
      for (size_t j = 0; j < n; ++j)
        simplex[i][j] =
            simplex[best][j] + 0.5 * (simplex[i][j] - simplex[best][j]);
      simplex[i] = clamp(simplex[i]);
      f[i] = value(simplex[i]);
    }
  }
  size_t best = std::min_element(f.begin(), f.end()) - f.begin();
  return simplex[best];
}

double perf::meanSquaredLogError(llvm::ArrayRef<double> predicted,
                                 llvm::ArrayRef<double> measured) {
  double sum = 0;
  size_t n = std::min(predicted.size(), measured.size());
  for (size_t i = 0; i < n; ++i) {
    double r = predicted[i] > 0 && measured[i] > 0
                   ? std::log(predicted[i] / measured[i])
                   : 10.0;
    sum += r * r;
  }
  return n ? sum / double(n) : 0;
}
