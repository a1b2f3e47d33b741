//===- Layers.cu - Pooling, batch norm and optimizer-step kernels ---------===//
//
// The CNN layers and the training step's update perf prices, written as
// PyTorch's native CUDA kernels run them:
//  - max pooling over NCHW, a thread per output keeping the argmax as int64
//    (max_pool2d_with_indices), and its backward a thread per input element
//    gathering the gradients of the outputs whose argmax it is
//    (max_pool_backward_nchw);
//  - batch norm's forward as the normalization with per-channel statistics
//    (one read, one write: what perf's byte count says), and its backward as
//    a per-channel reduction of dy and dy * x followed by the element-wise
//    gradient (batch_norm_backward's two kernels);
//  - SGD's update p -= lr * g and Adam's fused update of p, m and v.
// A perf key names a batch norm's elements and channels but not how the
// elements split into batch and spatial positions, so the kernels lay each
// channel's elements out contiguously: the same bytes with the same
// coalescing.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Kernels.cuh"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace bench;

/// The storage type of a kernel these float kernels run (f32, f16, bf16);
/// false for another dtype.
static bool floatType(const Kernel &k, ElemType &elem) {
  return storageType(k.dtype, elem) && !isInteger(elem) &&
         elem != ElemType::F64 && k.dtype != "tf32";
}

//===--- Max pooling ------------------------------------------------------===//

namespace {
struct PoolShape {
  int64_t n, c, h, w, r, s, sh, sw, ph, pw;
  __host__ __device__ int64_t oh() const { return (h + 2 * ph - r) / sh + 1; }
  __host__ __device__ int64_t ow() const { return (w + 2 * pw - s) / sw + 1; }
  __host__ __device__ size_t inputs() const { return size_t(n) * c * h * w; }
  __host__ __device__ size_t outputs() const {
    return size_t(n) * c * oh() * ow();
  }
};

PoolShape poolShape(const Kernel &k) {
  return PoolShape{k.num("n"),  k.num("c"), k.num("h"),  k.num("w"),
                   k.num("r"),  k.num("s"), k.num("sh"), k.num("sw"),
                   k.num("ph"), k.num("pw")};
}
} // namespace

template <typename T>
__global__ void maxPoolForward(const T *in, T *out, int64_t *argmax,
                               PoolShape p) {
  int64_t oh = p.oh(), ow = p.ow();
  size_t total = p.outputs();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < total;
       i += size_t(gridDim.x) * blockDim.x) {
    int64_t x = i % ow, y = (i / ow) % oh, plane = i / (ow * oh);
    const T *src = in + plane * p.h * p.w;
    int64_t y0 = y * p.sh - p.ph, x0 = x * p.sw - p.pw;
    float best = -INFINITY;
    int64_t where = -1;
    for (int64_t dy = 0; dy < p.r; ++dy) {
      int64_t yy = y0 + dy;
      if (yy < 0 || yy >= p.h)
        continue;
      for (int64_t dx = 0; dx < p.s; ++dx) {
        int64_t xx = x0 + dx;
        if (xx < 0 || xx >= p.w)
          continue;
        float v = toFloat(src[yy * p.w + xx]);
        if (v > best || where < 0) {
          best = v;
          where = yy * p.w + xx;
        }
      }
    }
    out[i] = fromFloat<T>(best);
    argmax[i] = where;
  }
}

template <typename T>
__global__ void maxPoolBackward(const T *gradOut, const int64_t *argmax,
                                T *gradIn, PoolShape p) {
  int64_t oh = p.oh(), ow = p.ow();
  size_t total = p.inputs();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < total;
       i += size_t(gridDim.x) * blockDim.x) {
    int64_t x = i % p.w, y = (i / p.w) % p.h, plane = i / (p.w * p.h);
    // The outputs whose window covers (y, x).
    int64_t yStart = y + p.ph < p.r ? 0 : (y + p.ph - p.r) / p.sh + 1;
    int64_t yEnd = (y + p.ph) / p.sh + 1 < oh ? (y + p.ph) / p.sh + 1 : oh;
    int64_t xStart = x + p.pw < p.s ? 0 : (x + p.pw - p.s) / p.sw + 1;
    int64_t xEnd = (x + p.pw) / p.sw + 1 < ow ? (x + p.pw) / p.sw + 1 : ow;
    float sum = 0.f;
    int64_t self = y * p.w + x;
    for (int64_t oy = yStart; oy < yEnd; ++oy)
      for (int64_t ox = xStart; ox < xEnd; ++ox) {
        size_t o = (plane * oh + oy) * ow + ox;
        if (argmax[o] == self)
          sum += toFloat(gradOut[o]);
      }
    gradIn[i] = fromFloat<T>(sum);
  }
}

