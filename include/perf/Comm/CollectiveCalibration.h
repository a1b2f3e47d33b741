//===- CollectiveCalibration.h - NCCL's figures fitted to measurements -*- C++
//-*-===//
//
// Fits a CollectiveCalibration (SystemSpec.h) to measured collective times:
// each measurement is paired with the latency and bandwidth NCCL's tuner
// prices its call with (the pair NCCL picks for the size, uncalibrated), and
//
//   measured ~ latencyScale x latency + latencyOffsetUs
//              + bytes / (1000 x bandwidthEfficiency x bandwidth)
//
// is fitted by least mean absolute percentage error, the figure the
// benchmark reports (iteratively reweighted least squares; Schlossmacher,
// "An iterative technique for absolute deviations curve fitting", JASA
// 1973), with every coefficient non-negative. The model is linear in
// (latencyScale, latencyOffsetUs, 1 / bandwidthEfficiency). The absolute
// error, unlike the squared one, follows the bulk of repeated measurements
// rather than their slow outliers (the small-message tables have both).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COMM_COLLECTIVECALIBRATION_H
#define PERF_COMM_COLLECTIVECALIBRATION_H

#include "perf/Comm/SystemSpec.h"
#include "llvm/ADT/ArrayRef.h"

namespace perf {

/// One measured call and NCCL's figures for it.
struct CalibrationPoint {
  double bytes = 0;
  double measuredUs = 0;
  /// The latency (us) and algorithm bandwidth (GB/s) of the pair NCCL's
  /// tuner picks, before any calibration.
  double ncclLatencyUs = 0;
  double ncclBandwidthGBs = 0;
};

/// What `calibration` predicts for a point.
double calibratedTimeUs(const CollectiveCalibration &calibration,
                        const CalibrationPoint &point);

/// The least-MAPE calibration of the points (at least one, every measured
/// time and NCCL bandwidth positive). `points` of the result is their count.
CollectiveCalibration
fitCollectiveCalibration(llvm::ArrayRef<CalibrationPoint> points);

} // namespace perf

#endif // PERF_COMM_COLLECTIVECALIBRATION_H
