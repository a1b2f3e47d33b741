//===- Probe.cu - Achievable throughput of the device ---------------------===//
//
// What a roofline needs, measured rather than read off a datasheet:
//  - CUDA-core FP32 and FP16 FLOP/s: FMA loops with independent chains,
//  - tensor-core TF32/FP16/BF16 FLOP/s: a cuBLASLt 8192^3 GEMM,
//  - HBM bandwidth: a copy kernel over 2 x 1 GiB (read + write bytes),
//  - L2 bandwidth: repeated reads of a buffer a quarter of the L2's size,
//  - PCIe: a 256 MiB pinned host-to-device copy,
//  - host overheads: the cudaLaunchKernel and cudaMemcpyAsync call times.
// Clocks are left as found (no locking), as in the benchmarks.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"

#include "bench/Stats.h"

#include <chrono>
#include <cstdio>
#include <vector>

using namespace bench;

static constexpr int kFmaIters = 4096;

__global__ void fmaFp32(float *out, float seed) {
  float a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j)
    a[j] = seed + threadIdx.x + j;
  const float b = 0.999f, c = 0.001f;
  for (int i = 0; i < kFmaIters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      a[j] = fmaf(a[j], b, c);
  float s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    s += a[j];
  if (s == 12345.f) // never true; keeps the loop
    out[0] = s;
}

