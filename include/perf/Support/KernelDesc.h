//===- KernelDesc.h - Device work as the cost models see it -----*- C++ -*-===//
//
// The MLIR-free description of one kernel launch or collective: the one
// description every importer produces, the dialect's KernelOpInterface reads
// back from an op (`getKernelDesc`) and `buildKernelOp` turns into an op. The
// library API and perf-eval build it directly. Only the fields of the
// kernel's kind are meaningful.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_KERNELDESC_H
#define PERF_SUPPORT_KERNELDESC_H

#include "perf/Support/DType.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace perf {

// KernelKind: one enumerator per kernel kind of
// include/perf/Dialect/WorkKinds.td, in its order.
#include "perf/Support/KernelKinds.h.inc"

llvm::StringRef kernelKindName(KernelKind kind);
/// The kind `kernelKindName` spells `name`, if any.
std::optional<KernelKind> parseKernelKind(llvm::StringRef name);

/// Which pass of training a kernel belongs to; backward kernels of
/// embedding_bag and conv are priced differently from the forward ones.
enum class KernelPass { Forward, BackwardData, BackwardWeight, Update };

enum class MemcpyKind { HostToDevice, DeviceToHost, DeviceToDevice };

/// The `pass` attribute spelling of `pass` on a kernel of `kind`: "fwd",
/// "dgrad"/"bwd" (conv and gemm say dgrad, others bwd), "wgrad", "update".
llvm::StringRef kernelPassAttrName(KernelKind kind, KernelPass pass);
/// Inverse of kernelPassAttrName; "bwd" and "dgrad" are both BackwardData.
std::optional<KernelPass> parseKernelPass(llvm::StringRef name);

/// "h2d", "d2h", "d2d".
llvm::StringRef memcpyKindName(MemcpyKind kind);
std::optional<MemcpyKind> parseMemcpyKind(llvm::StringRef name);

/// Whether the libraries run a kernel of `kind` in `type` on tensor cores:
/// GEMMs (cuBLAS), convolutions (cuDNN) and fused attention in TF32, FP16
/// and BF16. Importers and measurement readers mark kernels by it; a kernel
/// description does not carry it in its database signature.
bool runsOnTensorCores(KernelKind kind, DType type);

struct KernelDesc {
  KernelKind kind = KernelKind::Generic;
  KernelPass pass = KernelPass::Forward;
  DType dtype = DType::F32;
  /// Whether tensor cores may be used (fp16/bf16/tf32 GEMM and conv).
  bool tensorCores = false;
  /// Kernel symbol when known (from a trace); tile sizes are read from it.
  std::string name;

  // Gemm / Attention
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
  // Conv2d / Pooling (NCHW): n=batch, c=in channels, h/w input size,
  // outChannels=K, r/s filter, strides, pads, dilation, groups.
  int64_t c = 0, h = 0, w = 0, outChannels = 0, r = 1, s = 1;
  int64_t strideH = 1, strideW = 1, padH = 0, padW = 0;
  int64_t dilationH = 1, dilationW = 1, groups = 1;
  // Elementwise / Transpose / Concat / BatchNorm / Optimizer
  int64_t numElements = 0;
  int64_t numInputs = 1;
  double flopsPerElement = 1;
  /// Operation of an elementwise or optimizer kernel ("add", "relu",
  /// "gelu", "sgd", "adam"); part of its database signature.
  std::string op;
  /// Whether an element-wise or concat kernel reads an operand broadcast,
  /// strided (a transposed or sliced view) or in another dtype: the
  /// framework's kernel then moves one element per thread at a time instead
  /// of 16-byte vectors, and its issue rate, not DRAM, bounds it on GPUs
  /// whose bandwidth is high for their SMs (Hopper).
  bool strided = false;
  // Reduce / Softmax / LayerNorm: rows x cols.
  int64_t rows = 0, cols = 0;
  // EmbeddingBag: numTables tables of tableRows x dim; `batch` bags per table
  // each pooling `pooling` rows.
  int64_t numTables = 1, tableRows = 0, dim = 0, pooling = 1;
  // Attention: heads, query length (m), key length (n; 0: m, as in
  // self-attention without a cache), head dim (k); key and value heads
  // (kvHeads; 0: heads), whether each query sees only the keys up to its
  // own position (causal, aligned to the last key), the keys each query
  // sees at most (window; 0: all), the KV cache's page (pageSize; 0: one
  // block per sequence), and the fused kernel's implementation in `op`
  // (kAttentionImpls; empty: the GPU's default). RoPE: rows tokens, heads
  // and kvHeads, k the head size, cols the rotated part (0: all of it).
  // KV-cache write: rows tokens, kvHeads, k, pageSize.
  int64_t heads = 1;
  int64_t kvHeads = 0;
  bool causal = false;
  int64_t window = 0;
  int64_t pageSize = 0;
  int64_t keyLength() const { return n > 0 ? n : m; }
  /// Key and value heads (GQA/MQA share each between query heads).
  int64_t keyHeads() const { return kvHeads > 0 ? kvHeads : heads; }
  /// The (query, key) pairs one head of an attention kernel scores: every
  /// key for every query, or under `causal` the keys up to each query's
  /// position (queries are the last m of keyLength()), at most `window`.
  double attentionPairs() const;
  /// The keys one head reads: all of them, or the last window + m - 1.
  double attentionKeysRead() const;
  // Memcpy
  MemcpyKind copyKind = MemcpyKind::DeviceToDevice;
  // Generic (and an override for any kind when > 0).
  double flops = 0;
  double bytes = 0;

