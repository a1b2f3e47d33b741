//===- Rows.cu - Element-wise, row-wise, transpose and concat kernels -----===//
//
// Memory-bound kernels written the way PyTorch's are, so that their times
// stand for the framework's: element-wise loops that load 16 bytes per
// thread and access (PyTorch's vectorized_elementwise_kernel), a warp per row
// holding the row in registers for softmax over up to 1024 columns
// (softmax_warp_forward) and a block per row above, layer norm by a block per
// row with 16-byte loads, float accumulation throughout, a 32x32
// shared-memory tiled transpose, and concat as two contiguous copies.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Kernels.cuh"
#include "bench/ElementwiseOps.h"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

using namespace bench;

namespace {
constexpr int kMaxInputs = 8;

template <typename T> struct Inputs { const T *p[kMaxInputs]; };
} // namespace

// The arithmetic of ElementwiseOps.h on floats, the same on the host (the
// references of verifyElementwise) and the device.

/// The fold of input j (j >= 1) into `acc`; `first` is input 0's value
/// (where's condition).
__host__ __device__ __forceinline__ float foldInput(Combine c, int j, float acc,
                                                    float first, float x) {
  switch (c) {
  case Combine::Sub:
    return acc - x;
  case Combine::RSub:
    return x - acc;
  case Combine::Mul:
    return acc * x;
  case Combine::Div:
    return acc / x;
  case Combine::Max:
    return fmaxf(acc, x);
  case Combine::Min:
    return fminf(acc, x);
  case Combine::Pow:
    return powf(fabsf(acc), x);
  case Combine::Less:
    return acc < x ? 1.f : 0.f;
  case Combine::LessEqual:
    return acc <= x ? 1.f : 0.f;
  case Combine::Greater:
    return acc > x ? 1.f : 0.f;
  case Combine::GreaterEqual:
    return acc >= x ? 1.f : 0.f;
  case Combine::Equal:
    return acc == x ? 1.f : 0.f;
  case Combine::NotEqual:
    return acc != x ? 1.f : 0.f;
  case Combine::Select:
    if (j == 1)
      return x;
    if (j == 2)
      return first > 0.f ? acc : x;
    return acc + x;
  default:
    return acc + x;
  }
}

/// The function of the combined value; `i` is the element's index (the
/// dropout mask hashes it).
__host__ __device__ __forceinline__ float mapValue(Map m, float x, size_t i) {
  switch (m) {
  case Map::Relu:
    return fmaxf(x, 0.f);
  case Map::Gelu:
    return 0.5f * x * (1.f + erff(x * 0.70710678f));
  case Map::Silu:
    return x / (1.f + expf(-x));
  case Map::Sigmoid:
    return 1.f / (1.f + expf(-x));
  case Map::Tanh:
    return tanhf(x);
  case Map::Exp:
    return expf(x);
  case Map::Log:
    return logf(fabsf(x) + 1.f);
  case Map::Sqrt:
    return sqrtf(fabsf(x));
  case Map::Rsqrt:
    return 1.f / sqrtf(fabsf(x) + 1.f);
  case Map::Reciprocal:
    return 1.f / (fabsf(x) + 1.f);
  case Map::Abs:
    return fabsf(x);
  case Map::Neg:
    return -x;
  case Map::Half:
    return 0.5f * x;
  case Map::Square:
    return x * x;
  case Map::Sin:
    return sinf(x);
  case Map::Cos:
    return cosf(x);
  case Map::Erf:
    return erff(x);
  case Map::Floor:
    return floorf(x);
  case Map::Dropout:
    return hashUnit(i, 7) > 0.f ? 2.f * x : 0.f;
  case Map::NonZeroTest:
    return x != 0.f ? 1.f : 0.f;
  default:
    return x;
  }
}

/// W consecutive elements of T, loaded and stored as one access (16 bytes
/// for the vectorized kernels, one element for the scalar ones).
template <typename T, int W> struct alignas(W * sizeof(T)) Vec {
  static constexpr int N = W;
  T v[W];
};

