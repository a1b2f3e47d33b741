//===- ScheduleTest.cpp - Critical-path engine on hand-computed cases -----===//

#include "perf/Schedule/Schedule.h"
#include "gtest/gtest.h"

using namespace perf;

namespace {
/// An op with one kernel on (device, stream).
size_t addOpWithKernel(Schedule &s, double latency, double t1, double t2,
                       double t3, double t4, double t5, int64_t stream = 0,
                       std::vector<uint32_t> deps = {}, int64_t device = 0,
                       bool copyInCall = false) {
  KernelSpec k;
  k.device = device;
  k.stream = stream;
  k.latencyUs = latency;
  k.launchUs = t4;
  k.copyInCall = copyInCall;
  OpSpec op;
  op.device = device;
  op.t1 = t1;
  op.t2 = t2;
  op.t3 = t3;
  op.t5 = t5;
  s.addKernel(k);
  return s.addOp(op, deps);
}

/// The step of CpuBound and GpuBound: three ops of one `latency` us kernel
/// each, T1=8, T2=10, T3=5, T4=10, T5=5.
void addThreeOpStep(Schedule &s, double latency) {
  for (int i = 0; i < 3; ++i)
    addOpWithKernel(s, latency, 8, 10, 5, 10, 5);
}
} // namespace

// Three ops of one 2 us kernel each with T1=8, T2=10, T3=5, T4=10, T5=5 and
// the 1 us kernel gap. Algorithm 1 by hand:
//   op1: host 0+8+10=18, kernel at max(0, 18+5)=23..25, host 18+10+5=33
//   op2: host 33+8+10=51, kernel at max(25+1, 56)=56..58, host 66
//   op3: host 66+8+10=84, kernel at max(59, 89)=89..91, host 99
TEST(Schedule, CpuBound) {
  Schedule s;
  addThreeOpStep(s, 2);
  ScheduleResult r = s.run();
  EXPECT_DOUBLE_EQ(s.kernels()[0].startUs, 23);
  EXPECT_DOUBLE_EQ(s.kernels()[1].startUs, 56);
  EXPECT_DOUBLE_EQ(s.kernels()[2].startUs, 89);
  EXPECT_DOUBLE_EQ(s.opTimes(2).hostEndUs, 99);
  EXPECT_DOUBLE_EQ(r.e2eUs, 99);
  EXPECT_DOUBLE_EQ(r.gpuActiveUs, 6);
  EXPECT_DOUBLE_EQ(r.idleUs, 93);
  EXPECT_TRUE(r.hostBound);
}

// Same overheads, 100 us kernels: the stream is the bottleneck.
//   k1 23..123, k2 max(124, 56)=124..224, k3 max(225, 89)=225..325
TEST(Schedule, GpuBound) {
  Schedule s;
  addThreeOpStep(s, 100);
  ScheduleResult r = s.run();
  EXPECT_DOUBLE_EQ(s.kernels()[2].startUs, 225);
  EXPECT_DOUBLE_EQ(r.e2eUs, 325);
  EXPECT_DOUBLE_EQ(r.gpuActiveUs, 300);
  EXPECT_DOUBLE_EQ(r.idleUs, 25);
  EXPECT_FALSE(r.hostBound);
  // The last two kernels waited for their stream.
  EXPECT_EQ(s.kernels()[2].boundBy, ScheduledKernel::Bound::Stream);
  ASSERT_EQ(r.criticalPath.size(), 3u);
  EXPECT_EQ(r.criticalPath.front(), 0u);
}

// GpuBound's step with the driver's launch queue. Depth 1: op2's launch at
// 33+8+10=51 waits for k1 to end (123), k2 at max(124, 123+5)=128..228, host
// 123+10+5=138; op3 at 138+18=156 waits for k2 (228), k3 at
// max(229, 233)=233..333, host 228+15=243.
// Depth 2: op2 launches at 51 (k1 pending), k2 124..224 as without a queue;
// op3 at 66+18=84 finds k1 and k2 pending, waits for k1 (123), k3 at
// max(225, 128)=225..325, host 123+15=138 instead of 99.
TEST(Schedule, LaunchQueueBlocksTheHost) {
  Schedule one;
  addThreeOpStep(one, 100);
  ScheduleOptions options;
  options.launchQueueDepth = 1;
  ScheduleResult r1 = one.run(options);
  EXPECT_DOUBLE_EQ(one.kernels()[1].startUs, 128);
  EXPECT_DOUBLE_EQ(one.kernels()[2].startUs, 233);
  EXPECT_DOUBLE_EQ(one.opTimes(2).hostEndUs, 243);
  EXPECT_DOUBLE_EQ(r1.e2eUs, 333);

  Schedule two;
  addThreeOpStep(two, 100);
  options.launchQueueDepth = 2;
  ScheduleResult r2 = two.run(options);
  EXPECT_DOUBLE_EQ(two.kernels()[1].startUs, 124);
  EXPECT_DOUBLE_EQ(two.kernels()[2].startUs, 225);
  EXPECT_DOUBLE_EQ(r2.hostUs, 138);
  EXPECT_DOUBLE_EQ(r2.e2eUs, 325);

  // No limit: the host runs ahead and ends at 99.
  Schedule free;
  addThreeOpStep(free, 100);
  EXPECT_DOUBLE_EQ(free.run().hostUs, 99);
}

