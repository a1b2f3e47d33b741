//===- Runner.cu - Device setup and dispatch of the benchmarks ------------===//

#include "Common.cuh"

#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <map>
#include <pthread.h>

using namespace bench;

bool bench::builtWithCuda() { return true; }

bool bench::gpuAvailable(std::string &why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why = cudaErrorText("cudaGetDeviceCount", e);
    cudaGetLastError();
    return false;
  }
  if (count == 0) {
    why = "cudaGetDeviceCount found no device";
    return false;
  }
  return true;
}

/// Current SM and memory clocks from NVML, loaded at run time because NVML
/// comes with the driver, not the toolkit. Leaves the outputs alone when
/// NVML is missing.
static void currentClocks(const std::string &pciBusId, double &sm,
                          double &mem) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!lib)
    return;
  using InitFn = int (*)();
  using ByPciFn = int (*)(const char *, void **);
  using ClockFn = int (*)(void *, int, unsigned *);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto byPci =
      reinterpret_cast<ByPciFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  void *device = nullptr;
  unsigned mhz = 0;
  if (init && byPci && clock && init() == 0 &&
      byPci(pciBusId.c_str(), &device) == 0) {
    if (clock(device, /*NVML_CLOCK_SM*/ 1, &mhz) == 0)
      sm = mhz;
    if (clock(device, /*NVML_CLOCK_MEM*/ 2, &mhz) == 0)
      mem = mhz;
  }
  // NVML stays loaded: unloading it while initialized is not allowed.
}

bool bench::gpuInit(const RunOptions &options, DeviceInfo &info,
                    std::string &error) {
  CudaContext &c = cudaContext();
  c.options = options;
  cudaError_t e = cudaSetDevice(options.device);
  if (e == cudaSuccess)
    e = cudaGetDeviceProperties(&c.props, options.device);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    error = cudaErrorText("device setup", e);
    return false;
  }
  if (cublasLtCreate(&c.lt) != CUBLAS_STATUS_SUCCESS) {
    error = "cublasLtCreate failed";
    return false;
  }
  if (cudnnCreate(&c.dnn) != CUDNN_STATUS_SUCCESS ||
      cudnnSetStream(c.dnn, c.stream) != CUDNN_STATUS_SUCCESS) {
    error = "cudnnCreate failed";
    return false;
  }
  c.workspaceBytes = size_t(1) << 30;
  if (cudaMalloc(&c.workspace, c.workspaceBytes) != cudaSuccess) {
    cudaGetLastError();
    c.workspaceBytes = size_t(64) << 20;
    if (cudaMalloc(&c.workspace, c.workspaceBytes) != cudaSuccess) {
      error = "cannot allocate the library workspace";
      return false;
    }
  }
  c.cuptiReady = options.cupti && cuptiStart();

  c.info.name = c.props.name;
  c.info.ccMajor = c.props.major;
  c.info.ccMinor = c.props.minor;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, options.device) ==
      cudaSuccess)
    c.info.maxSmClockMHz = khz / 1000.0;
  int memKhz = 0;
  if (cudaDeviceGetAttribute(&memKhz, cudaDevAttrMemoryClockRate,
                             options.device) == cudaSuccess)
    c.info.memClockMHz = memKhz / 1000.0;
  c.info.smClockMHz = c.info.maxSmClockMHz;
  char busId[32] = {0};
  if (cudaDeviceGetPCIBusId(busId, sizeof(busId), options.device) ==
      cudaSuccess)
    currentClocks(busId, c.info.smClockMHz, c.info.memClockMHz);
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  char version[64];
  std::snprintf(version, sizeof(version), "cuda %d.%d cudnn %zu",
                runtime / 1000, (runtime % 1000) / 10, cudnnGetVersion());
  c.info.runtime = version;
  info = c.info;
  return true;
}