/// The elements of T in one 16-byte access.
template <typename T> constexpr int kVecWidth = 16 / sizeof(T);

/// The pointwise kernel over `n / W` vectors of W elements: every operand's
/// length a multiple of W and every buffer aligned to W elements (cudaMalloc
/// gives 256 bytes). Fills read nothing (`inputs` 0). The function of the
/// result is a template argument, as each ATen op is a kernel of its own:
/// one kernel switching over every function at run time holds the registers
/// of the costliest (erf, sin) and ran 1.2-2.6x slower than PyTorch's on the
/// H200. The first kPreloaded operands are loaded before any is used, so
/// their loads are in flight together.
constexpr int kPreloaded = 4;

template <typename T, int W, Map M>
__global__ void elementwiseKernel(Inputs<T> in, int inputs, T *out,
                                  size_t vectors, ElementwiseShape shape,
                                  Combine combine) {
  using V = Vec<T, W>;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < vectors;
       i += size_t(gridDim.x) * blockDim.x) {
    float acc[W], first[W];
    if (shape == ElementwiseShape::Pointwise) {
      V x[kPreloaded];
#pragma unroll
      for (int j = 0; j < kPreloaded; ++j)
        if (j < inputs)
          x[j] = reinterpret_cast<const V *>(in.p[j])[i];
#pragma unroll
      for (int e = 0; e < W; ++e)
        first[e] = acc[e] = toFloat(x[0].v[e]);
#pragma unroll
      for (int j = 1; j < kPreloaded; ++j)
        if (j < inputs) {
#pragma unroll
          for (int e = 0; e < W; ++e)
            acc[e] =
                foldInput(combine, j, acc[e], first[e], toFloat(x[j].v[e]));
        }
      for (int j = kPreloaded; j < inputs; ++j) {
        V y = reinterpret_cast<const V *>(in.p[j])[i];
#pragma unroll
        for (int e = 0; e < W; ++e)
          acc[e] = foldInput(combine, j, acc[e], first[e], toFloat(y.v[e]));
      }
    } else {
#pragma unroll
      for (int e = 0; e < W; ++e)
        acc[e] = shape == ElementwiseShape::Arange ? float(i * W + e) : 1.f;
    }
    V result;
#pragma unroll
    for (int e = 0; e < W; ++e)
      result.v[e] = fromFloat<T>(mapValue(M, acc[e], i * W + e));
    reinterpret_cast<V *>(out)[i] = result;
  }
}

/// Enqueues the pointwise kernel of function M on `vectors` vectors of W.
template <typename T, int W, Map M>
static void launchMapped(const Inputs<T> &in, int inputs, T *out,
                         size_t vectors, const ElementwiseOp &op,
                         cudaStream_t s) {
  elementwiseKernel<T, W, M><<<gridFor(vectors), 256, 0, s>>>(
      in, inputs, out, vectors, op.shape, op.combine);
}

/// Enqueues the pointwise kernel of op's function.
template <typename T, int W>
static void launchVectors(const Inputs<T> &in, int inputs, T *out,
                          size_t vectors, const ElementwiseOp &op,
                          cudaStream_t s) {
  switch (op.map) {
#define PERF_BENCH_MAP(NAME)                                                   \
  case Map::NAME:                                                              \
    return launchMapped<T, W, Map::NAME>(in, inputs, out, vectors, op, s);
    PERF_BENCH_MAP(Relu)
    PERF_BENCH_MAP(Gelu)
    PERF_BENCH_MAP(Silu)
    PERF_BENCH_MAP(Sigmoid)
    PERF_BENCH_MAP(Tanh)
    PERF_BENCH_MAP(Exp)
    PERF_BENCH_MAP(Log)
    PERF_BENCH_MAP(Sqrt)
    PERF_BENCH_MAP(Rsqrt)
    PERF_BENCH_MAP(Reciprocal)
    PERF_BENCH_MAP(Abs)
    PERF_BENCH_MAP(Neg)
    PERF_BENCH_MAP(Half)
    PERF_BENCH_MAP(Square)
    PERF_BENCH_MAP(Sin)
    PERF_BENCH_MAP(Cos)
    PERF_BENCH_MAP(Erf)
    PERF_BENCH_MAP(Floor)
    PERF_BENCH_MAP(Dropout)
    PERF_BENCH_MAP(NonZeroTest)
#undef PERF_BENCH_MAP
  default:
    return launchMapped<T, W, Map::Identity>(in, inputs, out, vectors, op, s);
  }
}

