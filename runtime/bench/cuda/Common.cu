//===- Common.cu - Context, buffers, random fill, timing ------------------===//

#include "Common.cuh"

#include "bench/Stats.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

#ifdef PERF_BENCH_HAVE_CUPTI
#include <cupti.h>
#endif

using namespace bench;

CudaContext &bench::cudaContext() {
  static CudaContext context;
  return context;
}

std::string bench::cudaErrorText(const char *what, cudaError_t e) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}

std::string bench::lastError(const char *what) {
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "" : cudaErrorText(what, e);
}

bool bench::downloadFloats(std::vector<float> &host, const DeviceBuffer &d,
                           std::string &error) {
  cudaStreamSynchronize(cudaContext().stream);
  cudaError_t e = cudaMemcpy(host.data(), d.ptr, host.size() * sizeof(float),
                             cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    error = cudaErrorText("download", e);
    return false;
  }
  return true;
}

unsigned bench::gridFor(size_t n) {
  const CudaContext &c = cudaContext();
  size_t blocks = (n + 255) / 256;
  size_t cap = size_t(c.props.multiProcessorCount) * 32;
  return static_cast<unsigned>(std::max<size_t>(1, std::min(blocks, cap)));
}

Measurement bench::skipped(const std::string &why) {
  Measurement m;
  m.ok = false;
  m.skipReason = why;
  return m;
}

DeviceBuffer::DeviceBuffer(size_t n) : bytes(n) {
  if (cudaMalloc(&ptr, n ? n : 1) != cudaSuccess) {
    ptr = nullptr;
    cudaGetLastError(); // an out-of-memory is not sticky; clear it
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr)
    cudaFree(ptr);
}

bool bench::storageType(const std::string &dtype, ElemType &out) {
  if (dtype == "f32" || dtype == "tf32")
    out = ElemType::F32;
  else if (dtype == "f16")
    out = ElemType::F16;
  else if (dtype == "bf16")
    out = ElemType::BF16;
  else if (dtype == "f64")
    out = ElemType::F64;
  else if (dtype == "i64")
    out = ElemType::I64;
  else if (dtype == "i32")
    out = ElemType::I32;
  else if (dtype == "i8" || dtype == "i1")
    out = ElemType::I8;
  else
    return false;
  return true;
}

bool bench::isInteger(ElemType t) {
  return t == ElemType::I64 || t == ElemType::I32 || t == ElemType::I8;
}

size_t bench::elemBytes(ElemType t) {
  switch (t) {
  case ElemType::F32:
    return 4;
  case ElemType::F16:
  case ElemType::BF16:
    return 2;
  case ElemType::F64:
  case ElemType::I64:
    return 8;
  case ElemType::I32:
    return 4;
  case ElemType::I8:
    return 1;
  }
  return 4;
}

template <typename T>
__global__ void fillKernel(T *p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    if constexpr (std::is_integral_v<T>)
      p[i] = static_cast<T>(hashUnit(i, seed) * 64.f);
    else
      p[i] = static_cast<T>(hashUnit(i, seed));
}

void bench::fillRandom(void *ptr, size_t count, ElemType type, unsigned seed) {
  cudaStream_t s = cudaContext().stream;
  unsigned blocks = 1024;
  switch (type) {
  case ElemType::F32:
    fillKernel<<<blocks, 256, 0, s>>>(static_cast<float *>(ptr), count, seed);
    break;
  case ElemType::F16:
    fillKernel<<<blocks, 256, 0, s>>>(static_cast<__half *>(ptr), count, seed);
    break;
  case ElemType::BF16:
    fillKernel<<<blocks, 256, 0, s>>>(static_cast<__nv_bfloat16 *>(ptr), count,
                                      seed);
    break;
  case ElemType::F64:
    fillKernel<<<blocks, 256, 0, s>>>(static_cast<double *>(ptr), count, seed);
    break;
  case ElemType::I64:
    fillKernel<<<blocks, 256, 0, s>>>(static_cast<int64_t *>(ptr), count, seed);
    break;
  case ElemType::I32:
    fillKernel<<<blocks, 256, 0, s>>>(static_cast<int32_t *>(ptr), count, seed);
    break;
  case ElemType::I8:
    fillKernel<<<blocks, 256, 0, s>>>(static_cast<int8_t *>(ptr), count, seed);
    break;
  }
}

//===--- CUPTI activity records -------------------------------------------===//

namespace {
struct KernelRecord {
  uint64_t start, end;
  std::string name;
};
std::mutex recordMutex;
std::vector<KernelRecord> records;
} // namespace