namespace {
/// A pooling kernel's buffers: the input (or its gradient), the output (or
/// its gradient) and the argmax, which the forward fills.
struct PoolBuffers {
  DeviceBuffer in, out, argmax;
  PoolBuffers(const PoolShape &p, size_t es)
      : in(p.inputs() * es), out(p.outputs() * es),
        argmax(p.outputs() * sizeof(int64_t)) {}
  explicit operator bool() const { return in && out && argmax; }
};
} // namespace

template <typename T>
static void launchPool(bool forward, const PoolShape &p, PoolBuffers &b,
                       cudaStream_t s) {
  if (forward)
    maxPoolForward<T><<<gridFor(p.outputs()), 256, 0, s>>>(
        b.in.as<T>(), b.out.as<T>(), b.argmax.as<int64_t>(), p);
  else
    maxPoolBackward<T><<<gridFor(p.inputs()), 256, 0, s>>>(
        b.out.as<T>(), b.argmax.as<int64_t>(), b.in.as<T>(), p);
}

Measurement bench::benchPooling(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  if (!floatType(k, elem))
    return skipped("pooling: dtype " + k.dtype + " not benchmarked");
  PoolShape p = poolShape(k);
  if (p.oh() <= 0 || p.ow() <= 0)
    return skipped("pooling: the window does not fit the padded input");
  PoolBuffers b(p, elemBytes(elem));
  if (!b)
    return skipped("pooling: out of device memory");
  fillRandom(b.in.ptr, p.inputs(), elem, 60);
  fillRandom(b.out.ptr, p.outputs(), elem, 61);
  bool forward = k.text("pass") != "bwd";
  // The backward reads the argmax a forward wrote.
  if (!forward)
    dispatchType(elem, [&](auto tag) {
      launchPool<decltype(tag)>(true, p, b, ctx.stream);
    });
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        dispatchType(elem, [&](auto tag) {
          launchPool<decltype(tag)>(forward, p, b, ctx.stream);
        });
        return lastError("pooling");
      },
      m);
  return m;
}

//===--- Batch norm -------------------------------------------------------===//

template <typename T>
__global__ void batchNormForward(const T *x, const float *scale,
                                 const float *shift, T *y, size_t n,
                                 size_t perChannel) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    size_t c = i / perChannel;
    y[i] = fromFloat<T>(toFloat(x[i]) * scale[c] + shift[c]);
  }
}

/// Per channel (a block each): the sums of dy and of dy * (x - mean).
template <typename T>
__global__ void batchNormReduce(const T *dy, const T *x, const float *mean,
                                float *sumDy, float *sumDyXmu,
                                size_t perChannel) {
  __shared__ float scratch[32];
  size_t c = blockIdx.x;
  const T *dyc = dy + c * perChannel, *xc = x + c * perChannel;
  float a = 0.f, b = 0.f, mu = mean[c];
  for (size_t i = threadIdx.x; i < perChannel; i += blockDim.x) {
    float g = toFloat(dyc[i]);
    a += g;
    b += g * (toFloat(xc[i]) - mu);
  }
  a = blockSum(a, scratch);
  b = blockSum(b, scratch);
  if (threadIdx.x == 0) {
    sumDy[c] = a;
    sumDyXmu[c] = b;
  }
}

template <typename T>
__global__ void batchNormInputGrad(const T *dy, const T *x, const float *mean,
                                   const float *invStd, const float *weight,
                                   const float *sumDy, const float *sumDyXmu,
                                   T *dx, size_t n, size_t perChannel) {
  float m = static_cast<float>(perChannel);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    size_t c = i / perChannel;
    float is = invStd[c], xhat = (toFloat(x[i]) - mean[c]) * is;
    float g = toFloat(dy[i]) - sumDy[c] / m - xhat * is * sumDyXmu[c] / m;
    dx[i] = fromFloat<T>(g * is * weight[c]);
  }
}