/// Enqueues the pointwise kernel, vectorized where the length allows.
template <typename T>
static void launchElementwise(const Inputs<T> &in, int inputs, T *out, size_t n,
                              const ElementwiseOp &op, cudaStream_t s) {
  constexpr int width = kVecWidth<T>;
  if (n % width == 0)
    launchVectors<T, width>(in, inputs, out, n / width, op, s);
  else
    launchVectors<T, 1>(in, inputs, out, n, op, s);
}

/// The inputs op reads when perf lists `listed`: a scan or a select reads
/// one, and a pointwise op at least one (perf lists one whose source is a
/// constant with none, which is then made here); fills read none of theirs.
static int operandsRead(const ElementwiseOp &op, int listed) {
  if (op.shape == ElementwiseShape::Scan ||
      op.shape == ElementwiseShape::NonZero)
    return 1;
  if (op.shape == ElementwiseShape::Pointwise)
    return std::max(listed, 1);
  return listed;
}

namespace {
/// The test of nonzero: an element is selected when it is not zero.
template <typename T> struct IsNonZero {
  __device__ bool operator()(const T &x) const { return toFloat(x) != 0.f; }
};

/// The device buffers of one element-wise kernel: its inputs, its output
/// (the indices, for nonzero) and CUB's scratch for the scans and selects.
struct ElementwiseBuffers {
  std::vector<std::unique_ptr<DeviceBuffer>> ins;
  std::unique_ptr<DeviceBuffer> out, count, scratch;
  size_t scratchBytes = 0;
};

/// Enqueues op on n elements of T: the pointwise kernel, or CUB's inclusive
/// scan (cumsum) or flagged select of the indices (nonzero: the indices as
/// int64, as ATen writes them, and their count).
template <typename T>
cudaError_t enqueueElementwise(const ElementwiseOp &op, int inputs, size_t n,
                               ElementwiseBuffers &b, cudaStream_t s) {
  const T *x = inputs ? b.ins[0]->as<const T>() : nullptr;
  switch (op.shape) {
  case ElementwiseShape::Scan:
    return cub::DeviceScan::InclusiveSum(b.scratch ? b.scratch->ptr : nullptr,
                                         b.scratchBytes, x, b.out->as<T>(),
                                         static_cast<int64_t>(n), s);
  case ElementwiseShape::NonZero:
    return cub::DeviceSelect::FlaggedIf(
        b.scratch ? b.scratch->ptr : nullptr, b.scratchBytes,
        thrust::counting_iterator<int64_t>(0), x, b.out->as<int64_t>(),
        b.count->as<int64_t>(), static_cast<int64_t>(n), IsNonZero<T>(), s);
  default: {
    Inputs<T> p{};
    for (int i = 0; i < inputs; ++i)
      p.p[i] = b.ins[i]->as<T>();
    int reads = op.shape == ElementwiseShape::Pointwise ? inputs : 0;
    launchElementwise<T>(p, reads, b.out->as<T>(), n, op, s);
    return cudaGetLastError();
  }
  }
}

/// Allocates the buffers of op on n elements of `elem` (random inputs, and
/// CUB's scratch sized by a first call); an error text, or "".
std::string allocateElementwise(const ElementwiseOp &op, ElemType elem,
                                int inputs, size_t n, unsigned seed,
                                ElementwiseBuffers &b) {
  size_t bytes = n * elemBytes(elem);
  for (int i = 0; i < inputs; ++i) {
    b.ins.emplace_back(new DeviceBuffer(bytes));
    if (!*b.ins.back())
      return "out of device memory";
    fillRandom(b.ins.back()->ptr, n, elem, seed + i);
  }
  b.out.reset(new DeviceBuffer(
      op.shape == ElementwiseShape::NonZero ? n * sizeof(int64_t) : bytes));
  b.count.reset(new DeviceBuffer(sizeof(int64_t)));
  if (!*b.out || !*b.count)
    return "out of device memory";
  if (op.shape != ElementwiseShape::Scan &&
      op.shape != ElementwiseShape::NonZero)
    return "";
  cudaError_t e = cudaSuccess;
  dispatchAnyType(elem, [&](auto tag) {
    e = enqueueElementwise<decltype(tag)>(op, inputs, n, b,
                                          cudaContext().stream);
  });
  if (e != cudaSuccess)
    return cudaErrorText("cub scratch size", e);
  b.scratch.reset(new DeviceBuffer(std::max<size_t>(b.scratchBytes, 1)));
  return *b.scratch ? "" : "out of device memory";
}
} // namespace

