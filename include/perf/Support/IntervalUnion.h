//===- IntervalUnion.h - Length of a union of intervals ---------*- C++ -*-===//
//
// A device's active time is the length of the union of its busy intervals:
// the schedule's totals and the trace replay's breakdowns both sum it, from
// intervals they hold differently, with this one sweep.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_INTERVALUNION_H
#define PERF_SUPPORT_INTERVALUNION_H

#include <algorithm>

namespace perf {

/// The length of the union of intervals added in the order of their starts:
/// an interval that starts after the current run ends opens a new run,
/// another one extends it.
class IntervalUnion {
public:
  void add(double start, double end) {
    if (open && start <= runEnd) {
      runEnd = std::max(runEnd, end);
      return;
    }
    closeRun();
    runStart = start;
    runEnd = end;
    open = true;
  }
  double length() const {
    return open ? total + std::max(0.0, runEnd - runStart) : total;
  }

private:
  void closeRun() {
    if (open)
      total += std::max(0.0, runEnd - runStart);
  }
  double total = 0, runStart = 0, runEnd = 0;
  bool open = false;
};

} // namespace perf

#endif // PERF_SUPPORT_INTERVALUNION_H
