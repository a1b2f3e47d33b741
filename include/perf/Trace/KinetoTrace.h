//===- KinetoTrace.h - Kineto (PyTorch profiler) trace reader ---*- C++ -*-===//
//
// Reads the Chrome-trace JSON the PyTorch profiler (Kineto) writes, in both
// the current category names (cpu_op, user_annotation, cuda_runtime, kernel,
// gpu_memcpy, gpu_memset, ac2g flows) and the 2021 ones (Operator, Runtime,
// Kernel, Memcpy, Memset, async flows). Times are microseconds relative to
// the earliest event.
//
// The host side is rebuilt as a call tree per thread from time nesting; each
// runtime call belongs to the innermost op that encloses it and device work
// is linked to its runtime call by correlation id (falling back to the ac2g
// flow events). Top-level ops (operators with no operator ancestor) in launch
// order are what the importer turns into perf.op and what the host-overhead
// analysis measures.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_TRACE_KINETOTRACE_H
#define PERF_TRACE_KINETOTRACE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace perf {
namespace trace {

class ExecutionTrace;

enum class DeviceEventKind { Kernel, Memcpy, Memset };

/// Device work: a kernel, memcpy or memset on a GPU stream.
struct DeviceEvent {
  DeviceEventKind kind = DeviceEventKind::Kernel;
  std::string name;
  int64_t device = 0;
  int64_t stream = 0;
  double start = 0;
  double dur = 0;
  int64_t correlation = -1;
  /// Grid and block dimensions; zeros when the trace lacks them.
  int64_t grid[3] = {0, 0, 0};
  int64_t block[3] = {0, 0, 0};
  /// Bytes moved (memcpy/memset), 0 otherwise.
  int64_t bytes = 0;
  /// Index into runtimeCalls() of the launching call; -1 when unlinked.
  int64_t runtimeIndex = -1;
  double end() const { return start + dur; }
};

/// A CUDA/HIP runtime call on a host thread.
struct RuntimeCall {
  std::string name;
  int64_t tid = 0;
  double start = 0;
  double dur = 0;
  int64_t correlation = -1;
  /// Device events it launched (indices into deviceEvents()).
  std::vector<size_t> launched;
  /// Innermost enclosing op (index into ops()); -1 when outside any op.
  int64_t opIndex = -1;
  /// The (device, stream) a cudaStreamSynchronize waited for, when the
  /// trace shows which: the stream its thread launched on last, unless that
  /// stream's work had not ended when the call returned. None: every stream
  /// (cudaDeviceSynchronize, or a stream the trace does not tell).
  std::optional<std::pair<int64_t, int64_t>> syncedStream;
  double end() const { return start + dur; }
  /// Calls that make the host wait for the device.
  bool isSynchronizing() const;
};

/// A cross-stream wait (cudaStreamWaitEvent), as the GPU side records it
/// ("Stream Wait Event" of category cuda_sync): from here on `stream` runs
/// nothing before the work `waitOnStream` had been given when the event
/// was recorded (cudaEventRecord) completes.
struct StreamWait {
  int64_t device = 0;
  int64_t stream = 0;
  int64_t waitOnStream = 0;
  /// Indices into runtimeCalls() of the cudaStreamWaitEvent call and of the
  /// cudaEventRecord it waits on; -1 when the trace lacks them.
  int64_t waitCall = -1;
  int64_t recordCall = -1;
};

/// A host-side event: operator (cpu_op) or annotation (user_annotation,
/// ProfilerStep#N, ...).
struct HostOp {
  std::string name;
  int64_t tid = 0;
  double start = 0;
  double dur = 0;
  int64_t externalId = -1;
  /// "Record function id" where present.
  int64_t rfId = -1;
  /// "Sequence number" (links forward and backward ops), -1 if absent.
  int64_t sequenceNumber = -1;
  bool isAnnotation = false;
  /// A runtime call made outside every operator, standing as a top-level
  /// op of its own (named after the call; runtimeCalls holds it alone).
  bool isBareRuntimeCall = false;
  /// Enclosing host event on the same thread; -1 at the root.
  int64_t parent = -1;
  /// For top-level ops: runtime calls made inside it (any depth), by start.
  std::vector<size_t> runtimeCalls;
  /// For top-level ops: start times of the host events nested in it
  /// (operators and annotations, any depth). Each one cost the profiler a
  /// record, which the overhead extraction subtracts per interval.
  std::vector<double> nestedStarts;
  /// For top-level ops: the annotated region (index into ops() of a
  /// user annotation other than a ProfilerStep) whose first top-level op
  /// this is, -1 if none. Its T1 is the region's entry, not the op's: the
  /// Python before the region's first op, or a data loader waiting for its
  /// batch inside `enumerate(DataLoader)#...__next__`.
  int64_t entersRegion = -1;
  /// Linked ET node id, -1 when not linked.
  int64_t etNode = -1;
  /// "Input Dims" / "Input type" where the profiler recorded shapes.
  std::vector<std::vector<int64_t>> inputDims;
  std::vector<std::string> inputTypes;
  double end() const { return start + dur; }
};

/// An iteration span (ProfilerStep#N, or derived from a marker).
struct StepSpan {
  std::string name;
  double start = 0;
  double dur = 0;
  double end() const { return start + dur; }
};

struct KinetoLinkStats {
  unsigned deviceEvents = 0;
  unsigned deviceUnlinked = 0;
  unsigned runtimeCalls = 0;
  unsigned runtimeOutsideOps = 0;
  /// Flow (ac2g/async) start-finish pairs found.
  unsigned flowPairs = 0;
  /// Events of other processes than the host process (ignored).
  unsigned otherProcessEvents = 0;
  /// Cross-stream waits read off cudaStreamWaitEvent calls alone, in a trace
  /// that records neither their GPU side nor the cudaEventRecord
  /// (KinetoTrace::streamWaits).
  unsigned waitsInferred = 0;
};

class KinetoTrace {
public:
  /// Reads the trace in the file at `path` (.json or .json.gz).
  static llvm::Expected<KinetoTrace> load(llvm::StringRef path);
  /// Reads the trace from the bytes of its file (.json or .json.gz), named
  /// `origin` in errors.
  static llvm::Expected<KinetoTrace> loadBytes(llvm::StringRef bytes,
                                               llvm::StringRef origin);
  /// Reads the trace's JSON text a slice of events at a time (simdjson's
  /// on-demand parser, twice over the events): memory is the text, the
  /// trace read and a few times the slice, not a JSON tree or an index of
  /// the whole text. `origin` names it in errors. A slice is about
  /// `sliceBytes` of events (whole events, at least one).
  static llvm::Expected<KinetoTrace> parse(llvm::StringRef text,
                                           llvm::StringRef origin,
                                           size_t sliceBytes = kSliceBytes);
  /// simdjson's index and string buffer for one slice stay near five times
  /// this, whatever the trace's size.
  static constexpr size_t kSliceBytes = size_t(16) << 20;

