//===- CollectiveCalibrationTest.cpp - Least-MAPE calibration fits --------===//

#include "perf/Comm/CollectiveCalibration.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
/// A point whose measured time follows latency scale `s`, offset `o` and
/// efficiency `eff` exactly.
CalibrationPoint exact(double s, double o, double eff, double lat, double bw,
                       double bytes) {
  CalibrationPoint p;
  p.bytes = bytes;
  p.ncclLatencyUs = lat;
  p.ncclBandwidthGBs = bw;
  p.measuredUs = s * lat + o + bytes / (1000 * eff * bw);
  return p;
}

std::vector<CalibrationPoint> sweep(double s, double o, double eff) {
  // NCCL's latency and bandwidth change with the protocol it picks, so the
  // three coefficients are separable.
  return {exact(s, o, eff, 15, 50, 4096),
          exact(s, o, eff, 15, 50, 65536),
          exact(s, o, eff, 40.6, 126, 2 << 20),
          exact(s, o, eff, 40.6, 126, 8 << 20),
          exact(s, o, eff, 56, 137, 32 << 20),
          exact(s, o, eff, 56, 137, 64 << 20)};
}
} // namespace

TEST(CollectiveCalibration, RecoversExactCoefficients) {
  CollectiveCalibration c = fitCollectiveCalibration(sweep(0.5, 10, 0.8));
  EXPECT_NEAR(c.latencyScale, 0.5, 1e-6);
  EXPECT_NEAR(c.latencyOffsetUs, 10, 1e-6);
  EXPECT_NEAR(c.bandwidthEfficiency, 0.8, 1e-9);
  EXPECT_EQ(c.points, 6u);
  // 15 x 0.5 + 10 + 4096 / (1000 x 0.8 x 50) = 17.6024 us.
  EXPECT_NEAR(calibratedTimeUs(c, exact(0.5, 10, 0.8, 15, 50, 4096)),
              7.5 + 10 + 4096 / 40000.0, 1e-6);
}

TEST(CollectiveCalibration, AnOutlierDoesNotMoveTheFit) {
  // A slow repeat three times the others (the small-message tables have
  // them): least absolute error keeps the line the other six lie on.
  std::vector<CalibrationPoint> points = sweep(0.5, 10, 0.8);
  CalibrationPoint slow = exact(0.5, 10, 0.8, 15, 50, 16384);
  slow.measuredUs *= 3;
  points.push_back(slow);
  CollectiveCalibration c = fitCollectiveCalibration(points);
  EXPECT_NEAR(c.latencyScale, 0.5, 1e-3);
  EXPECT_NEAR(c.latencyOffsetUs, 10, 1e-2);
  EXPECT_NEAR(c.bandwidthEfficiency, 0.8, 1e-4);
}

TEST(CollectiveCalibration, CoefficientsStayNonNegative) {
  // Times below NCCL's latency would take a negative offset (2 x latency
  // - 30 us); the offset is held at 0 and the rest refitted.
  std::vector<CalibrationPoint> points = sweep(2, -30, 1.0);
  CollectiveCalibration c = fitCollectiveCalibration(points);
  EXPECT_EQ(c.latencyOffsetUs, 0);
  EXPECT_GE(c.latencyScale, 0);
  EXPECT_GT(c.bandwidthEfficiency, 0);
}

TEST(CollectiveCalibration, FewPointsKeepNcclsLatency) {
  // Two sizes with the same NCCL latency cannot tell scale from offset:
  // the scale stays 1 and offset and efficiency fit both exactly:
  // 10 + 5 + 1e5 / (1000 x 0.5 x 100) = 17 and 15 + 1e7 / 50000 = 215 us.
  std::vector<CalibrationPoint> two = {exact(1, 5, 0.5, 10, 100, 1e5),
                                       exact(1, 5, 0.5, 10, 100, 1e7)};
  EXPECT_DOUBLE_EQ(two[0].measuredUs, 17);
  EXPECT_DOUBLE_EQ(two[1].measuredUs, 215);
  CollectiveCalibration c = fitCollectiveCalibration(two);
  EXPECT_DOUBLE_EQ(c.latencyScale, 1);
  EXPECT_NEAR(c.latencyOffsetUs, 5, 1e-9);
  EXPECT_NEAR(c.bandwidthEfficiency, 0.5, 1e-12);
  // One point: NCCL's latency, no offset, the efficiency that fits it:
  // 215 = 10 + 1e7 / (1000 x eff x 100), eff = 100 / 205.
  CollectiveCalibration one = fitCollectiveCalibration({two[1]});
  EXPECT_DOUBLE_EQ(one.latencyScale, 1);
  EXPECT_DOUBLE_EQ(one.latencyOffsetUs, 0);
  EXPECT_NEAR(one.bandwidthEfficiency, 100.0 / 205, 1e-12);
}
