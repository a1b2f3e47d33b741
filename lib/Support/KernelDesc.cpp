//===- KernelDesc.cpp - FLOPs and bytes of each kernel kind ---------------===//
//
// The counts every analytic model starts from. Bytes are the compulsory
// traffic: each input read once, each output written once.
//
//===----------------------------------------------------------------------===//

#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <tuple>

using namespace perf;

#define GEN_KERNEL_KIND_COUNTS
#include "perf/Support/KernelKinds.cpp.inc"

llvm::StringRef perf::kernelKindName(KernelKind kind) {
  return kKernelKindNames[static_cast<size_t>(kind)];
}

std::optional<KernelKind> perf::parseKernelKind(llvm::StringRef name) {
  for (int i = 0; i < kNumKernelKinds; ++i)
    if (kernelKindName(static_cast<KernelKind>(i)) == name)
      return static_cast<KernelKind>(i);
  return std::nullopt;
}

static int64_t convOut(int64_t in, int64_t pad, int64_t dilation,
                       int64_t kernel, int64_t stride) {
  if (stride <= 0)
    return 0;
  // Checked: sizes from a file may be anything, and an overflow here would
  // be undefined; a window that overflows does not fit the input.
  int64_t padded, window, span;
  if (llvm::MulOverflow(pad, int64_t(2), padded) ||
      llvm::AddOverflow(in, padded, padded) ||
      llvm::MulOverflow(dilation, kernel - 1, window) ||
      llvm::SubOverflow(padded, window, span) || span < 1)
    return 0;
  return (span - 1) / stride + 1;
}

int64_t KernelDesc::outH() const {
  return convOut(h, padH, dilationH, r, strideH);
}
int64_t KernelDesc::outW() const {
  return convOut(w, padW, dilationW, s, strideW);
}

bool perf::runsOnTensorCores(KernelKind kind, DType type) {
  return kindRunsOnTensorCores(kind) &&
         (type == DType::TF32 || type == DType::F16 || type == DType::BF16 ||
          type == DType::F8);
}

double KernelDesc::tensorCoreAlignmentFactor() const {
  if (kind != KernelKind::Gemm || !tensorCores)
    return 1.0;
  int64_t elementBytes = dtypeBytes(dtype);
  // Leading dimensions of the row-major operands (see the header).
  int64_t ldA = transA ? m : k, ldB = transB ? k : n, ldC = n;
  // The widest access every row start allows, up to the 16 bytes the
  // full-speed kernels load.
  int64_t alignment = 16;
  for (int64_t ld : {ldA, ldB, ldC})
    while (alignment > elementBytes && (ld * elementBytes) % alignment != 0)
      alignment /= 2;
  // Measured on an H200 (data/measured/h200): BF16/FP16 GEMMs with an odd
  // leading dimension (2-byte rows: the 50,257-token GPT-2 vocabulary, M =
  // 333) ran cutlass_75 align1 kernels at 0.18 of the aligned GEMMs'
  // throughput, TF32 with an odd one (4-byte rows) and BF16 with the
  // 30,522-token BERT vocabulary (4-byte rows) at 0.25-0.31. 8-byte rows
  // were not measured and take the 4-byte figure.
  if (alignment >= 16)
    return 1.0;
  return alignment <= 2 ? 0.18 : 0.3;
}

double KernelDesc::attentionPairs() const {
  double queries = m, keys = keyLength();
  if (!causal && window <= 0)
    return queries * keys;
  // Query i (0-based) sees key j when j <= keys - queries + i (causal) and
  // j > that minus the window: min(keys - queries + i + 1, window) keys,
  // summed in closed form over the two ranges.
  double first = keys - queries + 1; // keys the first query sees
  double w = window > 0 ? double(window) : keys;
  if (!causal)
    return queries * std::min(w, keys);
  auto sumFrom = [](double a, double count) {
    return count * a + count * (count - 1) / 2;
  };
  // Queries that see fewer than `w` keys: first + i < w.
  double below = std::clamp(w - first, 0.0, queries);
  return sumFrom(first, below) + (queries - below) * w;
}

double KernelDesc::attentionKeysRead() const {
  double keys = keyLength();
  if (window <= 0)
    return keys;
  return std::min(keys, double(window) + m - 1);
}

bool perf::isAttentionImpl(llvm::StringRef impl) {
  if (impl.empty())
    return true;
  llvm::SmallVector<llvm::StringRef> names;
  kAttentionImpls.split(names, ", ");
  return llvm::is_contained(names, impl);
}

double KernelDesc::totalFlops() const {
  if (flops > 0 || kind == KernelKind::Generic)
    return flops;
  return kindFlops(*this);
}

double KernelDesc::totalBytes() const {
  // A copy's `bytes` is its size, not an override of its traffic.
  if (kind == KernelKind::Generic || (bytes > 0 && kind != KernelKind::Memcpy))
    return bytes;
  return kindBytes(*this);
}

