//===- GpuSpec.h - The numbers cost models need about a GPU -----*- C++ -*-===//
//
// A GPU described by public datasheet figures. Every cost model reads a GPU
// only through this struct, so a GPU that does not exist yet is one JSON file.
// Units: FLOP/s, bytes/s, bytes, MHz.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_GPUSPEC_H
#define PERF_SUPPORT_GPUSPEC_H

#include "perf/Support/DType.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <utility>
#include <vector>

namespace perf {

struct GpuSpec {
  std::string name;
  /// Where the figures come from (datasheet or whitepaper).
  std::string source;
  unsigned numSMs = 0;
  /// FP32 lanes per SM.
  unsigned coresPerSM = 0;
  /// Boost clock.
  double clockMHz = 0;
  /// Peak dense FLOP/s on the CUDA cores.
  double fp64Flops = 0;
  double fp32Flops = 0;
  double fp16Flops = 0;
  /// Peak dense FLOP/s on the tensor cores; 0 where the GPU has none for it.
  double tensorTf32Flops = 0;
  double tensorF16Flops = 0;
  double tensorBf16Flops = 0;
  double tensorF8Flops = 0;
  double tensorI8Ops = 0;
  /// Device memory (HBM or GDDR) bandwidth and size.
  double memBandwidth = 0;
  double memBytes = 0;
  /// L2 cache bandwidth and size.
  double l2Bandwidth = 0;
  double l2Bytes = 0;
  /// Shared memory per SM.
  double sharedMemPerSM = 0;
  /// Host link bandwidth per direction (PCIe).
  double pcieBandwidth = 0;
  /// Aggregate NVLink bandwidth per direction; 0 where the GPU has none.
  double nvlinkBandwidth = 0;

  /// The peak FLOP/s that applies to `type`. With `tensorCores`, the tensor
  /// core figure is used where the GPU has one for that type, else the CUDA
  /// core figure.
  double peakFlops(DType type, bool tensorCores) const;

  /// Checks that the figures a cost model divides by are positive.
  llvm::Error validate() const;
};

/// The built-in catalog: NVIDIA data-center GPUs from P100 to GB200, the
/// GeForce RTX 3090/4090/5090 and AMD MI250X/MI300X (docs/devices.md).
llvm::ArrayRef<GpuSpec> gpuCatalog();
/// The other names lookupGpu accepts for the catalog GPU `name`.
std::vector<llvm::StringRef> gpuCatalogAliases(llvm::StringRef name);

/// Finds a catalog GPU by name or alias, ignoring case, spaces, '-' and '_'
/// ("h100", "H100-SXM", "NVIDIA H100 80GB HBM3", "Tesla_T4"). Null if unknown.
const GpuSpec *lookupGpu(llvm::StringRef name);
/// lookupGpu, or an error listing the catalog.
llvm::Expected<GpuSpec> lookupGpuOrError(llvm::StringRef name);

/// Parses a device description. Accepts the project's own format (the keys of
/// toJson, any subset over a "base" catalog GPU) and the NeuSight device
/// format (Num_Sm, Mem_Bw in GB/s, SingleFLOPs in GFLOP/s, L2Cache in MB...).
llvm::Expected<GpuSpec> parseGpuSpec(const llvm::json::Value &value);
/// A device JSON given as text; errors start with `path` (the file, or
/// where else the text was found), JSON syntax errors as "path:line:col".
llvm::Expected<GpuSpec> parseGpuSpecText(llvm::StringRef text,
                                         llvm::StringRef path);
llvm::Expected<GpuSpec> loadGpuSpecFile(llvm::StringRef path);

llvm::json::Value toJson(const GpuSpec &spec);

/// Every figure of `spec` as (JSON key, value in JSON units), in a fixed
/// order: what the `#perf.gpu` attribute prints.
std::vector<std::pair<llvm::StringRef, double>>
gpuSpecFields(const GpuSpec &spec);

} // namespace perf

#endif // PERF_SUPPORT_GPUSPEC_H
