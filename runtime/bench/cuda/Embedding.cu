//===- Embedding.cu - Pooled embedding lookups, forward and backward
//-------===//
//
// Modeled on FBGEMM's batched table-batched-embedding (TBE) kernels: all T
// tables in one launch, one warp per (table, bag), offsets in CSR form, sum
// pooling with float accumulation, output laid out B x (T * D). The backward
// pass is the fused SGD update with atomics (FBGEMM's non-exact optimizer
// path): each bag's output gradient is scattered into the rows it pooled.
// Indices are uniform over the table's rows.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Kernels.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace bench;

__global__ void makeIndices(int64_t *indices, int64_t *offsets, int64_t tables,
                            int64_t batch, int64_t pooling, int64_t rows) {
  int64_t total = tables * batch * pooling;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    uint64_t x = uint64_t(i) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    indices[i] = int64_t(x % uint64_t(rows));
    if (i % pooling == 0)
      offsets[i / pooling] = i;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0)
    offsets[tables * batch] = total;
}

template <typename T>
__global__ void embeddingBagForward(const T *__restrict__ weights,
                                    const int64_t *__restrict__ indices,
                                    const int64_t *__restrict__ offsets,
                                    float *__restrict__ out, int64_t tables,
                                    int64_t rows, int64_t dim, int64_t batch) {
  int64_t warp = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= tables * batch)
    return;
  int64_t t = warp / batch, b = warp % batch;
  const T *table = weights + t * rows * dim;
  int64_t begin = offsets[warp], end = offsets[warp + 1];
  for (int64_t d0 = 0; d0 < dim; d0 += 32 * 4) {
    float acc[4] = {0, 0, 0, 0};
    for (int64_t l = begin; l < end; ++l) {
      const T *row = table + indices[l] * dim;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        int64_t d = d0 + j * 32 + lane;
        if (d < dim)
          acc[j] += toFloat(row[d]);
      }
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int64_t d = d0 + j * 32 + lane;
      if (d < dim)
        out[b * tables * dim + t * dim + d] = acc[j];
    }
  }
}

__device__ __forceinline__ void addTo(float *p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void addTo(__half *p, float v) {
  atomicAdd(p, __float2half(v));
}
__device__ __forceinline__ void addTo(__nv_bfloat16 *p, float v) {
  atomicAdd(p, __float2bfloat16(v));
}

template <typename T>
__global__ void embeddingBagBackwardSgd(T *__restrict__ weights,
                                        const int64_t *__restrict__ indices,
                                        const int64_t *__restrict__ offsets,
                                        const float *__restrict__ gradOut,
                                        int64_t tables, int64_t rows,
                                        int64_t dim, int64_t batch, float lr) {
  int64_t warp = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= tables * batch)
    return;
  int64_t t = warp / batch, b = warp % batch;
  T *table = weights + t * rows * dim;
  const float *grad = gradOut + b * tables * dim + t * dim;
  for (int64_t l = offsets[warp]; l < offsets[warp + 1]; ++l) {
    T *row = table + indices[l] * dim;
    for (int64_t d = lane; d < dim; d += 32)
      addTo(row + d, -lr * grad[d]);
  }
}