Measurement bench::benchElementwise(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  ElementwiseOp op;
  if (!storageType(k.dtype, elem) || elem == ElemType::F64 || k.dtype == "tf32")
    return skipped("elementwise: dtype " + k.dtype + " not benchmarked");
  if (!lookupElementwiseOp(k.text("op"), op))
    return skipped("elementwise: op " + k.text("op") + " not benchmarked");
  if (k.num("in") > kMaxInputs)
    return skipped("elementwise: more than 8 inputs");
  int inputs = operandsRead(op, static_cast<int>(k.num("in")));
  size_t n = k.num("n");
  ElementwiseBuffers b;
  std::string error = allocateElementwise(op, elem, inputs, n, 10, b);
  if (!error.empty())
    return skipped("elementwise: " + error);
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        cudaError_t e = cudaSuccess;
        dispatchAnyType(elem, [&](auto tag) {
          e = enqueueElementwise<decltype(tag)>(op, inputs, n, b, ctx.stream);
        });
        return e == cudaSuccess ? "" : cudaErrorText("elementwise", e);
      },
      m);
  return m;
}

//===--- Rows: reduce, softmax, layernorm ---------------------------------===//

template <typename T>
__global__ void reduceRows(const T *in, T *out, int64_t cols) {
  __shared__ float scratch[32];
  const T *row = in + blockIdx.x * cols;
  float sum = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    sum += toFloat(row[c]);
  sum = blockSum(sum, scratch);
  if (threadIdx.x == 0)
    out[blockIdx.x] = fromFloat<T>(sum);
}

template <typename T>
__global__ void softmaxRows(const T *in, T *out, int64_t cols) {
  __shared__ float scratch[32];
  const T *row = in + blockIdx.x * cols;
  T *dst = out + blockIdx.x * cols;
  float mx = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    mx = fmaxf(mx, toFloat(row[c]));
  mx = blockMax(mx, scratch);
  float sum = 0;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    sum += __expf(toFloat(row[c]) - mx);
  sum = blockSum(sum, scratch);
  float inv = 1.f / sum;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    dst[c] = fromFloat<T>(__expf(toFloat(row[c]) - mx) * inv);
}

/// Softmax of rows of up to 32 * PerLane columns, a warp per row: each lane
/// keeps its columns (lane, lane + 32, ...) in registers, so the row is read
/// once and written once.
template <typename T, int PerLane>
__global__ void softmaxWarpRows(const T *in, T *out, int64_t rows, int cols) {
  int64_t row = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  // The whole warp shares the row, so it leaves together.
  if (row >= rows)
    return;
  const T *src = in + row * cols;
  T *dst = out + row * cols;
  float v[PerLane];
  float mx = -INFINITY;
#pragma unroll
  for (int i = 0; i < PerLane; ++i) {
    int c = lane + 32 * i;
    v[i] = c < cols ? toFloat(src[c]) : -INFINITY;
    mx = fmaxf(mx, v[i]);
  }
  for (int offset = 16; offset > 0; offset /= 2)
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, offset));
  float sum = 0;