namespace {
/// A batch norm's tensors (x, dy, and y or dx) and per-channel vectors: the
/// mean, 1/std, weight and bias, and the backward's two sums.
struct NormBuffers {
  DeviceBuffer x, dy, out, mean, invStd, weight, shift, sumDy, sumDyXmu;
  NormBuffers(size_t n, size_t c, size_t es)
      : x(n * es), dy(n * es), out(n * es), mean(c * 4), invStd(c * 4),
        weight(c * 4), shift(c * 4), sumDy(c * 4), sumDyXmu(c * 4) {}
  explicit operator bool() const {
    return x && dy && out && mean && invStd && weight && shift && sumDy &&
           sumDyXmu;
  }
};
} // namespace

template <typename T>
static void launchBatchNorm(bool forward, size_t n, size_t c, NormBuffers &b,
                            cudaStream_t s) {
  size_t per = n / c;
  if (forward) {
    // scale = weight * invStd and shift = bias - mean * scale, as the
    // inference kernel folds them; `weight` and `shift` hold those.
    batchNormForward<T>
        <<<gridFor(n), 256, 0, s>>>(b.x.as<T>(), b.weight.as<float>(),
                                    b.shift.as<float>(), b.out.as<T>(), n, per);
    return;
  }
  batchNormReduce<T><<<static_cast<unsigned>(c), 256, 0, s>>>(
      b.dy.as<T>(), b.x.as<T>(), b.mean.as<float>(), b.sumDy.as<float>(),
      b.sumDyXmu.as<float>(), per);
  batchNormInputGrad<T><<<gridFor(n), 256, 0, s>>>(
      b.dy.as<T>(), b.x.as<T>(), b.mean.as<float>(), b.invStd.as<float>(),
      b.weight.as<float>(), b.sumDy.as<float>(), b.sumDyXmu.as<float>(),
      b.out.as<T>(), n, per);
}

/// Fills a batch norm's tensors and vectors: random x and dy, 1/std in
/// [0.5, 1.5) so that the gradient stays finite.
static void fillNorm(NormBuffers &b, size_t n, size_t c, ElemType elem) {
  fillRandom(b.x.ptr, n, elem, 70);
  fillRandom(b.dy.ptr, n, elem, 71);
  fillRandom(b.mean.ptr, c, ElemType::F32, 72);
  fillRandom(b.weight.ptr, c, ElemType::F32, 73);
  fillRandom(b.shift.ptr, c, ElemType::F32, 74);
  std::vector<float> inv(c);
  for (size_t i = 0; i < c; ++i)
    inv[i] = 1.0f + 0.5f * hashUnit(i, 75);
  cudaMemcpy(b.invStd.ptr, inv.data(), c * 4, cudaMemcpyHostToDevice);
}

Measurement bench::benchBatchNorm(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  if (!floatType(k, elem))
    return skipped("batchnorm: dtype " + k.dtype + " not benchmarked");
  size_t n = k.num("n"), c = k.num("c");
  if (c > n || n % c != 0)
    return skipped("batchnorm: elements not a multiple of the channels");
  NormBuffers b(n, c, elemBytes(elem));
  if (!b)
    return skipped("batchnorm: out of device memory");
  fillNorm(b, n, c, elem);
  bool forward = k.text("pass") != "bwd";
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        dispatchType(elem, [&](auto tag) {
          launchBatchNorm<decltype(tag)>(forward, n, c, b, ctx.stream);
        });
        return lastError("batchnorm");
      },
      m);
  return m;
}

//===--- Optimizer step ---------------------------------------------------===//

template <typename T>
__global__ void sgdStep(T *p, const T *g, size_t n, float lr) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    p[i] = fromFloat<T>(toFloat(p[i]) - lr * toFloat(g[i]));
}

