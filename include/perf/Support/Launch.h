//===- Launch.h - Where a host's launch meets the device --------*- C++ -*-===//
//
// The two rules of a kernel launch that the critical path's schedule and the
// trace replay share (Lin et al., Algorithm 1, and the driver's launch
// queue), so that the MLIR path and `perf-trace replay` agree.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_LAUNCH_H
#define PERF_SUPPORT_LAUNCH_H

#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

namespace perf {

/// When, after its runtime call starts, launched work may start: half-way
/// through the call (`callUs`, T4). A copy from or to pageable memory runs
/// inside its call, which returns when it is done (`copyInCall`): the
/// call's own part is what the copy (`workUs`) does not cover, and the copy
/// starts half-way through that.
inline double launchReadyAfterUs(double callUs, double workUs,
                                 bool copyInCall) {
  return (copyInCall ? std::max(0.0, callUs - workUs) : callUs) / 2;
}

/// The driver's launch queue of one device: a launch blocks while `depth`
/// of the device's launched events have not finished, until the first of
/// them ends. Depth 0 never blocks.
class LaunchQueue {
public:
  explicit LaunchQueue(unsigned depth = 0) : depth(depth) {}

  /// When a launch the host makes at `hostUs` gets its slot.
  double admit(double hostUs) {
    if (depth == 0)
      return hostUs;
    while (!pending.empty() && pending.top() <= hostUs)
      pending.pop();
    while (pending.size() >= depth) {
      hostUs = std::max(hostUs, pending.top());
      pending.pop();
    }
    return hostUs;
  }
  /// A launched event that ends at `endUs`.
  void launched(double endUs) {
    if (depth > 0)
      pending.push(endUs);
  }
  /// Moves every pending end `byUs` earlier (a clock restarted at `byUs`).
  void shift(double byUs) {
    std::vector<double> ends;
    for (; !pending.empty(); pending.pop())
      ends.push_back(pending.top() - byUs);
    for (double end : ends)
      pending.push(end);
  }
  void clear() { pending = {}; }

private:
  unsigned depth;
  std::priority_queue<double, std::vector<double>, std::greater<double>>
      pending;
};

} // namespace perf

#endif // PERF_SUPPORT_LAUNCH_H
