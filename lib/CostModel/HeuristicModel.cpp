//===- HeuristicModel.cpp - DLRM-paper analytic kernel models -------------===//
//
// Formulas from Lin et al. (seed 000), Sec. III-B1 "Characterizing the
// Embedding Lookup Kernels" and "Characterizing Element-wise Kernels".
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/HeuristicModel.h"
#include "perf/CostModel/RooflineModel.h"
#include <algorithm>
#include <cmath>

using namespace perf;

/// ceil(bytes / 32) * 32: DRAM is read in 32-byte sectors.
static double sectors(double bytes) { return std::ceil(bytes / 32.0) * 32.0; }

double perf::embeddingHitRate(double cachedRows, double tableRows,
                              int64_t pooling) {
  if (tableRows <= 0 || pooling <= 0)
    return 1.0;
  if (cachedRows >= tableRows)
    return 1.0;
  // p = C(cached, L) / C(E, L) = prod_{i<L} (cached - i) / (E - i).
  double p = 1.0;
  for (int64_t i = 0; i < pooling; ++i) {
    double num = cachedRows - static_cast<double>(i);
    double den = tableRows - static_cast<double>(i);
    if (num <= 0 || den <= 0)
      return 0.0;
    p *= num / den;
    if (p < 1e-12)
      return 0.0;
  }
  return p;
}

EmbeddingTraffic perf::embeddingTraffic(const KernelDesc &k, const GpuSpec &gpu,
                                        unsigned rowsPerBlock) {
  EmbeddingTraffic t;
  double e = dtypeBytes(k.dtype);
  double batch = std::max<int64_t>(k.batch, 1);
  double tables = std::max<int64_t>(k.numTables, 1);
  double dim = std::max<int64_t>(k.dim, 1);
  double lookups = std::max<int64_t>(k.pooling, 1);
  double rows = std::max<int64_t>(k.tableRows, 1);
  t.warps = batch * tables;

  // num_tables = rows_per_block * #SM / B: one CTA per SM, each CTA covering
  // rows_per_block bags of one table; at least one table is resident.
  t.tablesInL2 = std::max(1.0, rowsPerBlock * double(gpu.numSMs) / batch);
  t.tablesInL2 = std::min(t.tablesInL2, tables);
  // avg_cached_rows_per_table = min(L2 / (num_tables * D), E), with D in bytes.
  t.cachedRowsPerTable = std::min(gpu.l2Bytes / (t.tablesInL2 * dim * e), rows);
  t.hitRate = embeddingHitRate(t.cachedRowsPerTable, rows, k.pooling);

  // Per-warp traffic. The paper prints tr_weights = ceil(4D/32)*32 for the
  // forward kernel; a warp gathers L rows, so L of them are counted here
  // (the backward formula, ceil(2*4*L*D/32)*32, carries the L explicitly).
  double tableOffsets = 32, offsets = 64;
  double indices = sectors(4.0 * lookups);
  double outputs = sectors(e * dim);
  bool backward = k.pass != KernelPass::Forward;
  double weights =
      backward ? sectors(2.0 * e * lookups * dim) : lookups * sectors(e * dim);
  double p = t.hitRate;
  // Offsets are small and hot: assumed always in L2.
  t.l2BytesPerWarp = tableOffsets + offsets + p * weights;
  t.dramBytesPerWarp = indices + outputs + (1 - p) * weights;
  return t;
}

/// The elements per SM per clock cycle the framework's kernel of `k`
/// processes at most, whatever the memory: its instruction issue, not DRAM,
/// bounds it where the GPU's bandwidth is high for its SMs (Hopper in half
/// precision). 0: no such bound below the traffic's. Measured on an H200
/// (data/measured/h200: PyTorch 2.11's kernels in torch-layers.db.gz and in
/// the Kineto traces of the BF16 steps; docs/cost-models.md):
///  - a non-vectorized element-wise loop (a broadcast, strided or
///    dtype-converting operand: TensorIterator's elementwise_kernel and
///    unrolled_elementwise_kernel), and a layout-changing copy, compute each
///    operand's offset per element: 1.3-1.7 elements/SM/cycle, median 1.4;
///  - concatenation from strided views (CatArrayBatchedCopy): 0.6;
///  - softmax with the row in registers (softmax_warp_forward): about 2.5
///    up to 1024 columns, 1.8 at 2048 (32 threads hold 64 values each),
///    and 1.2 for the block-per-row kernel above (in FP32 as in BF16);
///  - layer norm (vectorized_layer_norm_kernel): 2.4 in BF16/FP16.
static double elementsPerSmCycle(const KernelDesc &k) {
  switch (k.kind) {
  case KernelKind::Elementwise:
    return k.strided ? 1.4 : 0;
  case KernelKind::Transpose:
    return 1.4;
  case KernelKind::Concat:
    return k.strided ? 0.6 : 0;
  case KernelKind::Softmax:
    return k.cols <= 1024 ? 2.5 : k.cols <= 2048 ? 1.8 : 1.2;
  case KernelKind::LayerNorm:
    return 2.4;
  default:
    return 0;
  }
}