Measurement bench::benchEmbeddingBag(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  ElemType elem;
  if (!storageType(k.dtype, elem) || elem == ElemType::F64 || k.dtype == "tf32")
    return skipped("embedding_bag: dtype " + k.dtype + " not benchmarked");
  int64_t tables = k.num("t"), rows = k.num("rows"), dim = k.num("d"),
          batch = k.num("b"), pooling = k.num("l");
  bool backward = k.text("pass") == "bwd";
  size_t weightCount = size_t(tables) * rows * dim;
  size_t indexCount = size_t(tables) * batch * pooling;
  DeviceBuffer weights(weightCount * elemBytes(elem)),
      indices(indexCount * sizeof(int64_t)),
      offsets((size_t(tables) * batch + 1) * sizeof(int64_t)),
      out(size_t(batch) * tables * dim * sizeof(float));
  if (!weights || !indices || !offsets || !out)
    return skipped("embedding_bag: out of device memory");
  fillRandom(weights.ptr, weightCount, elem, 7);
  fillRandom(out.ptr, size_t(batch) * tables * dim, ElemType::F32, 8);
  makeIndices<<<1024, 256, 0, ctx.stream>>>(indices.as<int64_t>(),
                                            offsets.as<int64_t>(), tables,
                                            batch, pooling, rows);
  int64_t warps = tables * batch;
  unsigned blocks = static_cast<unsigned>((warps * 32 + 255) / 256);
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        dispatchType(elem, [&](auto tag) {
          using T = decltype(tag);
          if (backward)
            embeddingBagBackwardSgd<T><<<blocks, 256, 0, ctx.stream>>>(
                weights.as<T>(), indices.as<int64_t>(), offsets.as<int64_t>(),
                out.as<float>(), tables, rows, dim, batch, 0.01f);
          else
            embeddingBagForward<T><<<blocks, 256, 0, ctx.stream>>>(
                weights.as<T>(), indices.as<int64_t>(), offsets.as<int64_t>(),
                out.as<float>(), tables, rows, dim, batch);
        });
        return lastError("embedding_bag");
      },
      m);
  if (m.ok)
    m.algo = backward ? "tbe-warp-per-bag sgd-atomic" : "tbe-warp-per-bag sum";
  return m;
}

bool bench::verifyEmbeddingBagForward(int64_t tables, int64_t rows, int64_t dim,
                                      int64_t batch, int64_t pooling,
                                      double &maxError, std::string &error) {
  CudaContext &ctx = cudaContext();
  size_t weightCount = size_t(tables) * rows * dim;
  size_t indexCount = size_t(tables) * batch * pooling;
  size_t outCount = size_t(batch) * tables * dim;
  DeviceBuffer weights(weightCount * 4), indices(indexCount * 8),
      offsets((size_t(tables) * batch + 1) * 8), out(outCount * 4);
  if (!weights || !indices || !offsets || !out) {
    error = "out of device memory";
    return false;
  }
  fillRandom(weights.ptr, weightCount, ElemType::F32, 9);
  makeIndices<<<64, 256, 0, ctx.stream>>>(indices.as<int64_t>(),
                                          offsets.as<int64_t>(), tables, batch,
                                          pooling, rows);
  unsigned blocks = static_cast<unsigned>((tables * batch * 32 + 255) / 256);
  embeddingBagForward<float><<<blocks, 256, 0, ctx.stream>>>(
      weights.as<float>(), indices.as<int64_t>(), offsets.as<int64_t>(),
      out.as<float>(), tables, rows, dim, batch);
  std::vector<float> w(weightCount), o(outCount);
  std::vector<int64_t> idx(indexCount), off(size_t(tables) * batch + 1);
  cudaStreamSynchronize(ctx.stream);
  cudaMemcpy(w.data(), weights.ptr, w.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(o.data(), out.ptr, o.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(idx.data(), indices.ptr, idx.size() * 8, cudaMemcpyDeviceToHost);
  cudaError_t e = cudaMemcpy(off.data(), offsets.ptr, off.size() * 8,
                             cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    error = cudaErrorText("embedding_bag check", e);
    return false;
  }
  maxError = 0;
  for (int64_t t = 0; t < tables; ++t)
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t d = 0; d < dim; ++d) {
        double sum = 0;
        int64_t bag = t * batch + b;
        for (int64_t l = off[bag]; l < off[bag + 1]; ++l)
          sum += w[(t * rows + idx[l]) * dim + d];
        double got = o[b * tables * dim + t * dim + d];
        maxError = std::max(maxError, std::abs(got - sum));
      }
  return true;
}