void bench::gpuShutdown() {
  CudaContext &c = cudaContext();
  cudaDeviceSynchronize();
  if (c.workspace)
    cudaFree(c.workspace);
  if (c.dnn)
    cudnnDestroy(c.dnn);
  if (c.lt)
    cublasLtDestroy(c.lt);
  if (c.stream)
    cudaStreamDestroy(c.stream);
  c = CudaContext();
}

Measurement bench::measureKernel(const Kernel &k, const RunOptions &options) {
  cudaContext().options = options;
  // perf-bench's element-wise and concat kernels read every operand
  // contiguous; a key with broadcast or strided operands is another kernel.
  if (k.num("st"))
    return skipped(k.kind + ": strided operands (st=1) are not benchmarked");
  if (k.kind == "gemm")
    return benchGemm(k);
  if (k.kind == "conv2d")
    return benchConv(k, /*fusedBiasRelu=*/false);
  if (k.kind == "conv2d_bias_relu")
    return benchConv(k, /*fusedBiasRelu=*/true);
  if (k.kind == "embedding_bag")
    return benchEmbeddingBag(k);
  if (k.kind == "elementwise")
    return benchElementwise(k);
  if (k.kind == "reduce" || k.kind == "softmax" || k.kind == "layernorm")
    return benchRows(k);
  if (k.kind == "transpose")
    return benchTranspose(k);
  if (k.kind == "concat")
    return benchConcat(k);
  if (k.kind == "memcpy")
    return benchMemcpy(k);
  if (k.kind == "pooling")
    return benchPooling(k);
  if (k.kind == "batchnorm")
    return benchBatchNorm(k);
  if (k.kind == "optimizer")
    return benchOptimizer(k);
  if (k.kind == "rope")
    return benchRope(k);
  if (k.kind == "kv_cache_write")
    return benchKvCacheWrite(k);
  return skipped("no benchmark for kind '" + k.kind + "'");
}

bool bench::verifyKernel(const Kernel &k, double &maxError,
                         std::string &error) {
  if (k.kind == "embedding_bag" && k.text("pass") == "fwd")
    return verifyEmbeddingBagForward(k.num("t"), k.num("rows"), k.num("d"),
                                     k.num("b"), k.num("l"), maxError, error);
  if (k.kind == "reduce" || k.kind == "softmax" || k.kind == "layernorm")
    return verifyRows(k.kind, k.num("rows"), k.num("cols"), maxError, error);
  if (k.kind == "transpose")
    return verifyTranspose(k.num("n"), maxError, error);
  if (k.kind == "elementwise")
    return verifyElementwise(k.text("op"), k.num("n"), k.num("in"), maxError,
                             error);
  if (k.kind == "pooling")
    return verifyPooling(k, maxError, error);
  if (k.kind == "batchnorm")
    return verifyBatchNorm(k.num("n"), k.num("c"), maxError, error);
  if (k.kind == "optimizer")
    return verifyOptimizer(k.text("op"), k.num("n"), maxError, error);
  error = "no reference for " + k.kind;
  return false;
}

namespace {
/// Builds the distinct kernels of a plan one inside the other: each
/// benchmark's setup (buffers, descriptors, the chosen algorithm) lives in
/// its own stack frame until the innermost one has run the step, so every
/// launch function stays valid while the step runs.
struct GraphRunner {
  const GraphPlan &plan;
  const RunOptions &options;
  GraphRun &run;
  /// The launch function of each distinct kernel; null where its setup
  /// failed.
  std::vector<const std::function<std::string()> *> launchOf;
  std::vector<bool> built;
  size_t building = 0;

  GraphRunner(const GraphPlan &plan, const RunOptions &options, GraphRun &run)
      : plan(plan), options(options), run(run),
        launchOf(plan.kernels.size(), nullptr),
        built(plan.kernels.size(), false) {}

