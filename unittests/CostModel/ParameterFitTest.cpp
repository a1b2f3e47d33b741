//===- ParameterFitTest.cpp - Nelder-Mead within ranges -------------------===//

#include "perf/CostModel/ParameterFit.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace perf;

TEST(ParameterFit, FindsTheMinimumOfABowl) {
  std::vector<double> x = minimizeWithin(
      {{0, -10, 10}, {0, -10, 10}}, [](llvm::ArrayRef<double> p) {
        return (p[0] - 3) * (p[0] - 3) + 10 * (p[1] + 2) * (p[1] + 2);
      });
  EXPECT_NEAR(x[0], 3, 1e-4);
  EXPECT_NEAR(x[1], -2, 1e-4);
}

TEST(ParameterFit, StaysInItsRange) {
  // The unconstrained minimum (5) is outside [0, 1]: the edge is found.
  std::vector<double> x =
      minimizeWithin({{0.5, 0, 1}}, [](llvm::ArrayRef<double> p) {
        return (p[0] - 5) * (p[0] - 5);
      });
  EXPECT_NEAR(x[0], 1, 1e-6);
}

TEST(ParameterFit, LogErrorOfTimes) {
  EXPECT_DOUBLE_EQ(meanSquaredLogError({2, 1}, {1, 1}),
                   std::log(2.0) * std::log(2.0) / 2);
  // A non-positive prediction is a large error, not a NaN.
  EXPECT_DOUBLE_EQ(meanSquaredLogError({0}, {1}), 100);
}