// A 20 us copy from pageable memory inside a 24 us cudaMemcpyAsync (T1=1,
// T2=2, T3=3): the call's own part is 24 - 20 = 4 us, so the copy starts at
// 0+1+2 + 4/2 = 5 and ends at 25, before the call returns at 3+24 = 27;
// host 27+3 = 30. Marked as an ordinary launch it would start half-way
// through the whole call, at 3 + 12 = 15, and end at 35.
TEST(Schedule, CopyInCallStartsWithinItsCall) {
  Schedule inCall;
  addOpWithKernel(inCall, 20, 1, 2, 3, 24, 5, 0, {}, 0, /*copyInCall=*/true);
  ScheduleResult r = inCall.run();
  EXPECT_DOUBLE_EQ(inCall.kernels()[0].startUs, 5);
  EXPECT_DOUBLE_EQ(inCall.endUs(0), 25);
  EXPECT_DOUBLE_EQ(r.e2eUs, 30);

  Schedule async;
  addOpWithKernel(async, 20, 1, 2, 3, 24, 5);
  EXPECT_DOUBLE_EQ(async.run().e2eUs, 35);
}

// Two ops of one kernel each, T5 between launches of an op, and T3 after.
// op: T1=1, T2=2, kernels 10 and 20 us, T4=4, T5=3, T3=5, gap 0:
//   host 1+2=3, k1 at 3+2=5..15, host 3+4+3=10, k2 at max(15, 12)=15..35,
//   host 10+4=14, +T3 = 19.
TEST(Schedule, OverheadsWithinOneOp) {
  Schedule s;
  OpSpec op;
  op.t1 = 1;
  op.t2 = 2;
  op.t3 = 5;
  op.t5 = 3;
  for (double lat : {10.0, 20.0}) {
    KernelSpec k;
    k.latencyUs = lat;
    k.launchUs = 4;
    s.addKernel(k);
  }
  EXPECT_EQ(s.addOp(op), 0u);
  EXPECT_EQ(s.ops()[0].kernels.size(), 2u);
  ScheduleOptions options;
  options.kernelGapUs = 0;
  ScheduleResult r = s.run(options);
  EXPECT_DOUBLE_EQ(s.kernels()[0].startUs, 5);
  EXPECT_DOUBLE_EQ(s.kernels()[1].startUs, 15);
  EXPECT_DOUBLE_EQ(s.opTimes(0).hostEndUs, 19);
  EXPECT_DOUBLE_EQ(r.e2eUs, 35);
}

// Independent work on two streams overlaps: 100 us and 50 us kernels, no
// overheads, end at 100 and GPU active is the union (100 us).
TEST(Schedule, TwoStreamsOverlap) {
  Schedule s;
  addOpWithKernel(s, 100, 0, 0, 0, 0, 0, /*stream=*/0);
  addOpWithKernel(s, 50, 0, 0, 0, 0, 0, /*stream=*/1);
  ScheduleResult r = s.run();
  EXPECT_DOUBLE_EQ(s.kernels()[1].startUs, 0);
  EXPECT_DOUBLE_EQ(r.e2eUs, 100);
  EXPECT_DOUBLE_EQ(r.gpuActiveUs, 100);
  EXPECT_DOUBLE_EQ(r.sumKernelUs, 150);
}

