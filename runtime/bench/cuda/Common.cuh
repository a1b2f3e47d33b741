//===- Common.cuh - Shared state and timing of the CUDA benchmarks -*- CUDA
//-*-//
//
// One stream, one cuBLASLt and one cuDNN handle and one workspace for the
// whole run. Every benchmark hands timeRepetitions() a launch function; it
// runs the warm-up, then times each repetition with CUDA events and, where
// CUPTI is available, with the kernels' own activity records.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_CUDA_COMMON_CUH
#define PERF_BENCH_CUDA_COMMON_CUH

#include "bench/Runner.h"

#include <cstdint>
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <functional>
#include <string>
#include <vector>

namespace bench {

struct CudaContext {
  RunOptions options;
  DeviceInfo info;
  cudaDeviceProp props{};
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  cudnnHandle_t dnn = nullptr;
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
  bool cuptiReady = false;
  /// Set while runGraph builds a step's kernels: a benchmark hands its
  /// launch to it instead of timing it (timeRepetitions), its buffers and
  /// descriptors staying alive until the call returns.
  std::function<void(const std::function<std::string()> &, Measurement &)>
      capture;
};

CudaContext &cudaContext();

/// "what: cuda error text".
std::string cudaErrorText(const char *what, cudaError_t e);
/// The error of the launches made since the last check ("" when none), as
/// cudaErrorText words it: what a timed launch function returns.
std::string lastError(const char *what);

/// A device allocation freed on scope exit. An allocation that fails leaves
/// ptr null and clears the sticky error so the next benchmark still runs.
struct DeviceBuffer {
  void *ptr = nullptr;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t n);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  template <typename T> T *as() const { return static_cast<T *>(ptr); }
  explicit operator bool() const { return ptr != nullptr; }
};

enum class ElemType { F32, F16, BF16, F64, I64, I32, I8 };
/// The storage type of a kernel dtype (tf32 is stored as f32, a boolean as
/// one byte, as PyTorch stores it); false for a dtype the benchmark kernels
/// do not handle.
bool storageType(const std::string &dtype, ElemType &out);
size_t elemBytes(ElemType t);

bool isInteger(ElemType t);

/// A pseudo-random value in [-1, 1) from an index and a seed (SplitMix64's
/// finalizer), the same on the host and the device.
__host__ __device__ __forceinline__ float hashUnit(size_t i, unsigned seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<float>(x >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

/// Fills `count` elements with pseudo-random values in [-1, 1), integers
/// with values in [-64, 64) (random data: zeros would draw less power and
/// run faster than real tensors).
void fillRandom(void *ptr, size_t count, ElemType type, unsigned seed);

/// Runs options.warmup untimed and options.reps timed calls of `launch`
/// (which enqueues on cudaContext().stream and returns an error text or "").
/// Fills samplesUs, timing, kernelNames; sets ok. With `cupti` false, times
/// with events only (copies).
void timeRepetitions(const std::function<std::string()> &launch, Measurement &m,
                     bool cupti = true);

/// Starts CUPTI activity collection; false if CUPTI is unavailable.
bool cuptiStart();

Measurement skipped(const std::string &why);

/// Blocks of 256 threads for a grid-stride loop over `n` items: one item a
/// thread, at most 32 blocks an SM.
unsigned gridFor(size_t n);

/// Copies host.size() floats of `d` to `host` once the stream has run (the
/// checks against host references); false with `error` set on failure.
bool downloadFloats(std::vector<float> &host, const DeviceBuffer &d,
                    std::string &error);

// Benchmarks, one per kind (Gemm.cu, Conv.cu, Embedding.cu, Rows.cu,
// Memory.cu, Layers.cu).
Measurement benchGemm(const Kernel &k);
Measurement benchConv(const Kernel &k, bool fusedBiasRelu);
Measurement benchEmbeddingBag(const Kernel &k);
Measurement benchElementwise(const Kernel &k);
Measurement benchRows(const Kernel &k); // reduce, softmax, layernorm
Measurement benchTranspose(const Kernel &k);
Measurement benchConcat(const Kernel &k);
Measurement benchMemcpy(const Kernel &k);
Measurement benchPooling(const Kernel &k);   // Layers.cu
Measurement benchBatchNorm(const Kernel &k); // Layers.cu
Measurement benchOptimizer(const Kernel &k); // Layers.cu
Measurement benchRope(const Kernel &k);         // Llm.cu
Measurement benchKvCacheWrite(const Kernel &k); // Llm.cu

// Checks of the hand-written kernels against host references (f32, small
// random inputs); the largest absolute difference goes to maxError.
bool verifyEmbeddingBagForward(int64_t tables, int64_t rows, int64_t dim,
                               int64_t batch, int64_t pooling, double &maxError,
                               std::string &error);
bool verifyRows(const std::string &kind, int64_t rows, int64_t cols,
                double &maxError, std::string &error);
bool verifyTranspose(int64_t n, double &maxError, std::string &error);
bool verifyElementwise(const std::string &op, int64_t n, int64_t inputs,
                       double &maxError, std::string &error);
/// Max pooling's forward and its backward from the forward's argmax.
bool verifyPooling(const Kernel &k, double &maxError, std::string &error);
/// Batch norm's forward and backward.
bool verifyBatchNorm(int64_t elements, int64_t channels, double &maxError,
                     std::string &error);
/// SGD's and Adam's update (maxError relative to the value, at least 1).
bool verifyOptimizer(const std::string &op, int64_t elements, double &maxError,
                     std::string &error);

/// Rows x cols with rows * cols == n, as square as n allows.
void transposeShape(int64_t n, int64_t &rows, int64_t &cols);

} // namespace bench

#endif // PERF_BENCH_CUDA_COMMON_CUH
