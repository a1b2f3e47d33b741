//===- Gemm.cu - GEMM and batched GEMM through cuBLASLt -------------------===//
//
// Column-major C(m x n) = op(A) op(B), batch strided; the algorithm is the
// cuBLASLt heuristic's first choice for a 1 GiB workspace, as frameworks get.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"

using namespace bench;

namespace {
/// cuBLASLt descriptors destroyed on scope exit.
struct LtDescs {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~LtDescs() {
    if (pref)
      cublasLtMatmulPreferenceDestroy(pref);
    if (c)
      cublasLtMatrixLayoutDestroy(c);
    if (b)
      cublasLtMatrixLayoutDestroy(b);
    if (a)
      cublasLtMatrixLayoutDestroy(a);
    if (op)
      cublasLtMatmulDescDestroy(op);
  }
};
} // namespace

static bool layout(cublasLtMatrixLayout_t &out, cudaDataType_t type,
                   uint64_t rows, uint64_t cols, int64_t ld, int32_t batch) {
  if (cublasLtMatrixLayoutCreate(&out, type, rows, cols, ld) !=
      CUBLAS_STATUS_SUCCESS)
    return false;
  if (batch > 1) {
    int64_t stride = static_cast<int64_t>(rows) * cols;
    cublasLtMatrixLayoutSetAttribute(out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                     &batch, sizeof(batch));
    cublasLtMatrixLayoutSetAttribute(
        out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
        sizeof(stride));
  }
  return true;
}

Measurement bench::benchGemm(const Kernel &k) {
  CudaContext &ctx = cudaContext();
  int64_t batch = k.num("b"), m = k.num("m"), n = k.num("n"), kk = k.num("k");
  bool ta = k.num("ta") != 0, tb = k.num("tb") != 0;
  cudaDataType_t type, scaleType = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  ElemType elem;
  if (k.dtype == "f32") {
    type = CUDA_R_32F;
  } else if (k.dtype == "tf32") {
    type = CUDA_R_32F;
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  } else if (k.dtype == "f16") {
    type = CUDA_R_16F;
  } else if (k.dtype == "bf16") {
    type = CUDA_R_16BF;
  } else if (k.dtype == "f64") {
    type = CUDA_R_64F;
    scaleType = CUDA_R_64F;
    compute = CUBLAS_COMPUTE_64F;
  } else {
    return skipped("gemm: dtype " + k.dtype + " not benchmarked");
  }
  storageType(k.dtype, elem);
  size_t es = elemBytes(elem);
  size_t aCount = size_t(batch) * m * kk, bCount = size_t(batch) * kk * n,
         cCount = size_t(batch) * m * n;
  DeviceBuffer a(aCount * es), b(bCount * es), c(cCount * es);
  if (!a || !b || !c)
    return skipped("gemm: out of device memory");
  fillRandom(a.ptr, aCount, elem, 1);
  fillRandom(b.ptr, bCount, elem, 2);

  LtDescs d;
  cublasOperation_t opA = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (cublasLtMatmulDescCreate(&d.op, compute, scaleType) !=
      CUBLAS_STATUS_SUCCESS)
    return skipped("gemm: cublasLtMatmulDescCreate failed");
  cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &opA,
                                 sizeof(opA));
  cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &opB,
                                 sizeof(opB));
  int32_t bc = static_cast<int32_t>(batch);
  if (!layout(d.a, type, ta ? kk : m, ta ? m : kk, ta ? kk : m, bc) ||
      !layout(d.b, type, tb ? n : kk, tb ? kk : n, tb ? n : kk, bc) ||
      !layout(d.c, type, m, n, m, bc))
    return skipped("gemm: cublasLtMatrixLayoutCreate failed");
  cublasLtMatmulPreferenceCreate(&d.pref);
  uint64_t ws = ctx.workspaceBytes;
  cublasLtMatmulPreferenceSetAttribute(
      d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  if (cublasLtMatmulAlgoGetHeuristic(ctx.lt, d.op, d.a, d.b, d.c, d.c, d.pref,
                                     1, &heuristic,
                                     &found) != CUBLAS_STATUS_SUCCESS ||
      found == 0)
    return skipped("gemm: cuBLASLt has no algorithm for this shape/dtype");

  float alpha32 = 1, beta32 = 0;
  double alpha64 = 1, beta64 = 0;
  const void *alpha =
      scaleType == CUDA_R_64F ? static_cast<const void *>(&alpha64) : &alpha32;
  const void *beta =
      scaleType == CUDA_R_64F ? static_cast<const void *>(&beta64) : &beta32;
  Measurement m_;
  timeRepetitions(
      [&]() -> std::string {
        cublasStatus_t s =
            cublasLtMatmul(ctx.lt, d.op, alpha, a.ptr, d.a, b.ptr, d.b, beta,
                           c.ptr, d.c, c.ptr, d.c, &heuristic.algo,
                           ctx.workspace, ctx.workspaceBytes, ctx.stream);
        return s == CUBLAS_STATUS_SUCCESS
                   ? ""
                   : "gemm: cublasLtMatmul: " +
                         std::string(cublasGetStatusString(s));
      },
      m_);
  if (m_.ok) {
    int id = -1, tile = -1;
    cublasLtMatmulAlgoConfigGetAttribute(
        &heuristic.algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), nullptr);
    cublasLtMatmulAlgoConfigGetAttribute(&heuristic.algo,
                                         CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                         sizeof(tile), nullptr);
    m_.algo = "cublasLt heuristic#0 algo=" + std::to_string(id) +
              " tile=" + std::to_string(tile);
  }
  return m_;
}
