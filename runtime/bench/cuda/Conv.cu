//===- Conv.cu - cuDNN convolutions, every applicable algorithm -----------===//
//
// For each pass, every algorithm cuDNN reports as supported for the shape and
// within the workspace is timed; the fastest one's times are recorded and its
// name goes to the `algo` column (frameworks with cudnn.benchmark pick the
// same way). NCHW layout, float accumulation; f32 uses FMA math only, tf32
// lets cuDNN use TF32 tensor cores, f16/bf16 use tensor cores.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"

#include "bench/Stats.h"

using namespace bench;

namespace {
struct ConvDescs {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
  ~ConvDescs() {
    if (act)
      cudnnDestroyActivationDescriptor(act);
    if (conv)
      cudnnDestroyConvolutionDescriptor(conv);
    if (w)
      cudnnDestroyFilterDescriptor(w);
    if (bias)
      cudnnDestroyTensorDescriptor(bias);
    if (y)
      cudnnDestroyTensorDescriptor(y);
    if (x)
      cudnnDestroyTensorDescriptor(x);
  }
};

const char *fwdName(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
    return "FWD_IMPLICIT_GEMM";
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
    return "FWD_IMPLICIT_PRECOMP_GEMM";
  case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
    return "FWD_GEMM";
  case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
    return "FWD_DIRECT";
  case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
    return "FWD_FFT";
  case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
    return "FWD_FFT_TILING";
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
    return "FWD_WINOGRAD";
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
    return "FWD_WINOGRAD_NONFUSED";
  default:
    return "FWD_?";
  }
}

const char *dgradName(cudnnConvolutionBwdDataAlgo_t a) {
  switch (a) {
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_0:
    return "BWD_DATA_ALGO_0";
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_1:
    return "BWD_DATA_ALGO_1";
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT:
    return "BWD_DATA_FFT";
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING:
    return "BWD_DATA_FFT_TILING";
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD:
    return "BWD_DATA_WINOGRAD";
  case CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED:
    return "BWD_DATA_WINOGRAD_NONFUSED";
  default:
    return "BWD_DATA_?";
  }
}

const char *wgradName(cudnnConvolutionBwdFilterAlgo_t a) {
  switch (a) {
  case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0:
    return "BWD_FILTER_ALGO_0";
  case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1:
    return "BWD_FILTER_ALGO_1";
  case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT:
    return "BWD_FILTER_FFT";
  case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3:
    return "BWD_FILTER_ALGO_3";
  case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED:
    return "BWD_FILTER_WINOGRAD_NONFUSED";
  case CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING:
    return "BWD_FILTER_FFT_TILING";
  default:
    return "BWD_FILTER_?";
  }
}

std::string dnnError(const char *what, cudnnStatus_t s) {
  return std::string("conv2d: ") + what + ": " + cudnnGetErrorString(s);
}
} // namespace

namespace {
/// One cuDNN algorithm of a pass: its name and its launch.
struct ConvCandidate {
  std::string name;
  std::function<std::string()> launch;
};

/// The algorithms of `perf` (cuDNN's report for a pass) that ran and fit the
/// workspace, each with its launch.
template <typename AlgoPerf, typename Name, typename LaunchOf>
void addCandidates(const AlgoPerf *perf, int returned, size_t workspaceBytes,
                   Name name, LaunchOf launchOf,
                   std::vector<ConvCandidate> &out) {
  for (int i = 0; i < returned; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS &&
        perf[i].memory <= workspaceBytes)
      out.push_back({name(perf[i].algo), launchOf(perf[i].algo)});
}
} // namespace

/// Times every candidate and keeps the fastest, its name in `algo`. While a
/// step is being built, the candidate handed to the step is the first
/// (cuDNN's heuristic choice), or with --run-graph-fastest-conv the fastest,
/// timed alone with the capture set aside.
static Measurement fastestOf(const std::vector<ConvCandidate> &candidates) {
  CudaContext &ctx = cudaContext();
  Measurement best;
  if (candidates.empty())
    return best;
  auto capture = ctx.capture;
  if (capture && !ctx.options.replayFastestConv) {
    timeRepetitions(candidates.front().launch, best);
    best.algo = "cudnn " + candidates.front().name;
    return best;
  }
  ctx.capture = nullptr;
  double bestMedian = 0;
  size_t bestIndex = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    Measurement m;
    timeRepetitions(candidates[i].launch, m);
    if (!m.ok)
      continue;
    double median = summarize(m.samplesUs).median;
    if (!best.ok || median < bestMedian) {
      bestMedian = median;
      bestIndex = i;
      best = std::move(m);
      best.algo = "cudnn " + candidates[i].name;
    }
  }
  ctx.capture = capture;
  if (capture && best.ok) {
    std::string algo = best.algo;
    best = Measurement();
    timeRepetitions(candidates[bestIndex].launch, best);
    best.algo = algo;
  }
  return best;
}