  /// What deviceProperties says of the GPU the kernels ran on (else of the
  /// first one listed).
  struct GpuProperties {
    /// Empty if the trace has no deviceProperties.
    std::string name;
    int64_t numSms = 0;
    /// totalGlobalMem.
    double memBytes = 0;
    int64_t computeMajor = 0, computeMinor = 0;
  };
  const GpuProperties &gpuProperties() const { return gpu; }
  /// deviceProperties[0].name (or of the device the kernels ran on); empty if
  /// the trace has none.
  const std::string &gpuName() const { return gpu.name; }
  /// Host process: the pid with the most operator events.
  int64_t hostPid() const { return pid; }
  /// Microseconds subtracted from every timestamp.
  double timeBase() const { return base; }

  const std::vector<HostOp> &ops() const { return hostOps; }
  const std::vector<RuntimeCall> &runtimeCalls() const { return runtime; }
  const std::vector<DeviceEvent> &deviceEvents() const { return device; }
  /// Top-level operators of all host threads, by start time.
  const std::vector<size_t> &topLevelOps() const { return topLevel; }
  /// ProfilerStep#N spans, by start; empty when the trace has none.
  const std::vector<StepSpan> &steps() const { return stepSpans; }
  const std::vector<int64_t> &hostThreads() const { return threads; }
  /// (device, stream) pairs that ran work.
  const std::vector<std::pair<int64_t, int64_t>> &streams() const {
    return streamList;
  }
  const KinetoLinkStats &linkStats() const { return stats; }
  /// The cross-stream waits whose wait and record calls are both in the
  /// trace, in the order of the waits. A trace that records no "Stream Wait
  /// Event" (older Kineto) gets one per cudaStreamWaitEvent call followed by
  /// a launch (of its thread, else of any thread): the stream of that launch
  /// waits for the work given until then to the stream the thread launched
  /// on last before it (PyTorch's pattern: record on the producing stream,
  /// wait, launch on the consuming one, as ProcessGroupNCCL does on both
  /// sides of a collective); its record call is the wait call itself. A
  /// stream whose work the measured times show had not ended when the
  /// waiting stream's work started is passed over for the one launched on
  /// before it, and a wait whose two launches are in one top-level op is
  /// left out (the MLIR path orders ops, not an op's own kernels).
  const std::vector<StreamWait> &streamWaits() const { return waits; }
  /// The waits (indices into streamWaits()) whose cudaEventRecord, and
  /// whose cudaStreamWaitEvent, is runtime call `call`.
  llvm::ArrayRef<size_t> waitsRecordedBy(size_t call) const {
    auto it = recordedBy.find(call);
    return it == recordedBy.end() ? llvm::ArrayRef<size_t>() : it->second;
  }
  llvm::ArrayRef<size_t> waitsIssuedBy(size_t call) const {
    auto it = issuedBy.find(call);
    return it == issuedBy.end() ? llvm::ArrayRef<size_t>() : it->second;
  }