// A device's active time merges its streams' runs by their starts: a scan
// of the few runs' heads, a heap past eight. Twelve ops, each launching one
// kernel with T4 = 2 and no other overhead: kernel i starts at 2i + 1 (half
// of its launch call), on its own stream or on stream i % 4 (each stream
// free again by then). With these latencies the intervals are [1,2] [3,8]
// [5,6] [7,8] [9,10] [11,12] [13,13.5] [15,15.5] [17,20] [19,20] [21,22]
// [23,24]: the union is 1+5+1+1+0.5+0.5+3+1+1 = 14 us of a 24 us step.
TEST(Schedule, ActiveTimeMergesManyStreams) {
  const double latency[] = {1, 5, 1, 1, 1, 1, 0.5, 0.5, 3, 1, 1, 1};
  for (int64_t streams : {12, 4}) {
    Schedule s;
    for (int64_t i = 0; i < 12; ++i)
      addOpWithKernel(s, latency[i], 0, 0, 0, 2, 0, i % streams);
    ScheduleResult r = s.run();
    for (size_t i = 0; i < 12; ++i)
      EXPECT_DOUBLE_EQ(s.kernels()[i].startUs, 2.0 * double(i) + 1);
    EXPECT_DOUBLE_EQ(r.gpuActiveUs, 14) << streams << " streams";
    EXPECT_DOUBLE_EQ(r.e2eUs, 24);
    EXPECT_DOUBLE_EQ(r.idleUs, 10);
  }
}

// The consumer on stream 1 waits for its producer on stream 0:
// 0..100 then 100..150.
TEST(Schedule, CrossStreamDependency) {
  Schedule s;
  uint32_t a = addOpWithKernel(s, 100, 0, 0, 0, 0, 0, 0);
  addOpWithKernel(s, 50, 0, 0, 0, 0, 0, 1, {a});
  ScheduleResult r = s.run();
  EXPECT_DOUBLE_EQ(s.kernels()[1].startUs, 100);
  EXPECT_EQ(s.kernels()[1].boundBy, ScheduledKernel::Bound::Dependency);
  EXPECT_DOUBLE_EQ(r.e2eUs, 150);
  EXPECT_EQ(r.criticalPath, (std::vector<size_t>{0, 1}));
}

// A sync makes the host wait for the 100 us kernel; the next op (no kernels,
// T1=2, T5=10) then ends at 100+2+10 = 112.
TEST(Schedule, SyncBlocksTheHost) {
  Schedule s;
  addOpWithKernel(s, 100, 0, 0, 0, 0, 0);
  OpSpec sync;
  sync.kind = OpSpec::Kind::Sync;
  s.addOp(sync);
  OpSpec cpu;
  cpu.t1 = 2;
  cpu.t5 = 10;
  s.addOp(cpu);
  ScheduleResult r = s.run();
  EXPECT_DOUBLE_EQ(s.opTimes(1).hostEndUs, 100);
  EXPECT_DOUBLE_EQ(s.opTimes(2).hostEndUs, 112);
  EXPECT_DOUBLE_EQ(r.e2eUs, 112);
  EXPECT_TRUE(r.hostBound);
}

// A collective over devices 0 and 1 starts when both streams are free:
// device 0 busy until 100, device 1 until 30 -> all-reduce 100..120 on both.
TEST(Schedule, CollectiveWaitsForAllParticipants) {
  Schedule s;
  addOpWithKernel(s, 100, 0, 0, 0, 0, 0, 0, {}, /*device=*/0);
  addOpWithKernel(s, 30, 0, 0, 0, 0, 0, 0, {}, /*device=*/1);
  KernelSpec ar;
  ar.device = 0;
  ar.latencyUs = 20;
  ar.group = {0, 1};
  s.addKernel(ar);
  s.addOp(OpSpec());
  ScheduleOptions options;
  options.kernelGapUs = 0;
  ScheduleResult r = s.run(options);
  EXPECT_DOUBLE_EQ(s.kernels()[2].startUs, 100);
  EXPECT_DOUBLE_EQ(r.e2eUs, 120);
  ASSERT_EQ(r.devices.size(), 2u);
  // Device 1: busy 0..30 and 100..120; 20 us of exposed communication.
  EXPECT_DOUBLE_EQ(r.devices[1].activeUs, 50);
  EXPECT_DOUBLE_EQ(r.devices[1].exposedCommUs, 20);
  EXPECT_DOUBLE_EQ(r.devices[0].exposedCommUs, 20);
}

// The GpuBound step run back to back. Step 1 ends at 325 (kernels) with the
// host at 99. Step 2's host starts at 99: its ops launch at 99+23=122,
// 155, 188, but the stream is busy until 325, so its kernels run
// 326..426, 427..527, 528..628: 303 us after step 1 (three kernels and
// three gaps; the 23 us head start of step 1 is gone). Step 3 likewise
// ends at 931. The first step's times stay in the results.
TEST(Schedule, SteadyStateGpuBound) {
  Schedule s;
  addThreeOpStep(s, 100);
  ScheduleOptions options;
  options.iterations = 3;
  ScheduleResult r = s.run(options);
  EXPECT_DOUBLE_EQ(r.steadyStateUs, 303);
  EXPECT_DOUBLE_EQ(r.e2eUs, 325);
  EXPECT_DOUBLE_EQ(s.kernels()[2].startUs, 225);
  EXPECT_DOUBLE_EQ(s.opTimes(2).hostEndUs, 99);
}

