//===- Memory.cu - Host-device and device-device copies -------------------===//
//
// cudaMemcpyAsync on one stream; host memory is pinned (pageable copies
// measure the staging path instead). Timed with CUDA events: CUPTI's kernel
// records do not cover copies.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"

using namespace bench;

namespace {
struct PinnedBuffer {
  void *ptr = nullptr;
  explicit PinnedBuffer(size_t n) {
    if (cudaMallocHost(&ptr, n ? n : 1) != cudaSuccess) {
      ptr = nullptr;
      cudaGetLastError();
    }
  }
  ~PinnedBuffer() {
    if (ptr)
      cudaFreeHost(ptr);
  }
};
} // namespace

Measurement bench::benchMemcpy(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  size_t bytes = k.num("bytes");
  std::string dir = k.text("dir");
  DeviceBuffer device(bytes), device2(dir == "d2d" ? bytes : 0);
  PinnedBuffer host(dir == "d2d" ? 0 : bytes);
  if (!device || !device2 || (dir != "d2d" && !host.ptr))
    return skipped("memcpy: out of memory");
  void *dst = device.ptr, *src = host.ptr;
  cudaMemcpyKind kind = cudaMemcpyHostToDevice;
  if (dir == "d2h") {
    dst = host.ptr;
    src = device.ptr;
    kind = cudaMemcpyDeviceToHost;
  } else if (dir == "d2d") {
    dst = device2.ptr;
    src = device.ptr;
    kind = cudaMemcpyDeviceToDevice;
  }
  Measurement m;
  timeRepetitions(
      [&]() -> std::string {
        cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, ctx.stream);
        return e == cudaSuccess ? "" : cudaErrorText("memcpy", e);
      },
      m, /*cupti=*/false);
  if (m.ok)
    m.algo = dir == "d2d" ? "cudaMemcpyAsync" : "cudaMemcpyAsync pinned";
  return m;
}