#pragma unroll
  for (int i = 0; i < PerLane; ++i) {
    int c = lane + 32 * i;
    v[i] = c < cols ? __expf(v[i] - mx) : 0.f;
    sum += v[i];
  }
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  float inv = 1.f / sum;
#pragma unroll
  for (int i = 0; i < PerLane; ++i) {
    int c = lane + 32 * i;
    if (c < cols)
      dst[c] = fromFloat<T>(v[i] * inv);
  }
}

/// Enqueues the warp softmax for `cols` <= 1024: four rows per block.
template <typename T>
static void launchSoftmaxWarp(const T *in, T *out, int64_t rows, int cols,
                              cudaStream_t s) {
  constexpr int rowsPerBlock = 4;
  unsigned blocks =
      static_cast<unsigned>((rows + rowsPerBlock - 1) / rowsPerBlock);
  int perLane = (cols + 31) / 32;
  auto launch = [&](auto lanes) {
    softmaxWarpRows<T, decltype(lanes)::value>
        <<<blocks, 32 * rowsPerBlock, 0, s>>>(in, out, rows, cols);
  };
  if (perLane <= 1)
    launch(std::integral_constant<int, 1>());
  else if (perLane <= 2)
    launch(std::integral_constant<int, 2>());
  else if (perLane <= 4)
    launch(std::integral_constant<int, 4>());
  else if (perLane <= 8)
    launch(std::integral_constant<int, 8>());
  else if (perLane <= 16)
    launch(std::integral_constant<int, 16>());
  else
    launch(std::integral_constant<int, 32>());
}

/// Layer norm, a block per row of `cols` (a multiple of W), each thread
/// loading whole vectors of W elements; the statistics pass and the
/// normalizing pass each read the row (the second from L2).
template <typename T, int W>
__global__ void layernormRows(const T *in, const T *gamma, const T *beta,
                              T *out, int64_t cols) {
  using V = Vec<T, W>;
  __shared__ float scratch[32];
  const V *row = reinterpret_cast<const V *>(in + blockIdx.x * cols);
  V *dst = reinterpret_cast<V *>(out + blockIdx.x * cols);
  const V *g = reinterpret_cast<const V *>(gamma);
  const V *b = reinterpret_cast<const V *>(beta);
  int64_t vectors = cols / W;
  float sum = 0, sq = 0;
  for (int64_t i = threadIdx.x; i < vectors; i += blockDim.x) {
    V x = row[i];
#pragma unroll
    for (int e = 0; e < W; ++e) {
      float f = toFloat(x.v[e]);
      sum += f;
      sq += f * f;
    }
  }
  sum = blockSum(sum, scratch);
  sq = blockSum(sq, scratch);
  float mean = sum / cols;
  float rstd = rsqrtf(fmaxf(sq / cols - mean * mean, 0.f) + 1e-5f);
  for (int64_t i = threadIdx.x; i < vectors; i += blockDim.x) {
    V x = row[i], gi = g[i], bi = b[i], y;
#pragma unroll
    for (int e = 0; e < W; ++e)
      y.v[e] = fromFloat<T>((toFloat(x.v[e]) - mean) * rstd * toFloat(gi.v[e]) +
                            toFloat(bi.v[e]));
    dst[i] = y;
  }
}

static int rowThreads(int64_t cols) {
  int t = 32;
  while (t < 1024 && t < cols)
    t <<= 1;
  return std::min(t, 1024);
}

