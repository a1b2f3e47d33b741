//===- Runner.cu - Device setup and dispatch of the benchmarks ------------===//

#include "Common.cuh"

#include <cstdio>
#include <dlfcn.h>

using namespace bench;

bool bench::builtWithCuda() { return true; }

bool bench::gpuAvailable(std::string &why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why = cudaErrorText("cudaGetDeviceCount", e);
    cudaGetLastError();
    return false;
  }
  if (count == 0) {
    why = "cudaGetDeviceCount found no device";
    return false;
  }
  return true;
}

/// Current SM and memory clocks from NVML, loaded at run time because NVML
/// comes with the driver, not the toolkit. Leaves the outputs alone when
/// NVML is missing.
static void currentClocks(const std::string &pciBusId, double &sm,
                          double &mem) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!lib)
    return;
  using InitFn = int (*)();
  using ByPciFn = int (*)(const char *, void **);
  using ClockFn = int (*)(void *, int, unsigned *);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto byPci =
      reinterpret_cast<ByPciFn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto clock = reinterpret_cast<ClockFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  void *device = nullptr;
  unsigned mhz = 0;
  if (init && byPci && clock && init() == 0 &&
      byPci(pciBusId.c_str(), &device) == 0) {
    if (clock(device, /*NVML_CLOCK_SM*/ 1, &mhz) == 0)
      sm = mhz;
    if (clock(device, /*NVML_CLOCK_MEM*/ 2, &mhz) == 0)
      mem = mhz;
  }
  // NVML stays loaded: unloading it while initialized is not allowed.
}

bool bench::gpuInit(const RunOptions &options, DeviceInfo &info,
                    std::string &error) {
  CudaContext &c = cudaContext();
  c.options = options;
  cudaError_t e = cudaSetDevice(options.device);
  if (e == cudaSuccess)
    e = cudaGetDeviceProperties(&c.props, options.device);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) {
    error = cudaErrorText("device setup", e);
    return false;
  }
  if (cublasLtCreate(&c.lt) != CUBLAS_STATUS_SUCCESS) {
    error = "cublasLtCreate failed";
    return false;
  }
  if (cudnnCreate(&c.dnn) != CUDNN_STATUS_SUCCESS ||
      cudnnSetStream(c.dnn, c.stream) != CUDNN_STATUS_SUCCESS) {
    error = "cudnnCreate failed";
    return false;
  }
  c.workspaceBytes = size_t(1) << 30;
  if (cudaMalloc(&c.workspace, c.workspaceBytes) != cudaSuccess) {
    cudaGetLastError();
    c.workspaceBytes = size_t(64) << 20;
    if (cudaMalloc(&c.workspace, c.workspaceBytes) != cudaSuccess) {
      error = "cannot allocate the library workspace";
      return false;
    }
  }
  c.cuptiReady = options.cupti && cuptiStart();

  c.info.name = c.props.name;
  c.info.ccMajor = c.props.major;
  c.info.ccMinor = c.props.minor;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, options.device) ==
      cudaSuccess)
    c.info.maxSmClockMHz = khz / 1000.0;
  int memKhz = 0;
  if (cudaDeviceGetAttribute(&memKhz, cudaDevAttrMemoryClockRate,
                             options.device) == cudaSuccess)
    c.info.memClockMHz = memKhz / 1000.0;
  c.info.smClockMHz = c.info.maxSmClockMHz;
  char busId[32] = {0};
  if (cudaDeviceGetPCIBusId(busId, sizeof(busId), options.device) ==
      cudaSuccess)
    currentClocks(busId, c.info.smClockMHz, c.info.memClockMHz);
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  char version[64];
  std::snprintf(version, sizeof(version), "cuda %d.%d cudnn %zu",
                runtime / 1000, (runtime % 1000) / 10, cudnnGetVersion());
  c.info.runtime = version;
  info = c.info;
  return true;
}

void bench::gpuShutdown() {
  CudaContext &c = cudaContext();
  cudaDeviceSynchronize();
  if (c.workspace)
    cudaFree(c.workspace);
  if (c.dnn)
    cudnnDestroy(c.dnn);
  if (c.lt)
    cublasLtDestroy(c.lt);
  if (c.stream)
    cudaStreamDestroy(c.stream);
  c = CudaContext();
}

Measurement bench::measureKernel(const Kernel &k, const RunOptions &options) {
  cudaContext().options = options;
  if (k.kind == "gemm")
    return benchGemm(k);
  if (k.kind == "conv2d")
    return benchConv(k, /*fusedBiasRelu=*/false);
  if (k.kind == "conv2d_bias_relu")
    return benchConv(k, /*fusedBiasRelu=*/true);
  if (k.kind == "embedding_bag")
    return benchEmbeddingBag(k);
  if (k.kind == "elementwise")
    return benchElementwise(k);
  if (k.kind == "reduce" || k.kind == "softmax" || k.kind == "layernorm")
    return benchRows(k);
  if (k.kind == "transpose")
    return benchTranspose(k);
  if (k.kind == "concat")
    return benchConcat(k);
  if (k.kind == "memcpy")
    return benchMemcpy(k);
  return skipped("no benchmark for kind '" + k.kind + "'");
}

bool bench::verifyKernel(const Kernel &k, double &maxError,
                         std::string &error) {
  if (k.kind == "embedding_bag" && k.text("pass") == "fwd")
    return verifyEmbeddingBagForward(k.num("t"), k.num("rows"), k.num("d"),
                                     k.num("b"), k.num("l"), maxError, error);
  if (k.kind == "reduce" || k.kind == "softmax" || k.kind == "layernorm")
    return verifyRows(k.kind, k.num("rows"), k.num("cols"), maxError, error);
  if (k.kind == "transpose")
    return verifyTranspose(k.num("n"), maxError, error);
  if (k.kind == "elementwise")
    return verifyElementwise(k.text("op"), k.num("n"), k.num("in"), maxError,
                             error);
  error = "no reference for " + k.kind;
  return false;
}