/// The elements `k` processes under elementsPerSmCycle.
static double issuedElements(const KernelDesc &k) {
  switch (k.kind) {
  case KernelKind::Softmax:
  case KernelKind::LayerNorm:
    return double(k.rows) * k.cols;
  default:
    return double(k.numElements);
  }
}

std::optional<KernelCost> HeuristicModel::estimate(const KernelDesc &k,
                                                   const GpuSpec &gpu) const {
  std::optional<KernelCost> cost = trafficCost(k, gpu);
  if (!cost)
    return cost;
  double rate = elementsPerSmCycle(k) * gpu.numSMs * gpu.clockMHz * 1e6;
  if (rate > 0) {
    double issueUs = issuedElements(k) / rate * 1e6;
    if (issueUs > cost->latencyUs) {
      cost->latencyUs = issueUs;
      cost->computeBound = true;
    }
  }
  // The traffic of a tiny kernel takes nanoseconds; no kernel takes less
  // than the shortest one measured.
  cost->latencyUs = std::max(cost->latencyUs, kMinKernelUs);
  return cost;
}

std::optional<KernelCost>
HeuristicModel::trafficCost(const KernelDesc &k, const GpuSpec &gpu) const {
  double dramBw = gpu.memBandwidth * memoryEfficiency;
  if (dramBw <= 0)
    return std::nullopt;
  double l2Bw = gpu.l2Bandwidth > 0 ? gpu.l2Bandwidth : 3 * gpu.memBandwidth;
  double peak = rooflineRates(k, gpu).first * computeEfficiency;
  double e = dtypeBytes(k.dtype);

  KernelCost cost;
  cost.model = "heuristic";
  // The roofline of the element-wise section: max(FLOP / peak,
  // (bytes_read + bytes_write) / measured peak BW).
  auto roofline = [&](double flops, double bytes, double bandwidth) {
    double computeS = peak > 0 ? flops / peak : 0;
    double memoryS = bytes / bandwidth;
    cost.computeBound = computeS > memoryS;
    cost.latencyUs = std::max(computeS, memoryS) * 1e6;
    return cost;
  };

  switch (k.kind) {
  case KernelKind::EmbeddingBag: {
    // t = B * T * (tr_DRAM / peak_DRAM_BW + tr_L2 / peak_L2_BW).
    EmbeddingTraffic t = embeddingTraffic(k, gpu, rowsPerBlock);
    cost.latencyUs =
        t.warps * (t.dramBytesPerWarp / dramBw + t.l2BytesPerWarp / l2Bw) * 1e6;
    cost.computeBound = false;
    return cost;
  }
  case KernelKind::Elementwise:
  case KernelKind::Transpose:
  case KernelKind::Concat:
  case KernelKind::BatchNorm:
  case KernelKind::Optimizer:
  case KernelKind::Rope:
  case KernelKind::KvCacheWrite:
    return roofline(k.totalFlops(), k.totalBytes(), dramBw);
  case KernelKind::Memcpy: {
    double bw = dramBw;
    if (k.copyKind != MemcpyKind::DeviceToDevice && gpu.pcieBandwidth > 0)
      bw = gpu.pcieBandwidth * memoryEfficiency;
    return roofline(0, k.totalBytes(), bw);
  }
  case KernelKind::Softmax: {
    // A row of up to 2048 elements is held by one warp in registers
    // (PyTorch's softmax_warp_forward), a longer one in the block's shared
    // memory while it fits in 48 KiB (cunn_SoftMaxForwardSmem): one read,
    // one write. Longer rows are read three times (max, sum of exp,
    // normalize).
    double elems = double(k.rows) * k.cols;
    double reads = e * k.cols <= 48 * 1024 ? 1 : 3;
    return roofline(k.totalFlops(), e * elems * (reads + 1), dramBw);
  }
  case KernelKind::LayerNorm: {
    // Welford statistics then normalization: the row is read twice, the
    // output written once, and per-row mean and rstd saved for backward.
    double elems = double(k.rows) * k.cols;
    return roofline(k.totalFlops(), e * (3 * elems) + 8.0 * k.rows, dramBw);
  }
  case KernelKind::Reduce:
    return roofline(k.totalFlops(), k.totalBytes(), dramBw);
  case KernelKind::Gemm:
  case KernelKind::Conv2d:
  case KernelKind::Attention:
  case KernelKind::Pooling:
  case KernelKind::Generic:
    return std::nullopt;
  }
  return std::nullopt;
}