  void buildFrom(size_t i) {
    if (i == plan.kernels.size()) {
      replay();
      return;
    }
    building = i;
    Measurement m = measureKernel(plan.kernels[i], options);
    // A benchmark that stopped before its launch (out of memory, no
    // algorithm) never reached the capture: the step goes on without it.
    if (!built[i]) {
      built[i] = true;
      notBuilt[i] = m.skipReason.empty() ? "no launch" : m.skipReason;
      buildFrom(i + 1);
    }
  }

  /// timeRepetitions' capture: the launch of kernel `building`. A benchmark
  /// that tries several algorithms (conv) hands one: cuDNN's heuristic
  /// choice, as a framework without autotuning runs, or with
  /// --run-graph-fastest-conv the fastest (Conv.cu's fastestOf).
  void capture(const std::function<std::string()> &launch, Measurement &m) {
    size_t i = building;
    if (built[i]) {
      m = skipped("the step has run");
      return;
    }
    built[i] = true;
    launchOf[i] = &launch;
    buildFrom(i + 1);
    m.ok = true;
  }

  std::map<size_t, std::string> notBuilt;

  void replay();
};
} // namespace

void GraphRunner::replay() {
  CudaContext &c = cudaContext();
  // A stream for each stream the step's kernels run on, created for the
  // step, and an event after each launch another stream waits for.
  std::map<int64_t, cudaStream_t> streams;
  for (const PlannedLaunch &l : plan.launches)
    if (l.kernel >= 0 && !streams.count(l.stream)) {
      cudaStream_t s = nullptr;
      if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        run.error = "cannot create the step's streams";
        break;
      }
      streams[l.stream] = s;
    }
  std::vector<cudaEvent_t> done(plan.launches.size(), nullptr);
  for (size_t i = 0; i < plan.launches.size() && run.error.empty(); ++i)
    if (plan.waitedFor[i] &&
        cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming) !=
            cudaSuccess)
      run.error = "cannot create the step's events";
  cudaStream_t first = streams.empty() ? c.stream : streams.begin()->second;
  cudaStream_t savedStream = c.stream;

  // One pass over the launches; the kernels not built are counted once, the
  // host's time is kept for the timed ones.
  using Clock = std::chrono::steady_clock;
  auto usSince = [](Clock::time_point from) {
    return std::chrono::duration<double, std::micro>(Clock::now() - from)
        .count();
  };
  auto step = [&](bool count, bool timed) -> std::string {
    for (size_t i = 0; i < plan.launches.size(); ++i) {
      const PlannedLaunch &l = plan.launches[i];
      // Device 0 is the GPU replayed; another device's sync waits for
      // nothing here.
      if (l.type == PlannedLaunch::Type::Sync && l.device == 0) {
        if (l.stream == -1) {
          for (auto &[id, s] : streams)
            cudaStreamSynchronize(s);
        } else if (streams.count(l.stream)) {
          cudaStreamSynchronize(streams[l.stream]);
        }
        continue;
      }
      if (l.kernel < 0)
        continue;
      size_t k = static_cast<size_t>(l.kernel);
      if (!launchOf[k]) {
        if (count)
          ++run.notRun[plan.kernels[k].kind + ": " + notBuilt[k]];
        continue;
      }
      Clock::time_point issued = Clock::now();
      cudaStream_t s = streams[l.stream];
      for (size_t a : l.after)
        if (done[a])
          cudaStreamWaitEvent(s, done[a], 0);
      c.stream = s;
      cudnnSetStream(c.dnn, s);
      std::string e = (*launchOf[k])();
      if (!e.empty())
        return e;
      if (done[i])
        cudaEventRecord(done[i], s);
      if (timed)
        run.launchHostUs[plan.kernels[k].kind].push_back(usSince(issued));
      if (count)
        ++run.kernelsRun;
    }
    return "";
  };

  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<cudaEvent_t> joins(streams.size(), nullptr);
  if (run.error.empty() && (cudaEventCreate(&start) != cudaSuccess ||
                            cudaEventCreate(&stop) != cudaSuccess))
    run.error = "cannot create the timing events";
  for (cudaEvent_t &j : joins)
    if (run.error.empty() &&
        cudaEventCreateWithFlags(&j, cudaEventDisableTiming) != cudaSuccess)
      run.error = "cannot create the timing events";
  int total = options.warmup + options.reps;
  for (int rep = 0; rep < total && run.error.empty(); ++rep) {
    // Every stream starts when `first` records the start, and `first`
    // records the stop once every stream has drained into it.
    cudaEventRecord(start, first);
    for (auto &[id, s] : streams)
      if (s != first)
        cudaStreamWaitEvent(s, start, 0);
    bool timed = rep >= options.warmup;
    Clock::time_point issued = Clock::now();
    std::string e = step(rep == 0, timed);
    if (!e.empty()) {
      run.error = e;
      break;
    }
    if (timed)
      run.issueUs.push_back(usSince(issued));
    size_t j = 0;
    for (auto &[id, s] : streams) {
      cudaEventRecord(joins[j], s);
      cudaStreamWaitEvent(first, joins[j], 0);
      ++j;
    }
    cudaEventRecord(stop, first);
    cudaError_t err = cudaEventSynchronize(stop);
    if (err != cudaSuccess) {
      run.error = cudaErrorText("the step", err);
      break;
    }
    float ms = 0;
    if (rep >= options.warmup &&
        cudaEventElapsedTime(&ms, start, stop) == cudaSuccess)
      run.samplesUs.push_back(ms * 1000.0);
  }
  cudaDeviceSynchronize();
  c.stream = savedStream;
  cudnnSetStream(c.dnn, savedStream);
  for (cudaEvent_t e : done)
    if (e)
      cudaEventDestroy(e);
  for (cudaEvent_t e : joins)
    if (e)
      cudaEventDestroy(e);
  if (start)
    cudaEventDestroy(start);
  if (stop)
    cudaEventDestroy(stop);
  for (auto &[id, s] : streams)
    cudaStreamDestroy(s);
  run.ok = run.error.empty() && !run.samplesUs.empty();
  if (run.error.empty() && run.samplesUs.empty())
    run.error = "no repetition was timed";
}

