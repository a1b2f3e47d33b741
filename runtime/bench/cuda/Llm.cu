//===- Llm.cu - The kernels an LLM layer adds around attention ------------===//
//
// Written as vLLM writes them, so that their times stand for a serving
// engine's: the rotary embedding rotates the query and key heads of each
// token in place from a cos/sin cache row chosen by the token's position (a
// block per token, NeoX style: the first and second halves of the rotated
// part are the pairs), and the KV-cache write copies each token's keys and
// values into the slot its slot mapping names, pages of `bs` tokens when
// paged (a block per token).
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Kernels.cuh"

#include <vector>

using namespace bench;

namespace {

template <typename T>
__global__ void rotaryKernel(const int64_t *positions, T *query, T *key,
                             const T *cosSin, int heads, int kvHeads,
                             int headDim, int rotaryDim) {
  int token = blockIdx.x;
  const T *cache = cosSin + positions[token] * rotaryDim;
  int half = rotaryDim / 2;
  int pairs = (heads + kvHeads) * half;
  for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
    int head = i / half, j = i % half;
    T *x = head < heads
               ? query + (size_t(token) * heads + head) * headDim
               : key + (size_t(token) * kvHeads + head - heads) * headDim;
    float c = toFloat(cache[j]), s = toFloat(cache[half + j]);
    float a = toFloat(x[j]), b = toFloat(x[half + j]);
    x[j] = fromFloat<T>(a * c - b * s);
    x[half + j] = fromFloat<T>(b * c + a * s);
  }
}

template <typename T>
__global__ void cacheWriteKernel(const T *key, const T *value,
                                 const int64_t *slots, T *keyCache,
                                 T *valueCache, int kvHeads, int headDim,
                                 int blockSize) {
  int token = blockIdx.x;
  int64_t slot = slots[token];
  int64_t page = slot / blockSize, offset = slot % blockSize;
  int width = kvHeads * headDim;
  for (int i = threadIdx.x; i < width; i += blockDim.x) {
    int head = i / headDim, d = i % headDim;
    // vLLM's layout: [pages, kv heads, block size, head dim].
    size_t to = ((page * kvHeads + head) * blockSize + offset) * headDim + d;
    size_t from = size_t(token) * width + i;
    keyCache[to] = key[from];
    valueCache[to] = value[from];
  }
}

/// Slots for `tokens` tokens scattered over a cache of `slots` slots, as
/// a serving engine's block tables leave them.
std::vector<int64_t> scatteredSlots(int64_t tokens, int64_t slots) {
  std::vector<int64_t> out(tokens);
  for (int64_t t = 0; t < tokens; ++t)
    out[t] = (t * 7919) % slots;
  return out;
}

bool upload(DeviceBuffer &to, const std::vector<int64_t> &from) {
  return cudaMemcpy(to.ptr, from.data(), from.size() * sizeof(int64_t),
                    cudaMemcpyHostToDevice) == cudaSuccess;
}
} // namespace

Measurement bench::benchRope(const Kernel &k) {
  ElemType elem;
  if (!storageType(k.dtype, elem) || isInteger(elem) || elem == ElemType::F64)
    return skipped("rope: dtype " + k.dtype);
  int64_t tokens = k.num("t"), heads = k.num("h"), headDim = k.num("d");
  int64_t kvHeads = k.num("hkv") > 0 ? k.num("hkv") : heads;
  int64_t rotary = k.num("r") > 0 ? k.num("r") : headDim;
  if (rotary % 2 != 0)
    return skipped("rope: an odd rotary size");
  size_t e = elemBytes(elem);
  // A cache of 8192 positions, as a model's max_position_embeddings.
  int64_t positions = 8192;
  DeviceBuffer query(tokens * heads * headDim * e),
      key(tokens * kvHeads * headDim * e), cosSin(positions * rotary * e),
      pos(tokens * sizeof(int64_t));
  if (!query || !key || !cosSin || !pos)
    return skipped("rope: out of memory");
  fillRandom(query.ptr, tokens * heads * headDim, elem, 1);
  fillRandom(key.ptr, tokens * kvHeads * headDim, elem, 2);
  fillRandom(cosSin.ptr, positions * rotary, elem, 3);
  if (!upload(pos, scatteredSlots(tokens, positions)))
    return skipped("rope: cannot upload positions");
  Measurement m;
  CudaContext &ctx = cudaContext();
  int threads = std::min<int64_t>(512, (heads + kvHeads) * rotary / 2);
  dispatchType(elem, [&](auto zero) {
    using T = decltype(zero);
    timeRepetitions(
        [&]() -> std::string {
          rotaryKernel<T><<<tokens, threads, 0, ctx.stream>>>(
              pos.as<int64_t>(), query.as<T>(), key.as<T>(), cosSin.as<T>(),
              heads, kvHeads, headDim, rotary);
          return lastError("rope");
        },
        m);
  });
  if (m.ok)
    m.algo = "rotary_embedding (neox)";
  return m;
}

Measurement bench::benchKvCacheWrite(const Kernel &k) {
  ElemType elem;
  if (!storageType(k.dtype, elem) || isInteger(elem) || elem == ElemType::F64)
    return skipped("kv_cache_write: dtype " + k.dtype);
  int64_t tokens = k.num("t"), kvHeads = k.num("hkv"), headDim = k.num("d");
  int64_t blockSize = k.num("bs") > 0 ? k.num("bs") : tokens;
  // A cache four times the step's tokens, whole pages.
  int64_t pages = (4 * tokens + blockSize - 1) / blockSize;
  size_t e = elemBytes(elem), row = kvHeads * headDim * e;
  DeviceBuffer key(tokens * row), value(tokens * row),
      keyCache(pages * blockSize * row), valueCache(pages * blockSize * row),
      slots(tokens * sizeof(int64_t));
  if (!key || !value || !keyCache || !valueCache || !slots)
    return skipped("kv_cache_write: out of memory");
  fillRandom(key.ptr, tokens * kvHeads * headDim, elem, 1);
  fillRandom(value.ptr, tokens * kvHeads * headDim, elem, 2);
  if (!upload(slots, scatteredSlots(tokens, pages * blockSize)))
    return skipped("kv_cache_write: cannot upload the slot mapping");
  Measurement m;
  CudaContext &ctx = cudaContext();
  int threads = std::min<int64_t>(512, kvHeads * headDim);
  dispatchType(elem, [&](auto zero) {
    using T = decltype(zero);
    timeRepetitions(
        [&]() -> std::string {
          cacheWriteKernel<T><<<tokens, threads, 0, ctx.stream>>>(
              key.as<T>(), value.as<T>(), slots.as<int64_t>(),
              keyCache.as<T>(), valueCache.as<T>(), kvHeads, headDim,
              blockSize);
          return lastError("kv_cache_write");
        },
        m);
  });
  if (m.ok)
    m.algo = "reshape_and_cache";
  return m;
}