  /// The name of the region top-level op `op` enters (HostOp::entersRegion),
  /// empty if none.
  llvm::StringRef enteredRegion(const HostOp &op) const {
    return op.entersRegion < 0 ? llvm::StringRef()
                               : llvm::StringRef(hostOps[op.entersRegion].name);
  }
  /// Device events launched from inside top-level op `opIndex`, in launch
  /// order.
  std::vector<size_t> deviceEventsOf(size_t opIndex) const;

  /// The latest end of a device event at or before `time` (-infinity if
  /// none): when a host call that waited for the device stopped waiting.
  double lastDeviceEndAtOrBefore(double time) const;

  /// Iteration spans from successive starts of host events whose name starts
  /// with `marker` (e.g. "Optimizer.zero_grad"); for traces without
  /// ProfilerStep. The last marker closes the last span.
  std::vector<StepSpan> spansFromMarker(llvm::StringRef marker) const;

  /// The iterations of the trace: its ProfilerStep spans that hold a
  /// top-level op (a step the profiler closed before any op ran is not
  /// one); without them, the spans between successive
  /// Optimizer.zero_grad (else Optimizer.step) annotations, which PyTorch's
  /// optimizers record once per training step; else none (the whole trace
  /// is one). `how` says which, for reports.
  std::vector<StepSpan> iterations(std::string *how = nullptr) const;

  /// Links top-level ops (and their nested ops) to ET nodes by record-function
  /// id ("Record function id", else "External id", equal to the ET rf_id) and
  /// checks the names agree. When ids link fewer than half of the ET's
  /// top-level ops (an ET captured in another run, or of one iteration of a
  /// longer profile), the two op-name sequences are aligned instead: their
  /// longest common subsequence, so an op one trace has and the other does
  /// not (a copy, an autograd wrapper) shifts nothing after it. Returns the
  /// number of top-level ops linked and why the others were not.
  struct EtLinkResult {
    /// Kineto top-level operators (bare runtime calls are not linked).
    unsigned operators = 0;
    unsigned linked = 0;
    /// Kineto top-level ops with no ET node: by id, no node of that id; by
    /// alignment, outside the ET's stretch of the trace or skipped by it.
    unsigned unlinked = 0;
    /// By id: the node of the op's id has another name.
    unsigned nameMismatch = 0;
    /// ET top-level ops no Kineto op links to.
    unsigned etUnlinked = 0;
    /// Unlinked Kineto top-level ops that launched device work inside the
    /// linked stretch (first to last linked op): kernels the ET loses.
    unsigned unlinkedWithDeviceWork = 0;
    bool pidMismatch = false;
    /// Linked by aligning op names because record-function ids did not
    /// match.
    bool alignedByName = false;
  };
  EtLinkResult linkExecutionTrace(const ExecutionTrace &et);

private:
  GpuProperties gpu;
  int64_t pid = 0;
  double base = 0;
  std::vector<HostOp> hostOps;
  std::vector<RuntimeCall> runtime;
  std::vector<DeviceEvent> device;
  std::vector<StreamWait> waits;
  llvm::DenseMap<size_t, llvm::SmallVector<size_t, 1>> recordedBy, issuedBy;
  /// The device events' ends, sorted.
  std::vector<double> deviceEnds;
  std::vector<size_t> topLevel;
  std::vector<StepSpan> stepSpans;
  std::vector<int64_t> threads;
  std::vector<std::pair<int64_t, int64_t>> streamList;
  KinetoLinkStats stats;

  void buildHostTree();
  /// Sets the stream each cudaStreamSynchronize waited for
  /// (RuntimeCall::syncedStream) and, with `waitsToo` (a trace that records no
  /// GPU side of its waits), adds the waits of the cudaStreamWaitEvent calls
  /// (streamWaits).
  void inferUnnamedWaits(bool waitsToo);
};

/// Kernel kinds for breakdowns: gemm, conv, embedding, elementwise, reduce,
/// norm, softmax, memcpy, memset, nccl, other.
llvm::StringRef classifyDeviceEvent(const DeviceEvent &event);

/// Whether `event` copies from or to pageable host memory ("Memcpy HtoD
/// (Pageable -> Device)"): such a copy runs inside its runtime call, which
/// returns when it is done.
bool copiesPageableMemory(const DeviceEvent &event);

} // namespace trace
} // namespace perf

#endif // PERF_TRACE_KINETOTRACE_H