__global__ void fmaFp16(__half *out, float seed) {
  __half2 a[8];
#pragma unroll
  for (int j = 0; j < 8; ++j)
    a[j] = __float2half2_rn(seed + j);
  const __half2 b = __float2half2_rn(0.999f), c = __float2half2_rn(0.001f);
  for (int i = 0; i < kFmaIters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      a[j] = __hfma2(a[j], b, c);
  __half2 s = a[0];
#pragma unroll
  for (int j = 1; j < 8; ++j)
    s = __hadd2(s, a[j]);
  if (__low2float(s) == 12345.f)
    out[0] = __low2half(s);
}

__global__ void copyKernel(const float4 *in, float4 *out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

__global__ void readKernel(const float4 *in, size_t n, int passes, float *out) {
  float4 acc = make_float4(0, 0, 0, 0);
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
      float4 v = __ldcg(in + i);
      acc.x += v.x;
      acc.y += v.y;
      acc.z += v.z;
      acc.w += v.w;
    }
  if (acc.x + acc.y + acc.z + acc.w == 12345.f)
    out[0] = acc.x;
}

__global__ void emptyKernel() {}

/// Median microseconds of `launch` timed with CUDA events.
static bool medianUs(const std::function<std::string()> &launch, double &median,
                     std::string &error, bool cupti = false) {
  Measurement m;
  timeRepetitions(launch, m, cupti);
  if (!m.ok) {
    error = m.skipReason;
    return false;
  }
  median = summarize(m.samplesUs).median;
  return median > 0;
}

bool bench::runProbe(const RunOptions &options, ProbeResult &out,
                     std::string &error) {
  CudaContext &ctx = cudaContext();
  ctx.options = options;
  const cudaDeviceProp &p = ctx.props;
  out.sms = p.multiProcessorCount;
  out.coresPerSM = fp32LanesPerSM(p.major, p.minor);
  if (*out.coresPerSM == 0)
    out.coresPerSM.reset();
  out.clockMHz = ctx.info.maxSmClockMHz;
  out.memGiB = p.totalGlobalMem / (1024.0 * 1024 * 1024);
  out.l2MiB = p.l2CacheSize / (1024.0 * 1024);
  out.smemPerSMKiB = p.sharedMemPerMultiprocessor / 1024.0;

  // CUDA-core FMA throughput.
  DeviceBuffer sink(64);
  unsigned blocks = p.multiProcessorCount * 8, threads = 256;
  double us = 0;
  if (medianUs(
          [&]() {
            fmaFp32<<<blocks, threads, 0, ctx.stream>>>(sink.as<float>(), 1.f);
            return lastError("fp32 probe");
          },
          us, error))
    out.fp32Tflops = 2.0 * 8 * kFmaIters * blocks * threads / (us * 1e6);
  if (medianUs(
          [&]() {
            fmaFp16<<<blocks, threads, 0, ctx.stream>>>(sink.as<__half>(), 1.f);
            return lastError("fp16 probe");
          },
          us, error))
    out.fp16Tflops = 2.0 * 2 * 8 * kFmaIters * blocks * threads / (us * 1e6);

  // Tensor cores through cuBLASLt.
  auto gemmTflops = [&](const char *dtype, std::optional<double> &field) {
    Kernel k;
    std::string e;
    AttrMap attrs = {{"m", AttrValue::ofInt(8192)},
                     {"n", AttrValue::ofInt(8192)},
                     {"k", AttrValue::ofInt(8192)}};
    if (!buildKernel("gemm", dtype, attrs, true, k, e))
      return;
    Measurement m = benchGemm(k);
    if (m.ok)
      field = 2.0 * 8192.0 * 8192.0 * 8192.0 /
              (summarize(m.samplesUs).median * 1e6);
  };
  if (p.major >= 8)
    gemmTflops("tf32", out.tcTf32Tflops);
  gemmTflops("f16", out.tcFp16Tflops);
  if (p.major >= 8)
    gemmTflops("bf16", out.tcBf16Tflops);

  // HBM: copy 1 GiB.
  size_t bytes = size_t(1) << 30;
  {
    DeviceBuffer a(bytes), b(bytes);
    if (a && b) {
      fillRandom(a.ptr, bytes / 4, ElemType::F32, 60);
      size_t n4 = bytes / 16;
      if (medianUs(
              [&]() {
                copyKernel<<<p.multiProcessorCount * 16, 512, 0, ctx.stream>>>(
                    a.as<float4>(), b.as<float4>(), n4);
                return lastError("copy probe");
              },
              us, error))
        out.memBwGBs = 2.0 * bytes / (us * 1e3);
    }
  }
  // L2: a quarter of the L2, read 50 times per launch.
  if (p.l2CacheSize > 0) {
    size_t l2Bytes = size_t(p.l2CacheSize) / 4 / 16 * 16;
    DeviceBuffer a(l2Bytes);
    int passes = 50;
    if (a) {
      fillRandom(a.ptr, l2Bytes / 4, ElemType::F32, 61);
      if (medianUs(
              [&]() {
                readKernel<<<p.multiProcessorCount * 8, 512, 0, ctx.stream>>>(
                    a.as<float4>(), l2Bytes / 16, passes, sink.as<float>());
                return lastError("l2 probe");
              },
              us, error))
        out.l2BwGBs = double(l2Bytes) * passes / (us * 1e3);
    }
  }
  // PCIe host to device.
  {
    Kernel k;
    std::string e;
    if (buildKernel("memcpy", "f32",
                    {{"bytes", AttrValue::ofInt(256 << 20)},
                     {"dir", AttrValue::ofString("h2d")}},
                    true, k, e)) {
      Measurement m = benchMemcpy(k);
      if (m.ok)
        out.pcieGBs = double(256 << 20) / (summarize(m.samplesUs).median * 1e3);
    }
  }
  // Host overheads: the time the runtime calls take on the host.
  {
    const int calls = 2000;
    std::vector<double> launch, copy;
    for (int i = 0; i < calls; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      emptyKernel<<<1, 1, 0, ctx.stream>>>();
      auto t1 = std::chrono::steady_clock::now();
      launch.push_back(
          std::chrono::duration<double, std::micro>(t1 - t0).count());
      if (i % 256 == 255)
        cudaStreamSynchronize(ctx.stream);
    }
    cudaStreamSynchronize(ctx.stream);
    DeviceBuffer a(4096), b(4096);
    for (int i = 0; i < calls && a && b; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      cudaMemcpyAsync(b.ptr, a.ptr, 4096, cudaMemcpyDeviceToDevice, ctx.stream);
      auto t1 = std::chrono::steady_clock::now();
      copy.push_back(
          std::chrono::duration<double, std::micro>(t1 - t0).count());
      if (i % 256 == 255)
        cudaStreamSynchronize(ctx.stream);
    }
    cudaStreamSynchronize(ctx.stream);
    if (!launch.empty())
      out.launchUs = summarize(launch).median;
    if (!copy.empty())
      out.memcpyAsyncCallUs = summarize(copy).median;
  }
  char source[256];
  std::snprintf(source, sizeof(source),
                "perf-bench --probe on %s (%s), achieved figures, clocks as "
                "found: sm %.0f MHz, memory %.0f MHz",
                ctx.info.name.c_str(), ctx.info.runtime.c_str(),
                ctx.info.smClockMHz, ctx.info.memClockMHz);
  out.source = source;
  if (!out.fp32Tflops || !out.memBwGBs) {
    error = "the FP32 or memory-bandwidth probe failed: " + error;
    return false;
  }
  return true;
}