  /// Output spatial size of a conv/pooling kernel.
  int64_t outH() const;
  int64_t outW() const;

  /// FLOPs the kernel performs (a multiply-add counts 2).
  double totalFlops() const;
  /// The share of the tensor cores' peak a GEMM's operand alignment leaves
  /// it (1 for any other kernel): cuBLAS runs a tensor-core GEMM whose
  /// leading dimensions are not multiples of 16 bytes on fallback kernels
  /// with narrower loads (cutlass "align1"/"align2"). Row-major operands as
  /// the framework stores them: A's leading dimension is K (M when
  /// transposed), B's N (K when transposed), C's N.
  double tensorCoreAlignmentFactor() const;
  /// Bytes it must move to and from device memory at least once.
  double totalBytes() const;
  /// Whether `flops`/`bytes` replace the counts of a typed kind (a kernel
  /// only known by its work, built as a generic kernel).
  bool hasWorkOverride() const;
  /// Whether every size of the kind is one a kernel op accepts (positive
  /// sizes, groups dividing channels, a non-empty conv output); importers
  /// drop kernels whose shapes were not recorded.
  bool hasValidSizes() const;

  /// Every field equal: what a cost model reads is the same.
  friend bool operator==(const KernelDesc &a, const KernelDesc &b);
  friend bool operator!=(const KernelDesc &a, const KernelDesc &b) {
    return !(a == b);
  }
};

/// The fused attention implementations an attention kernel may name:
/// FlashAttention-2 and -3, PyTorch's memory-efficient kernel and cuDNN's.
inline constexpr llvm::StringLiteral kAttentionImpls =
    "flash2, flash3, efficient, cudnn";
/// Whether `impl` is one of kAttentionImpls or empty (the default).
bool isAttentionImpl(llvm::StringRef impl);

/// An element-wise kernel: `numElements` outputs, each read from
/// `numInputs` inputs with `flopsPerElement` operations.
KernelDesc elementwiseKernel(int64_t numElements, int64_t numInputs,
                             double flopsPerElement, DType dtype);

/// A hash over every field (operator==), for maps of kernels such as the
/// prices a cost pass has already asked its models for.
llvm::hash_code hash_value(const KernelDesc &desc);
struct KernelDescHash {
  size_t operator()(const KernelDesc &desc) const {
    return static_cast<size_t>(hash_value(desc));
  }
};

enum class CollectiveKind {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  Broadcast,
  SendRecv,
};

llvm::StringRef collectiveKindName(CollectiveKind kind);
/// Accepts "all_reduce", "allreduce", "all-reduce", "send_recv", "send",
/// "recv"...
std::optional<CollectiveKind> parseCollectiveKind(llvm::StringRef name);

/// A collective a framework op launches: `bytes` per device over a group of
/// `groupSize` ranks.
struct CollectiveDesc {
  CollectiveKind kind = CollectiveKind::AllReduce;
  DType dtype = DType::F32;
  int64_t bytes = 0;
  int64_t groupSize = 1;
};

/// One unit of device work an op launches.
using DeviceWork = std::variant<KernelDesc, CollectiveDesc>;

} // namespace perf

#endif // PERF_SUPPORT_KERNELDESC_H