/// Adam's update at step 1 (bias corrections 1 - beta), in place.
template <typename T>
__global__ void adamStep(T *p, const T *g, T *m, T *v, size_t n, float lr) {
  const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    float gi = toFloat(g[i]);
    float mi = b1 * toFloat(m[i]) + (1 - b1) * gi;
    float vi = b2 * toFloat(v[i]) + (1 - b2) * gi * gi;
    m[i] = fromFloat<T>(mi);
    v[i] = fromFloat<T>(vi);
    float mHat = mi / (1 - b1), vHat = vi / (1 - b2);
    p[i] = fromFloat<T>(toFloat(p[i]) - lr * mHat / (sqrtf(vHat) + eps));
  }
}

namespace {
struct OptimizerBuffers {
  DeviceBuffer p, g, m, v;
  OptimizerBuffers(size_t n, size_t es, bool adam)
      : p(n * es), g(n * es), m(adam ? n * es : 1), v(adam ? n * es : 1) {}
  explicit operator bool() const { return p && g && m && v; }
};
} // namespace

constexpr float kLearningRate = 1e-3f;

template <typename T>
static void launchOptimizer(bool adam, size_t n, OptimizerBuffers &b,
                            cudaStream_t s) {
  if (adam)
    adamStep<T><<<gridFor(n), 256, 0, s>>>(
        b.p.as<T>(), b.g.as<T>(), b.m.as<T>(), b.v.as<T>(), n, kLearningRate);
  else
    sgdStep<T>
        <<<gridFor(n), 256, 0, s>>>(b.p.as<T>(), b.g.as<T>(), n, kLearningRate);
}

Measurement bench::benchOptimizer(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  if (!floatType(k, elem))
    return skipped("optimizer: dtype " + k.dtype + " not benchmarked");
  size_t n = k.num("n");
  bool adam = k.text("op") == "adam";
  OptimizerBuffers b(n, elemBytes(elem), adam);
  if (!b)
    return skipped("optimizer: out of device memory");
  fillRandom(b.p.ptr, n, elem, 80);
  fillRandom(b.g.ptr, n, elem, 81);
  if (adam) {
    fillRandom(b.m.ptr, n, elem, 82);
    // The second moment is a running mean of squares: not negative.
    cudaMemset(b.v.ptr, 0, n * elemBytes(elem));
  }
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        dispatchType(elem, [&](auto tag) {
          launchOptimizer<decltype(tag)>(adam, n, b, ctx.stream);
        });
        return lastError("optimizer");
      },
      m);
  return m;
}

//===--- Checks against host references -----------------------------------===//

bool bench::verifyPooling(const Kernel &k, double &maxError,
                          std::string &error) {
  PoolShape p = poolShape(k);
  PoolBuffers b(p, sizeof(float));
  if (!b) {
    error = "out of device memory";
    return false;
  }
  fillRandom(b.in.ptr, p.inputs(), ElemType::F32, 60);
  launchPool<float>(true, p, b, cudaContext().stream);
  std::vector<float> x(p.inputs()), y(p.outputs());
  if (!downloadFloats(x, b.in, error) || !downloadFloats(y, b.out, error))
    return false;
  // The forward's maxima, then the backward of gradients 1, 2, 3, ...: each
  // input gets the sum of the gradients of the outputs it is the maximum of.
  std::vector<float> want(p.inputs(), 0.f), grad(p.outputs());
  maxError = 0;
  int64_t oh = p.oh(), ow = p.ow();
  for (size_t o = 0; o < p.outputs(); ++o) {
    int64_t ox = o % ow, oy = (o / ow) % oh, plane = o / (ow * oh);
    float best = -INFINITY;
    int64_t where = -1;
    for (int64_t dy = 0; dy < p.r; ++dy)
      for (int64_t dx = 0; dx < p.s; ++dx) {
        int64_t yy = oy * p.sh - p.ph + dy, xx = ox * p.sw - p.pw + dx;
        if (yy < 0 || yy >= p.h || xx < 0 || xx >= p.w)
          continue;
        float v = x[plane * p.h * p.w + yy * p.w + xx];
        if (v > best || where < 0) {
          best = v;
          where = yy * p.w + xx;
        }
      }
    maxError = std::max<double>(maxError, std::abs(best - y[o]));
    grad[o] = float(o % 7 + 1);
    want[plane * p.h * p.w + where] += grad[o];
  }
  cudaMemcpy(b.out.ptr, grad.data(), grad.size() * 4, cudaMemcpyHostToDevice);
  launchPool<float>(false, p, b, cudaContext().stream);
  std::vector<float> got(p.inputs());
  if (!downloadFloats(got, b.in, error))
    return false;
  for (size_t i = 0; i < got.size(); ++i)
    maxError = std::max<double>(maxError, std::abs(want[i] - got[i]));
  return true;
}