// The CpuBound step back to back: each step adds its 99 us of host work
// (step 2's kernels start at 122, 155, 188; the host ends at 198).
TEST(Schedule, SteadyStateCpuBound) {
  Schedule s;
  addThreeOpStep(s, 2);
  ScheduleOptions options;
  options.iterations = 2;
  ScheduleResult r = s.run(options);
  EXPECT_DOUBLE_EQ(r.steadyStateUs, 99);
  // One iteration: the steady state is the step itself.
  EXPECT_DOUBLE_EQ(s.run().steadyStateUs, 99);
}

// A sync at the end of the step (loss.item()) keeps the host from running
// ahead: every step pays the head start again. Step: host 0..18 launches
// the 100 us kernel at 23, the sync waits until 123; step 2 launches at
// 123+23 = 146, the kernel ends at 246: 123 us per step.
TEST(Schedule, SteadyStateWithSync) {
  Schedule s;
  addOpWithKernel(s, 100, 8, 10, 0, 10, 0);
  OpSpec sync;
  sync.kind = OpSpec::Kind::Sync;
  s.addOp(sync);
  ScheduleOptions options;
  options.iterations = 4;
  ScheduleResult r = s.run(options);
  EXPECT_DOUBLE_EQ(r.e2eUs, 123);
  EXPECT_DOUBLE_EQ(r.steadyStateUs, 123);
}

// A step keeps each distinct kernel and op once (a spec) and launches it
// many times. One op spec (T1=1, T4 in the kernel spec), three ops: two
// launches of a 10 us kernel on stream 0, then a 10 us kernel on stream 1
// that waits for both (given out of order and twice; kept sorted, once
// each). Gap 1:
//   op0: host 1, ready 1+2/2=2, kernel 2..12, host 3
//   op1: host 4, ready 5, stream free at 13: 13..23, host 6
//   op2: host 7, ready 8, stream 1 free, waits for op1: 23..33, host 9
TEST(Schedule, SharedSpecs) {
  Schedule s;
  OpSpec op;
  op.t1 = 1;
  uint32_t opSpec = s.addOpSpec(op);
  KernelSpec k;
  k.latencyUs = 10;
  k.launchUs = 2;
  uint32_t onStream0 = s.addKernelSpec(k);
  k.stream = 1;
  uint32_t onStream1 = s.addKernelSpec(k);
  s.addKernel(onStream0);
  s.addOp(opSpec);
  s.addKernel(onStream0);
  s.addOp(opSpec);
  s.addKernel(onStream1);
  s.addOp(opSpec, {1, 0, 1});
  EXPECT_EQ(s.deps(2), (llvm::ArrayRef<uint32_t>{0, 1}));
  EXPECT_TRUE(s.deps(0).empty());
  EXPECT_EQ(s.ops()[2].kernels[0], 2u);
  EXPECT_EQ(s.kernelSpec(1).stream, 0);
  EXPECT_EQ(s.kernelSpec(2).stream, 1);
  ScheduleResult r = s.run();
  EXPECT_DOUBLE_EQ(s.kernels()[0].startUs, 2);
  EXPECT_DOUBLE_EQ(s.kernels()[1].startUs, 13);
  EXPECT_DOUBLE_EQ(s.kernels()[2].startUs, 23);
  EXPECT_EQ(s.kernels()[2].boundBy, ScheduledKernel::Bound::Dependency);
  EXPECT_EQ(s.kernels()[2].predecessor, 1);
  EXPECT_DOUBLE_EQ(s.opTimes(2).hostEndUs, 9);
  EXPECT_DOUBLE_EQ(r.e2eUs, 33);
  EXPECT_EQ(r.criticalPath, (std::vector<size_t>{0, 1, 2}));
}

// Without op times (what an estimate runs) the kernels and the result are
// the same; a kernel ends its spec's latency after it starts.
TEST(Schedule, WithoutOpTimes) {
  Schedule with, without;
  addThreeOpStep(with, 100);
  addThreeOpStep(without, 100);
  ScheduleOptions options;
  options.opTimes = false;
  ScheduleResult a = with.run(), b = without.run(options);
  EXPECT_DOUBLE_EQ(a.e2eUs, 325);
  EXPECT_DOUBLE_EQ(b.e2eUs, 325);
  EXPECT_EQ(a.criticalPath, b.criticalPath);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(with.kernels()[k].startUs, without.kernels()[k].startUs);
    EXPECT_DOUBLE_EQ(without.endUs(k), without.kernels()[k].startUs + 100);
  }
  EXPECT_DOUBLE_EQ(with.opTimes(2).hostEndUs, 99);
}
