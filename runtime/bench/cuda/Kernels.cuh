//===- Kernels.cuh - Type helpers shared by the hand-written kernels -*- CUDA
//-*-//

#ifndef PERF_BENCH_CUDA_KERNELS_CUH
#define PERF_BENCH_CUDA_KERNELS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "Common.cuh"

namespace bench {

__device__ __forceinline__ float toFloat(float x) { return x; }
__device__ __forceinline__ float toFloat(__half x) { return __half2float(x); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ __forceinline__ float toFloat(int64_t x) {
  return static_cast<float>(x);
}
__device__ __forceinline__ float toFloat(int32_t x) {
  return static_cast<float>(x);
}
__device__ __forceinline__ float toFloat(int8_t x) {
  return static_cast<float>(x);
}
template <typename T> __device__ __forceinline__ T fromFloat(float x);
template <> __device__ __forceinline__ float fromFloat<float>(float x) {
  return x;
}
template <> __device__ __forceinline__ __half fromFloat<__half>(float x) {
  return __float2half(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}

template <> __device__ __forceinline__ int64_t fromFloat<int64_t>(float x) {
  return static_cast<int64_t>(x);
}
template <> __device__ __forceinline__ int32_t fromFloat<int32_t>(float x) {
  return static_cast<int32_t>(x);
}
template <> __device__ __forceinline__ int8_t fromFloat<int8_t>(float x) {
  return static_cast<int8_t>(x);
}

/// Sum over the block; every thread gets the result. `scratch` holds 32
/// floats.
__device__ __forceinline__ float blockSum(float v, float *scratch) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  int warps = (blockDim.x + 31) >> 5;
  v = lane < warps ? scratch[lane] : 0.f;
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float blockMax(float v, float *scratch) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  int warps = (blockDim.x + 31) >> 5;
  v = lane < warps ? scratch[lane] : -INFINITY;
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/// Calls `f` with a value of the element type of `type` (the hand-written
/// kernels handle f32, f16 and bf16).
template <typename F> void dispatchType(ElemType type, F &&f) {
  switch (type) {
  case ElemType::F32:
    f(float{});
    break;
  case ElemType::F16:
    f(__half{});
    break;
  case ElemType::BF16:
    f(__nv_bfloat16{});
    break;
  default:
    break;
  }
}

/// dispatchType, and the integer types (the element-wise, reduce and
/// concat kernels run on those too).
template <typename F> void dispatchAnyType(ElemType type, F &&f) {
  switch (type) {
  case ElemType::I64:
    f(int64_t{});
    break;
  case ElemType::I32:
    f(int32_t{});
    break;
  case ElemType::I8:
    f(int8_t{});
    break;
  default:
    dispatchType(type, f);
    break;
  }
}

} // namespace bench

#endif // PERF_BENCH_CUDA_KERNELS_CUH