#ifdef PERF_BENCH_HAVE_CUPTI
static constexpr size_t kCuptiBuffer = 8 << 20;

static void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size,
                                     size_t *maxNumRecords) {
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kCuptiBuffer));
  *size = kCuptiBuffer;
  *maxNumRecords = 0;
}

static void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *buffer,
                                     size_t, size_t validSize) {
  CUpti_Activity *record = nullptr;
  std::lock_guard<std::mutex> lock(recordMutex);
  while (cuptiActivityGetNextRecord(buffer, validSize, &record) ==
         CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
        record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
      continue;
    auto *k = reinterpret_cast<CUpti_ActivityKernel10 *>(record);
    records.push_back({k->start, k->end, k->name ? k->name : "?"});
  }
  std::free(buffer);
}
#endif

bool bench::cuptiStart() {
#ifdef PERF_BENCH_HAVE_CUPTI
  return cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted) ==
         CUPTI_SUCCESS;
#else
  return false;
#endif
}

static bool cuptiCollect(bool on) {
#ifdef PERF_BENCH_HAVE_CUPTI
  if (on)
    return cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
           CUPTI_SUCCESS;
  cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  return true;
#else
  (void)on;
  return false;
#endif
}

void bench::timeRepetitions(const std::function<std::string()> &launch,
                            Measurement &m, bool cupti) {
  CudaContext &c = cudaContext();
  if (c.capture) {
    // runGraph is building a step: the launch runs there, in the step.
    auto capture = c.capture;
    capture(launch, m);
    return;
  }
  cudaStream_t s = c.stream;
  for (int i = 0; i < c.options.warmup; ++i) {
    std::string e = launch();
    if (!e.empty()) {
      m = skipped(e);
      return;
    }
  }
  cudaError_t e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) {
    m = skipped(cudaErrorText("warm-up", e));
    return;
  }
  int reps = c.options.reps;
  std::vector<cudaEvent_t> events(2 * reps);
  for (cudaEvent_t &ev : events)
    cudaEventCreate(&ev);
  bool useCupti = cupti && c.cuptiReady && c.options.cupti;
  if (useCupti) {
    std::lock_guard<std::mutex> lock(recordMutex);
    records.clear();
  }
  if (useCupti)
    useCupti = cuptiCollect(true);
  std::string launchError;
  for (int i = 0; i < reps && launchError.empty(); ++i) {
    cudaEventRecord(events[2 * i], s);
    launchError = launch();
    cudaEventRecord(events[2 * i + 1], s);
  }
  e = cudaStreamSynchronize(s);
  if (useCupti)
    cuptiCollect(false);
  std::vector<double> eventUs;
  for (int i = 0; i < reps && e == cudaSuccess && launchError.empty(); ++i) {
    float ms = 0;
    e = cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]);
    eventUs.push_back(ms * 1000.0);
  }
  for (cudaEvent_t &ev : events)
    cudaEventDestroy(ev);
  if (!launchError.empty()) {
    m = skipped(launchError);
    return;
  }
  if (e != cudaSuccess) {
    m = skipped(cudaErrorText("timed run", e));
    return;
  }
  m.ok = true;
  m.samplesUs = eventUs;
  m.timing = "events";
  if (!useCupti)
    return;

  // With the same kernels in every repetition, the records split into equal
  // consecutive groups; a repetition's time is its kernels' busy time.
  std::vector<KernelRecord> recs;
  {
    std::lock_guard<std::mutex> lock(recordMutex);
    recs.swap(records);
  }
  if (recs.empty() || recs.size() % reps != 0)
    return;
  std::sort(recs.begin(), recs.end(),
            [](const KernelRecord &a, const KernelRecord &b) {
              return a.start < b.start;
            });
  size_t perRep = recs.size() / reps;
  std::vector<double> kernelUs;
  for (int i = 0; i < reps; ++i) {
    uint64_t busy = 0;
    for (size_t j = 0; j < perRep; ++j) {
      const KernelRecord &r = recs[i * perRep + j];
      busy += r.end - r.start;
      if (r.name != recs[j].name)
        return; // repetitions launched different kernels: keep the events
    }
    kernelUs.push_back(busy / 1000.0);
  }
  std::string names;
  for (size_t j = 0; j < perRep && names.size() < 1000; ++j)
    names += (j ? ";" : "") + recs[j].name;
  m.samplesUs = kernelUs;
  m.kernelNames = names;
  m.timing = "cupti";
}