bool bench::verifyBatchNorm(int64_t elements, int64_t channels,
                            double &maxError, std::string &error) {
  size_t n = elements, c = channels, per = n / c;
  NormBuffers b(n, c, sizeof(float));
  if (!b || n % c != 0) {
    error = "out of device memory or elements not a multiple of channels";
    return false;
  }
  fillNorm(b, n, c, ElemType::F32);
  std::vector<float> x(n), dy(n), mean(c), inv(c), w(c), shift(c), y(n), dx(n);
  launchBatchNorm<float>(true, n, c, b, cudaContext().stream);
  if (!downloadFloats(y, b.out, error))
    return false;
  launchBatchNorm<float>(false, n, c, b, cudaContext().stream);
  if (!downloadFloats(dx, b.out, error) || !downloadFloats(x, b.x, error) ||
      !downloadFloats(dy, b.dy, error) ||
      !downloadFloats(mean, b.mean, error) ||
      !downloadFloats(inv, b.invStd, error) ||
      !downloadFloats(w, b.weight, error) ||
      !downloadFloats(shift, b.shift, error))
    return false;
  maxError = 0;
  for (size_t ch = 0; ch < c; ++ch) {
    double sumDy = 0, sumDyXmu = 0;
    for (size_t i = ch * per; i < (ch + 1) * per; ++i) {
      maxError =
          std::max(maxError, std::abs(double(x[i]) * w[ch] + shift[ch] - y[i]));
      sumDy += dy[i];
      sumDyXmu += double(dy[i]) * (x[i] - mean[ch]);
    }
    for (size_t i = ch * per; i < (ch + 1) * per; ++i) {
      double xhat = (x[i] - mean[ch]) * inv[ch];
      double g = dy[i] - sumDy / per - xhat * inv[ch] * sumDyXmu / per;
      maxError = std::max(maxError, std::abs(g * inv[ch] * w[ch] - dx[i]));
    }
  }
  return true;
}

bool bench::verifyOptimizer(const std::string &op, int64_t elements,
                            double &maxError, std::string &error) {
  size_t n = elements;
  bool adam = op == "adam";
  OptimizerBuffers b(n, sizeof(float), adam);
  if (!b) {
    error = "out of device memory";
    return false;
  }
  fillRandom(b.p.ptr, n, ElemType::F32, 80);
  fillRandom(b.g.ptr, n, ElemType::F32, 81);
  std::vector<float> p(n), g(n), m(n, 0.f), v(n, 0.f);
  if (adam) {
    fillRandom(b.m.ptr, n, ElemType::F32, 82);
    cudaMemset(b.v.ptr, 0, n * 4);
    if (!downloadFloats(m, b.m, error))
      return false;
  }
  if (!downloadFloats(p, b.p, error) || !downloadFloats(g, b.g, error))
    return false;
  launchOptimizer<float>(adam, n, b, cudaContext().stream);
  std::vector<float> got(n);
  if (!downloadFloats(got, b.p, error))
    return false;
  maxError = 0;
  for (size_t i = 0; i < n; ++i) {
    double want = p[i] - double(kLearningRate) * g[i];
    if (adam) {
      double mi = 0.9 * m[i] + 0.1 * g[i], vi = 0.001 * double(g[i]) * g[i];
      want = p[i] - double(kLearningRate) * (mi / 0.1) /
                        (std::sqrt(vi / 0.001) + 1e-8);
    }
    // Relative to the value (at least 1): Adam divides by the root of a
    // square, so a tiny gradient makes a large step.
    maxError = std::max(maxError, std::abs(want - got[i]) /
                                      std::max(1.0, std::abs(want)));
  }
  return true;
}