Measurement bench::benchConv(const Kernel &k, bool fusedBiasRelu) {
  CudaContext &ctx = cudaContext();
  cudnnDataType_t type;
  cudnnMathType_t math = CUDNN_TENSOR_OP_MATH;
  if (k.dtype == "f32") {
    type = CUDNN_DATA_FLOAT;
    math = CUDNN_FMA_MATH;
  } else if (k.dtype == "tf32") {
    type = CUDNN_DATA_FLOAT;
    math = CUDNN_DEFAULT_MATH;
  } else if (k.dtype == "f16") {
    type = CUDNN_DATA_HALF;
  } else if (k.dtype == "bf16") {
    type = CUDNN_DATA_BFLOAT16;
  } else {
    return skipped("conv2d: dtype " + k.dtype + " not benchmarked");
  }
  ElemType elem;
  storageType(k.dtype, elem);
  int n = k.num("n"), c = k.num("c"), h = k.num("h"), w = k.num("w"),
      kOut = k.num("k"), r = k.num("r"), s = k.num("s"), g = k.num("g");
  if (c % g != 0 || kOut % g != 0)
    return skipped("conv2d: channels not divisible by groups");
  ConvDescs d;
  cudnnStatus_t st;
  cudnnCreateTensorDescriptor(&d.x);
  cudnnCreateTensorDescriptor(&d.y);
  cudnnCreateFilterDescriptor(&d.w);
  cudnnCreateConvolutionDescriptor(&d.conv);
  if ((st = cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, type, n, c, h,
                                       w)) != CUDNN_STATUS_SUCCESS)
    return skipped(dnnError("input descriptor", st));
  if ((st = cudnnSetFilter4dDescriptor(d.w, type, CUDNN_TENSOR_NCHW, kOut,
                                       c / g, r, s)) != CUDNN_STATUS_SUCCESS)
    return skipped(dnnError("filter descriptor", st));
  if ((st = cudnnSetConvolution2dDescriptor(
           d.conv, k.num("ph"), k.num("pw"), k.num("sh"), k.num("sw"),
           k.num("dh"), k.num("dw"), CUDNN_CROSS_CORRELATION,
           CUDNN_DATA_FLOAT)) != CUDNN_STATUS_SUCCESS)
    return skipped(dnnError("convolution descriptor", st));
  cudnnSetConvolutionGroupCount(d.conv, g);
  cudnnSetConvolutionMathType(d.conv, math);
  int on, oc, oh, ow;
  if ((st = cudnnGetConvolution2dForwardOutputDim(
           d.conv, d.x, d.w, &on, &oc, &oh, &ow)) != CUDNN_STATUS_SUCCESS ||
      oh <= 0 || ow <= 0)
    return skipped("conv2d: empty output for this shape");
  cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, type, on, oc, oh, ow);

  size_t es = elemBytes(elem);
  size_t xCount = size_t(n) * c * h * w,
         wCount = size_t(kOut) * (c / g) * r * s,
         yCount = size_t(on) * oc * oh * ow;
  DeviceBuffer x(xCount * es), wt(wCount * es), y(yCount * es),
      bias(size_t(oc) * es);
  if (!x || !wt || !y || !bias)
    return skipped("conv2d: out of device memory");
  fillRandom(x.ptr, xCount, elem, 3);
  fillRandom(wt.ptr, wCount, elem, 4);
  fillRandom(y.ptr, yCount, elem, 5);
  fillRandom(bias.ptr, oc, elem, 6);

  float one = 1, zero = 0;
  std::string pass = k.text("pass");
  constexpr int kMaxAlgos = 16;
  int returned = 0;
  // Every algorithm cuDNN reports for the pass that fits the workspace.
  std::vector<ConvCandidate> candidates;

  if (pass == "fwd") {
    cudnnConvolutionFwdAlgoPerf_t perf[kMaxAlgos];
    if ((st = cudnnGetConvolutionForwardAlgorithm_v7(
             ctx.dnn, d.x, d.w, d.conv, d.y, kMaxAlgos, &returned, perf)) !=
        CUDNN_STATUS_SUCCESS)
      return skipped(dnnError("forward algorithms", st));
    if (fusedBiasRelu) {
      cudnnCreateTensorDescriptor(&d.bias);
      cudnnSetTensor4dDescriptor(d.bias, CUDNN_TENSOR_NCHW, type, 1, oc, 1, 1);
      cudnnCreateActivationDescriptor(&d.act);
      cudnnSetActivationDescriptor(d.act, CUDNN_ACTIVATION_RELU,
                                   CUDNN_NOT_PROPAGATE_NAN, 0.0);
    }
    addCandidates(
        perf, returned, ctx.workspaceBytes, fwdName,
        [&](cudnnConvolutionFwdAlgo_t algo) -> std::function<std::string()> {
          return [&, algo]() -> std::string {
            cudnnStatus_t e =
                fusedBiasRelu
                    ? cudnnConvolutionBiasActivationForward(
                          ctx.dnn, &one, d.x, x.ptr, d.w, wt.ptr, d.conv, algo,
                          ctx.workspace, ctx.workspaceBytes, &zero, d.y, y.ptr,
                          d.bias, bias.ptr, d.act, d.y, y.ptr)
                    : cudnnConvolutionForward(
                          ctx.dnn, &one, d.x, x.ptr, d.w, wt.ptr, d.conv, algo,
                          ctx.workspace, ctx.workspaceBytes, &zero, d.y, y.ptr);
            return e == CUDNN_STATUS_SUCCESS ? "" : dnnError("forward", e);
          };
        },
        candidates);
  } else if (pass == "dgrad" && !fusedBiasRelu) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kMaxAlgos];
    if ((st = cudnnGetConvolutionBackwardDataAlgorithm_v7(
             ctx.dnn, d.w, d.y, d.conv, d.x, kMaxAlgos, &returned, perf)) !=
        CUDNN_STATUS_SUCCESS)
      return skipped(dnnError("backward-data algorithms", st));
    addCandidates(
        perf, returned, ctx.workspaceBytes, dgradName,
        [&](cudnnConvolutionBwdDataAlgo_t algo)
            -> std::function<std::string()> {
          return [&, algo]() -> std::string {
            cudnnStatus_t e = cudnnConvolutionBackwardData(
                ctx.dnn, &one, d.w, wt.ptr, d.y, y.ptr, d.conv, algo,
                ctx.workspace, ctx.workspaceBytes, &zero, d.x, x.ptr);
            return e == CUDNN_STATUS_SUCCESS ? "" : dnnError("dgrad", e);
          };
        },
        candidates);
  } else if (pass == "wgrad" && !fusedBiasRelu) {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[kMaxAlgos];
    if ((st = cudnnGetConvolutionBackwardFilterAlgorithm_v7(
             ctx.dnn, d.x, d.y, d.conv, d.w, kMaxAlgos, &returned, perf)) !=
        CUDNN_STATUS_SUCCESS)
      return skipped(dnnError("backward-filter algorithms", st));
    addCandidates(
        perf, returned, ctx.workspaceBytes, wgradName,
        [&](cudnnConvolutionBwdFilterAlgo_t algo)
            -> std::function<std::string()> {
          return [&, algo]() -> std::string {
            cudnnStatus_t e = cudnnConvolutionBackwardFilter(
                ctx.dnn, &one, d.x, x.ptr, d.y, y.ptr, d.conv, algo,
                ctx.workspace, ctx.workspaceBytes, &zero, d.w, wt.ptr);
            return e == CUDNN_STATUS_SUCCESS ? "" : dnnError("wgrad", e);
          };
        },
        candidates);
  } else {
    return skipped("conv2d: pass '" + pass + "' not benchmarked");
  }
  Measurement best = fastestOf(candidates);
  if (!best.ok)
    return skipped("conv2d: no cuDNN algorithm ran for this shape/dtype (" +
                   std::to_string(returned) + " reported)");
  return best;
}