/// Enqueues one row kernel; false if `kind` is unknown.
template <typename T>
static void launchRows(const std::string &kind, int64_t rows, int64_t cols,
                       const void *in, const void *gamma, const void *beta,
                       void *out, cudaStream_t s) {
  int threads = std::min(rowThreads(cols), 256 * 4);
  dim3 grid(static_cast<unsigned>(rows));
  if constexpr (std::is_integral_v<T>) {
    // Integer rows are only summed (benchRows refuses the other kinds).
    reduceRows<T><<<grid, threads, 0, s>>>(static_cast<const T *>(in),
                                           static_cast<T *>(out), cols);
  } else {
    constexpr int width = kVecWidth<T>;
    if (kind == "softmax" && cols <= 1024) {
      launchSoftmaxWarp<T>(static_cast<const T *>(in), static_cast<T *>(out),
                           rows, static_cast<int>(cols), s);
      return;
    }
    if (kind == "layernorm" && cols % width == 0) {
      // Enough threads for a few vectors each, at most 256 (more blocks fit
      // on an SM than with a thread per element).
      int vecThreads =
          std::min(std::max(rowThreads(cols / width / 4), 32), 256);
      layernormRows<T, width><<<grid, vecThreads, 0, s>>>(
          static_cast<const T *>(in), static_cast<const T *>(gamma),
          static_cast<const T *>(beta), static_cast<T *>(out), cols);
      return;
    }
    if (kind == "reduce")
      reduceRows<T><<<grid, threads, 0, s>>>(static_cast<const T *>(in),
                                             static_cast<T *>(out), cols);
    else if (kind == "softmax")
      softmaxRows<T><<<grid, threads, 0, s>>>(static_cast<const T *>(in),
                                              static_cast<T *>(out), cols);
    else
      layernormRows<T, 1><<<grid, threads, 0, s>>>(
          static_cast<const T *>(in), static_cast<const T *>(gamma),
          static_cast<const T *>(beta), static_cast<T *>(out), cols);
  }
}

Measurement bench::benchRows(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  // Integer rows are summed (a count, a mask's any), never normalized.
  if (!storageType(k.dtype, elem) || elem == ElemType::F64 ||
      k.dtype == "tf32" || (isInteger(elem) && k.kind != "reduce"))
    return skipped(k.kind + ": dtype " + k.dtype + " not benchmarked");
  int64_t rows = k.num("rows"), cols = k.num("cols");
  if (rows > 2147483647)
    return skipped(k.kind + ": too many rows for one grid");
  size_t es = elemBytes(elem), count = size_t(rows) * cols;
  DeviceBuffer in(count * es), out(count * es), gamma(cols * es),
      beta(cols * es);
  if (!in || !out || !gamma || !beta)
    return skipped(k.kind + ": out of device memory");
  fillRandom(in.ptr, count, elem, 20);
  fillRandom(gamma.ptr, cols, elem, 21);
  fillRandom(beta.ptr, cols, elem, 22);
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        dispatchAnyType(elem, [&](auto tag) {
          launchRows<decltype(tag)>(k.kind, rows, cols, in.ptr, gamma.ptr,
                                    beta.ptr, out.ptr, ctx.stream);
        });
        return lastError(k.kind.c_str());
      },
      m);
  return m;
}

//===--- Transpose and concat ---------------------------------------------===//

void bench::transposeShape(int64_t n, int64_t &rows, int64_t &cols) {
  int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
  while (r > 1 && n % r != 0)
    --r;
  rows = std::max<int64_t>(r, 1);
  cols = n / rows;
}

template <typename T>
__global__ void transposeTiled(const T *in, T *out, int64_t rows,
                               int64_t cols) {
  __shared__ T tile[32][33];
  int64_t x = blockIdx.x * 32 + threadIdx.x, y0 = blockIdx.y * 32;
  for (int j = threadIdx.y; j < 32; j += 8)
    if (x < cols && y0 + j < rows)
      tile[j][threadIdx.x] = in[(y0 + j) * cols + x];
  __syncthreads();
  int64_t ox = blockIdx.y * 32 + threadIdx.x, oy0 = blockIdx.x * 32;
  for (int j = threadIdx.y; j < 32; j += 8)
    if (ox < rows && oy0 + j < cols)
      out[(oy0 + j) * rows + ox] = tile[threadIdx.x][j];
}

template <typename T>
static void launchTranspose(const void *in, void *out, int64_t rows,
                            int64_t cols, cudaStream_t s) {
  dim3 grid(static_cast<unsigned>((cols + 31) / 32),
            static_cast<unsigned>((rows + 31) / 32));
  transposeTiled<T><<<grid, dim3(32, 8), 0, s>>>(
      static_cast<const T *>(in), static_cast<T *>(out), rows, cols);
}

