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

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

using namespace bench;

namespace {
enum Op {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Relu,
  Gelu,
  Sigmoid,
  Tanh,
  Exp,
  Neg,
  Copy,
  Scale
};
constexpr int kMaxInputs = 8;

bool opCode(const std::string &name, Op &op) {
  static const char *names[] = {"add", "sub",  "mul",  "div",     "max",
                                "min", "relu", "gelu", "sigmoid", "tanh",
                                "exp", "neg",  "copy", "scale"};
  for (int i = 0; i < 14; ++i)
    if (name == names[i]) {
      op = static_cast<Op>(i);
      return true;
    }
  return false;
}

template <typename T> struct Inputs { const T *p[kMaxInputs]; };
} // namespace

__device__ __forceinline__ float applyBinary(Op op, float a, float b) {
  switch (op) {
  case Sub:
    return a - b;
  case Mul:
    return a * b;
  case Div:
    return a / b;
  case Max:
    return fmaxf(a, b);
  case Min:
    return fminf(a, b);
  default:
    return a + b;
  }
}

__device__ __forceinline__ float applyUnary(Op op, float x) {
  switch (op) {
  case Relu:
    return fmaxf(x, 0.f);
  case Gelu:
    return 0.5f * x * (1.f + erff(x * 0.70710678f));
  case Sigmoid:
    return 1.f / (1.f + __expf(-x));
  case Tanh:
    return tanhf(x);
  case Exp:
    return __expf(x);
  case Neg:
    return -x;
  case Scale:
    return 0.5f * x;
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

/// The element-wise kernel over `n / W` vectors of W elements: every
/// operand's length a multiple of W and every buffer aligned to W elements
/// (cudaMalloc gives 256 bytes).
template <typename T, int W>
__global__ void elementwiseKernel(Inputs<T> in, int inputs, T *out,
                                  size_t vectors, Op op) {
  using V = Vec<T, W>;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < vectors;
       i += size_t(gridDim.x) * blockDim.x) {
    V first = reinterpret_cast<const V *>(in.p[0])[i];
    float acc[W];
#pragma unroll
    for (int e = 0; e < W; ++e)
      acc[e] = toFloat(first.v[e]);
    for (int j = 1; j < inputs; ++j) {
      V x = reinterpret_cast<const V *>(in.p[j])[i];
#pragma unroll
      for (int e = 0; e < W; ++e)
        acc[e] = applyBinary(op, acc[e], toFloat(x.v[e]));
    }
    V result;
#pragma unroll
    for (int e = 0; e < W; ++e)
      result.v[e] = fromFloat<T>(applyUnary(op, acc[e]));
    reinterpret_cast<V *>(out)[i] = result;
  }
}

static unsigned gridFor(size_t n) {
  const CudaContext &c = cudaContext();
  size_t blocks = (n + 255) / 256;
  size_t cap = size_t(c.props.multiProcessorCount) * 32;
  return static_cast<unsigned>(std::max<size_t>(1, std::min(blocks, cap)));
}

/// Enqueues the element-wise kernel, vectorized where the length allows.
template <typename T>
static void launchElementwise(const Inputs<T> &in, int inputs, T *out, size_t n,
                              Op op, cudaStream_t s) {
  constexpr int width = kVecWidth<T>;
  if (n % width == 0)
    elementwiseKernel<T, width>
        <<<gridFor(n / width), 256, 0, s>>>(in, inputs, out, n / width, op);
  else
    elementwiseKernel<T, 1><<<gridFor(n), 256, 0, s>>>(in, inputs, out, n, op);
}

Measurement bench::benchElementwise(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  Op op;
  if (!storageType(k.dtype, elem) || elem == ElemType::F64 || k.dtype == "tf32")
    return skipped("elementwise: dtype " + k.dtype + " not benchmarked");
  if (!opCode(k.text("op"), op))
    return skipped("elementwise: op " + k.text("op") + " not benchmarked");
  int inputs = static_cast<int>(k.num("in"));
  // perf-opt lists fills (arange, full, zeros) as element-wise kernels of no
  // inputs; the kernel here reads its first input.
  if (inputs < 1)
    return skipped("elementwise: no inputs (a fill) not benchmarked");
  if (inputs > kMaxInputs)
    return skipped("elementwise: more than 8 inputs");
  size_t n = k.num("n"), bytes = n * elemBytes(elem);
  std::vector<DeviceBuffer *> buffers;
  DeviceBuffer out(bytes);
  std::vector<std::unique_ptr<DeviceBuffer>> ins;
  for (int i = 0; i < inputs; ++i) {
    ins.emplace_back(new DeviceBuffer(bytes));
    if (!*ins.back())
      return skipped("elementwise: out of device memory");
    fillRandom(ins.back()->ptr, n, elem, 10 + i);
  }
  if (!out)
    return skipped("elementwise: out of device memory");
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        dispatchType(elem, [&](auto tag) {
          using T = decltype(tag);
          Inputs<T> p{};
          for (int i = 0; i < inputs; ++i)
            p.p[i] = ins[i]->as<T>();
          launchElementwise<T>(p, inputs, out.as<T>(), n, op, ctx.stream);
        });
        cudaError_t e = cudaGetLastError();
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
  constexpr int width = kVecWidth<T>;
  if (kind == "softmax" && cols <= 1024) {
    launchSoftmaxWarp<T>(static_cast<const T *>(in), static_cast<T *>(out),
                         rows, static_cast<int>(cols), s);
    return;
  }
  if (kind == "layernorm" && cols % width == 0) {
    // Enough threads for a few vectors each, at most 256 (more blocks fit
    // on an SM than with a thread per element).
    int vecThreads = std::min(std::max(rowThreads(cols / width / 4), 32), 256);
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

Measurement bench::benchRows(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  if (!storageType(k.dtype, elem) || elem == ElemType::F64 || k.dtype == "tf32")
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
        dispatchType(elem, [&](auto tag) {
          launchRows<decltype(tag)>(k.kind, rows, cols, in.ptr, gamma.ptr,
                                    beta.ptr, out.ptr, ctx.stream);
        });
        cudaError_t e = cudaGetLastError();
        return e == cudaSuccess ? "" : cudaErrorText(k.kind.c_str(), e);
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
        cudaError_t e = cudaGetLastError();
        return e == cudaSuccess ? "" : cudaErrorText("transpose", e);
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
        dispatchType(elem, [&](auto tag) {
          using T = decltype(tag);
          concatTwo<T><<<gridFor(n), 256, 0, ctx.stream>>>(
              a.as<T>(), na, b.as<T>(), nb, out.as<T>());
        });
        cudaError_t e = cudaGetLastError();
        return e == cudaSuccess ? "" : cudaErrorText("concat", e);
      },
      m);
  return m;
}

//===--- Checks against host references
//------------------------------------===//

static bool download(std::vector<float> &host, const DeviceBuffer &d,
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
  if (!download(x, in, error) || !download(y, out, error) ||
      !download(g, gamma, error) || !download(b, beta, error))
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
  if (!download(x, in, error) || !download(y, out, error))
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
  Op op;
  if (!opCode(name, op) || inputs < 1 || inputs > kMaxInputs) {
    error = "unsupported op or input count";
    return false;
  }
  std::vector<std::unique_ptr<DeviceBuffer>> ins;
  Inputs<float> p{};
  std::vector<std::vector<float>> host;
  for (int i = 0; i < inputs; ++i) {
    ins.emplace_back(new DeviceBuffer(n * 4));
    if (!*ins.back()) {
      error = "out of device memory";
      return false;
    }
    fillRandom(ins.back()->ptr, n, ElemType::F32, 50 + i);
    p.p[i] = ins.back()->as<float>();
  }
  DeviceBuffer out(n * 4);
  if (!out) {
    error = "out of device memory";
    return false;
  }
  launchElementwise<float>(p, static_cast<int>(inputs), out.as<float>(), n, op,
                           cudaContext().stream);
  std::vector<float> y(n);
  for (int i = 0; i < inputs; ++i) {
    host.emplace_back(n);
    if (!download(host.back(), *ins[i], error))
      return false;
  }
  if (!download(y, out, error))
    return false;
  maxError = 0;
  for (int64_t i = 0; i < n; ++i) {
    double acc = host[0][i];
    for (int j = 1; j < inputs; ++j) {
      double b = host[j][i];
      switch (op) {
      case Sub:
        acc -= b;
        break;
      case Mul:
        acc *= b;
        break;
      case Div:
        acc /= b;
        break;
      case Max:
        acc = std::max(acc, b);
        break;
      case Min:
        acc = std::min(acc, b);
        break;
      default:
        acc += b;
        break;
      }
    }
    switch (op) {
    case Relu:
      acc = std::max(acc, 0.0);
      break;
    case Gelu:
      acc = 0.5 * acc * (1 + std::erf(acc / std::sqrt(2.0)));
      break;
    case Sigmoid:
      acc = 1 / (1 + std::exp(-acc));
      break;
    case Tanh:
      acc = std::tanh(acc);
      break;
    case Exp:
      acc = std::exp(acc);
      break;
    case Neg:
      acc = -acc;
      break;
    case Scale:
      acc = 0.5 * acc;
      break;
    default:
      break;
    }
    maxError = std::max(maxError, std::abs(acc - y[i]));
  }
  return true;
}