GraphRun bench::runGraph(const GraphPlan &plan, const RunOptions &options) {
  GraphRun run;
  for (const auto &[why, n] : plan.notReplayed)
    run.notRun[why] += n;
  // One stack frame per distinct kernel, on a thread of its own with a
  // stack for this many.
  constexpr size_t kMaxDistinctKernels = 20000;
  if (plan.kernels.size() > kMaxDistinctKernels) {
    run.error = "the step has " + std::to_string(plan.kernels.size()) +
                " distinct kernels; perf-bench replays at most " +
                std::to_string(kMaxDistinctKernels);
    return run;
  }
  CudaContext &c = cudaContext();
  RunOptions saved = c.options;
  GraphRunner runner(plan, options, run);
  c.capture = [&](const std::function<std::string()> &launch, Measurement &m) {
    runner.capture(launch, m);
  };
  struct Start {
    GraphRunner *runner;
    int device;
  } start{&runner, options.device};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // About 20 KiB a kernel at most (a benchmark's frame, its std::function
  // and the capture's); pages not touched are never committed.
  pthread_attr_setstacksize(&attr, size_t(512) << 20);
  pthread_t thread;
  bool started = pthread_create(
                     &thread, &attr,
                     [](void *arg) -> void * {
                       auto *s = static_cast<Start *>(arg);
                       // The current device is per thread.
                       cudaSetDevice(s->device);
                       s->runner->buildFrom(0);
                       return nullptr;
                     },
                     &start) == 0;
  pthread_attr_destroy(&attr);
  if (started)
    pthread_join(thread, nullptr);
  else
    run.error = "cannot start the thread that builds the step";
  c.capture = nullptr;
  c.options = saved;
  return run;
}