Measurement bench::benchTranspose(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  if (!storageType(k.dtype, elem) || elem == ElemType::F64 || k.dtype == "tf32")
    return skipped("transpose: dtype " + k.dtype + " not benchmarked");
  int64_t n = k.num("n"), rows, cols;
  transposeShape(n, rows, cols);
  if ((rows + 31) / 32 > 65535)
    return skipped("transpose: too many rows for one grid");
  DeviceBuffer in(n * elemBytes(elem)), out(n * elemBytes(elem));
  if (!in || !out)
    return skipped("transpose: out of device memory");
  fillRandom(in.ptr, n, elem, 30);
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        dispatchType(elem, [&](auto tag) {
          launchTranspose<decltype(tag)>(in.ptr, out.ptr, rows, cols,
                                         ctx.stream);
        });
        return lastError("transpose");
      },
      m);
  if (m.ok)
    m.algo = "tiled32 " + std::to_string(rows) + "x" + std::to_string(cols);
  return m;
}

template <typename T>
__global__ void concatTwo(const T *a, size_t na, const T *b, size_t nb,
                          T *out) {
  size_t n = na + nb;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = i < na ? a[i] : b[i - na];
}

Measurement bench::benchConcat(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  if (!storageType(k.dtype, elem) || elem == ElemType::F64 || k.dtype == "tf32")
    return skipped("concat: dtype " + k.dtype + " not benchmarked");
  size_t n = k.num("n"), na = n / 2, nb = n - na, es = elemBytes(elem);
  DeviceBuffer a(na * es), b(nb * es), out(n * es);
  if (!a || !b || !out)
    return skipped("concat: out of device memory");
  fillRandom(a.ptr, na, elem, 31);
  fillRandom(b.ptr, nb, elem, 32);
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        dispatchAnyType(elem, [&](auto tag) {
          using T = decltype(tag);
          concatTwo<T><<<gridFor(n), 256, 0, ctx.stream>>>(
              a.as<T>(), na, b.as<T>(), nb, out.as<T>());
        });
        return lastError("concat");
      },
      m);
  return m;
}

//===--- Checks against host references
//------------------------------------===//

bool bench::verifyRows(const std::string &kind, int64_t rows, int64_t cols,
                       double &maxError, std::string &error) {
  size_t count = size_t(rows) * cols;
  DeviceBuffer in(count * 4), out(count * 4), gamma(cols * 4), beta(cols * 4);
  if (!in || !out || !gamma || !beta) {
    error = "out of device memory";
    return false;
  }
  fillRandom(in.ptr, count, ElemType::F32, 40);
  fillRandom(gamma.ptr, cols, ElemType::F32, 41);
  fillRandom(beta.ptr, cols, ElemType::F32, 42);
  launchRows<float>(kind, rows, cols, in.ptr, gamma.ptr, beta.ptr, out.ptr,
                    cudaContext().stream);
  std::vector<float> x(count), y(count), g(cols), b(cols);
  if (!downloadFloats(x, in, error) || !downloadFloats(y, out, error) ||
      !downloadFloats(g, gamma, error) || !downloadFloats(b, beta, error))
    return false;
  maxError = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float *row = &x[r * cols];
    if (kind == "reduce") {
      double sum = 0;
      for (int64_t c = 0; c < cols; ++c)
        sum += row[c];
      maxError = std::max(maxError, std::abs(sum - y[r]));
      continue;
    }
    double mx = -INFINITY, sum = 0, sq = 0;
    for (int64_t c = 0; c < cols; ++c) {
      mx = std::max<double>(mx, row[c]);
      sum += row[c];
      sq += double(row[c]) * row[c];
    }
    double expSum = 0;
    for (int64_t c = 0; c < cols; ++c)
      expSum += std::exp(row[c] - mx);
    double mean = sum / cols, var = sq / cols - mean * mean;
    for (int64_t c = 0; c < cols; ++c) {
      double want = kind == "softmax"
                        ? std::exp(row[c] - mx) / expSum
                        : (row[c] - mean) / std::sqrt(var + 1e-5) * g[c] + b[c];
      maxError = std::max(maxError, std::abs(want - y[r * cols + c]));
    }
  }
  return true;
}