llvm::StringRef perf::kernelPassAttrName(KernelKind kind, KernelPass pass) {
  switch (pass) {
  case KernelPass::Forward:
    return "fwd";
  case KernelPass::BackwardData:
    // Kinds with a separate weight gradient name the data gradient dgrad.
    return kind == KernelKind::Conv2d || kind == KernelKind::Gemm ? "dgrad"
                                                                  : "bwd";
  case KernelPass::BackwardWeight:
    return "wgrad";
  case KernelPass::Update:
    return "update";
  }
  return "fwd";
}

std::optional<KernelPass> perf::parseKernelPass(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<KernelPass>>(name)
      .Case("fwd", KernelPass::Forward)
      .Cases({"bwd", "dgrad"}, KernelPass::BackwardData)
      .Case("wgrad", KernelPass::BackwardWeight)
      .Case("update", KernelPass::Update)
      .Default(std::nullopt);
}

llvm::StringRef perf::memcpyKindName(MemcpyKind kind) {
  switch (kind) {
  case MemcpyKind::HostToDevice:
    return "h2d";
  case MemcpyKind::DeviceToHost:
    return "d2h";
  case MemcpyKind::DeviceToDevice:
    return "d2d";
  }
  return "d2d";
}

std::optional<MemcpyKind> perf::parseMemcpyKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<MemcpyKind>>(name)
      .Case("h2d", MemcpyKind::HostToDevice)
      .Case("d2h", MemcpyKind::DeviceToHost)
      .Case("d2d", MemcpyKind::DeviceToDevice)
      .Default(std::nullopt);
}

bool KernelDesc::hasWorkOverride() const {
  return kind != KernelKind::Generic && kind != KernelKind::Memcpy &&
         (flops > 0 || bytes > 0);
}

bool KernelDesc::hasValidSizes() const {
  return hasWorkOverride() || kindHasValidSizes(*this);
}

llvm::StringRef perf::collectiveKindName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::Broadcast:
    return "broadcast";
  case CollectiveKind::SendRecv:
    return "send_recv";
  }
  return "all_reduce";
}

std::optional<CollectiveKind> perf::parseCollectiveKind(llvm::StringRef name) {
  std::string key;
  for (char c : name)
    if (c != '_' && c != '-')
      key.push_back(llvm::toLower(c));
  return llvm::StringSwitch<std::optional<CollectiveKind>>(key)
      .Case("allreduce", CollectiveKind::AllReduce)
      .Case("allgather", CollectiveKind::AllGather)
      .Case("reducescatter", CollectiveKind::ReduceScatter)
      .Case("alltoall", CollectiveKind::AllToAll)
      .Case("broadcast", CollectiveKind::Broadcast)
      .Case("sendrecv", CollectiveKind::SendRecv)
      .Case("send", CollectiveKind::SendRecv)
      .Case("recv", CollectiveKind::SendRecv)
      .Default(std::nullopt);
}

/// Every field of a KernelDesc, in one tuple for == and the hash.
static auto fields(const KernelDesc &d) {
  return std::tie(
      d.kind, d.pass, d.dtype, d.tensorCores, d.name, d.batch, d.m, d.n, d.k,
      d.transA, d.transB, d.c, d.h, d.w, d.outChannels, d.r, d.s, d.strideH,
      d.strideW, d.padH, d.padW, d.dilationH, d.dilationW, d.groups,
      d.numElements, d.numInputs, d.flopsPerElement, d.op, d.strided, d.rows,
      d.cols, d.numTables, d.tableRows, d.dim, d.pooling, d.heads, d.kvHeads,
      d.causal, d.window, d.pageSize, d.copyKind, d.flops, d.bytes);
}

bool perf::operator==(const KernelDesc &a, const KernelDesc &b) {
  return fields(a) == fields(b);
}

KernelDesc perf::elementwiseKernel(int64_t numElements, int64_t numInputs,
                                   double flopsPerElement, DType dtype) {
  KernelDesc d;
  d.kind = KernelKind::Elementwise;
  d.numElements = numElements;
  d.numInputs = numInputs;
  d.flopsPerElement = flopsPerElement;
  d.dtype = dtype;
  return d;
}

llvm::hash_code perf::hash_value(const KernelDesc &d) {
  // Doubles by their bits (equal values hash alike; llvm::hash_value has no
  // floating-point overload).
  auto bits = [](double v) { return llvm::bit_cast<uint64_t>(v); };
  return llvm::hash_combine(
      llvm::hash_combine(d.kind, d.pass, d.dtype, d.tensorCores, d.name,
                         d.batch, d.m, d.n, d.k, d.transA, d.transB),
      llvm::hash_combine(d.c, d.h, d.w, d.outChannels, d.r, d.s, d.strideH,
                         d.strideW, d.padH, d.padW, d.dilationH, d.dilationW,
                         d.groups),
      llvm::hash_combine(d.numElements, d.numInputs, bits(d.flopsPerElement),
                         d.op, d.strided, d.rows, d.cols, d.numTables,
                         d.tableRows, d.dim, d.pooling, d.heads, d.kvHeads,
                         d.causal, d.window, d.pageSize, d.copyKind,
                         bits(d.flops), bits(d.bytes)));
}