bool bench::verifyTranspose(int64_t n, double &maxError, std::string &error) {
  int64_t rows, cols;
  transposeShape(n, rows, cols);
  DeviceBuffer in(n * 4), out(n * 4);
  if (!in || !out) {
    error = "out of device memory";
    return false;
  }
  fillRandom(in.ptr, n, ElemType::F32, 43);
  launchTranspose<float>(in.ptr, out.ptr, rows, cols, cudaContext().stream);
  std::vector<float> x(n), y(n);
  if (!downloadFloats(x, in, error) || !downloadFloats(y, out, error))
    return false;
  maxError = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      maxError = std::max<double>(maxError,
                                  std::abs(x[r * cols + c] - y[c * rows + r]));
  return true;
}

bool bench::verifyElementwise(const std::string &name, int64_t n,
                              int64_t inputs, double &maxError,
                              std::string &error) {
  ElementwiseOp op;
  if (!lookupElementwiseOp(name, op) || inputs < 0 || inputs > kMaxInputs) {
    error = "unsupported op or input count";
    return false;
  }
  inputs = operandsRead(op, static_cast<int>(inputs));
  ElementwiseBuffers b;
  error = allocateElementwise(op, ElemType::F32, static_cast<int>(inputs), n,
                              50, b);
  if (!error.empty())
    return false;
  cudaError_t e = enqueueElementwise<float>(op, static_cast<int>(inputs), n, b,
                                            cudaContext().stream);
  if (e != cudaSuccess) {
    error = cudaErrorText("elementwise", e);
    return false;
  }
  std::vector<std::vector<float>> x;
  for (int i = 0; i < inputs; ++i) {
    x.emplace_back(n);
    if (!downloadFloats(x.back(), *b.ins[i], error))
      return false;
  }
  maxError = 0;
  // The difference relative to the reference's magnitude (at least 1): the
  // host's and the device's transcendental functions differ in the last
  // bits. Two NaNs agree.
  auto compare = [&](double want, double got) {
    if (std::isnan(want) && std::isnan(got))
      return;
    double diff = std::abs(want - got) / std::max(1.0, std::abs(want));
    maxError = std::isnan(diff) ? INFINITY : std::max(maxError, diff);
  };
  if (op.shape == ElementwiseShape::NonZero) {
    std::vector<int64_t> indices(n), count(1);
    cudaStreamSynchronize(cudaContext().stream);
    if (cudaMemcpy(count.data(), b.count->ptr, sizeof(int64_t),
                   cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(indices.data(), b.out->ptr, n * sizeof(int64_t),
                   cudaMemcpyDeviceToHost) != cudaSuccess) {
      error = "download of nonzero's indices failed";
      return false;
    }
    std::vector<int64_t> want;
    for (int64_t i = 0; i < n; ++i)
      if (x[0][i] != 0.f)
        want.push_back(i);
    compare(double(want.size()), double(count[0]));
    for (size_t i = 0; i < want.size() && i < size_t(count[0]); ++i)
      compare(double(want[i]), double(indices[i]));
    return true;
  }
  std::vector<float> y(n);
  if (!downloadFloats(y, *b.out, error))
    return false;
  double running = 0;
  for (int64_t i = 0; i < n; ++i) {
    float acc = 1.f;
    switch (op.shape) {
    case ElementwiseShape::Scan:
      running += x[0][i];
      compare(running, y[i]);
      continue;
    case ElementwiseShape::Arange:
      acc = float(i);
      break;
    case ElementwiseShape::Pointwise:
      acc = x[0][i];
      for (int j = 1; j < inputs; ++j)
        acc = foldInput(op.combine, j, acc, x[0][i], x[j][i]);
      break;
    default:
      break;
    }
    compare(mapValue(op.map, acc, size_t(i)), y[i]);
  }
  return true;
}
