//===- KernelMeasurements.h - Measured kernel latencies ---------*- C++ -*-===//
//
// Reading measured kernel latencies (NeuSight's CSVs, plain or gzipped,
// Vidur's profiles and perf databases) into KernelDescs, and the error
// statistics perf-eval reports. The accuracy harness and perf-train share it.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_KERNELMEASUREMENTS_H
#define PERF_COSTMODEL_KERNELMEASUREMENTS_H

#include "perf/Support/GpuSpec.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/KernelDesc.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>
#include <vector>

namespace perf {

struct KernelMeasurement {
  KernelDesc kernel;
  /// The device as the data names it ("Tesla T4").
  std::string device;
  /// The measured operator: bmm, linear, conv, add, relu, gelu, ln, softmax.
  std::string op;
  double latencyUs = 0;
  /// Where the row came from, for error messages and worst-row listings.
  std::string file;
  /// The data set's format: "neusight" or "vidur" (the perf database's
  /// `source` column).
  std::string source;
  /// The line of a CSV, the rowid of a perf database row.
  unsigned line = 0;
  /// Whether `latencyUs` times the kernel alone between two events, the
  /// device's launch included (NeuSight, Vidur, perf-bench's `events`
  /// rows): it compares with a model's isolated price (KernelCost latencyUs
  /// + isolationUs). perf-bench's `cupti` rows are the kernel's device busy
  /// time instead, which compares with the streamed price (latencyUs).
  bool timedAlone = true;
};

/// Splits one CSV record (RFC 4180 quoting) into fields.
std::vector<std::string> splitCsvRecord(llvm::StringRef line);

/// Parses a NeuSight measurement CSV (columns OPName, Latency [ms], Device,
/// Kernel Name, then the shape columns of the operator). `path` names the
/// file in errors ("file:line: ..."). Semantics, from the data's launch
/// grids: bmm is [B,M,N] x [B,N,K]; linear is [B*M,N] x [N,K]; conv has
/// B, Input_Channel, Output_Channel, Kernel_Szie, Input_Size, Stride,
/// Padding; add/relu/gelu/softmax/ln are B x H.
/// Rows of operators the reader does not know, by operator name. When a
/// reader is given one, such rows are skipped and counted here; without
/// one they are an error naming the file and line.
using SkippedOps = std::map<std::string, int64_t>;
llvm::Expected<std::vector<KernelMeasurement>>
parseNeuSightCsv(llvm::StringRef text, llvm::StringRef path,
                 SkippedOps *skipped = nullptr);
llvm::Expected<std::vector<KernelMeasurement>>
readNeuSightCsv(llvm::StringRef path, SkippedOps *skipped = nullptr);

/// Every <op>/<GPU>.csv[.gz] under a NeuSight data directory.
llvm::Expected<std::vector<KernelMeasurement>>
readNeuSightDir(llvm::StringRef dir, SkippedOps *skipped = nullptr);

/// The catalog GPU a Vidur profiling folder is named for ("a100" is the
/// DGX A100-SXM4-80GB Vidur profiles on, "a40" the A40), else the catalog
/// GPU of that name.
llvm::Expected<GpuSpec> vidurDevice(llvm::StringRef folder);

/// Parses a Vidur MLP-profile CSV (`time_stats.<op>.median` in ms per op of
/// one transformer layer, then n_head, n_kv_head, n_embd, n_expanded_embd,
/// use_gated_mlp, num_tokens, num_tensor_parallel_workers). Each op of a row
/// becomes one FP16 kernel on `device` (a catalog name): the four
/// projections are tensor-core GEMMs of num_tokens rows with the
/// tensor-parallel split of their weights (QKV: (n_head + 2 n_kv_head) *
/// head_dim / tp outputs; out: n_embd / tp inputs; up: (2 if gated) *
/// n_expanded / tp outputs; down: n_expanded / tp inputs); the norms are
/// num_tokens x n_embd; the activation (silu_and_mul when gated, else gelu)
/// is n_expanded / tp per token; rope rotates the q and k heads in place;
/// add is the residual. `emb`, several kernels of the vocab-parallel lookup,
/// is skipped and counted in `skipped` (an error without it), as are ops of
/// other names.
llvm::Expected<std::vector<KernelMeasurement>>
parseVidurCsv(llvm::StringRef text, llvm::StringRef path,
              llvm::StringRef device, SkippedOps *skipped = nullptr);

/// Every <gpu>/<model>.csv[.gz] under a Vidur profiling directory, each
/// folder's device from vidurDevice.
llvm::Expected<std::vector<KernelMeasurement>>
readVidurDir(llvm::StringRef dir, SkippedOps *skipped = nullptr);

/// Reads a measurement CSV of either format, told apart by its header
/// (Vidur's `time_stats.` columns, else NeuSight's); a Vidur file's device
/// is its folder's (vidurDevice).
llvm::Expected<std::vector<KernelMeasurement>>
readMeasurementCsv(llvm::StringRef path, SkippedOps *skipped = nullptr);

/// The rows of a perf database (docs/perf-db.md) as measurements, with the
/// figures of their devices.
struct PerfDbMeasurements {
  std::vector<KernelMeasurement> rows;
  /// Per device name of the rows: the spec perf-bench --probe stored in the
  /// database's devices table, else the catalog GPU of that name.
  llvm::StringMap<GpuSpec> devices;
};

/// Reads every row of the perf database at `path` (SQLite, not gzipped):
/// the kernel rebuilt from its kind and signature, its dtype, tensor cores
/// by runsOnTensorCores (a signature does not say it, docs/perf-db.md), its
/// kernel name; the op is "<kind>.<dtype>"
/// ("gemm.bf16"), the line the rowid, timedAlone unless the source's timing
/// is "cupti". Rows of a device `skip` returns true for are left out (and
/// need no spec). A device with neither a stored spec nor a catalog entry is
/// an error.
llvm::Expected<PerfDbMeasurements>
readPerfDatabase(llvm::StringRef path,
                 llvm::function_ref<bool(llvm::StringRef)> skip = nullptr);

/// The device JSON of a NeuSight device name ("Tesla T4" ->
/// DIR/Tesla_T4.json), else the catalog GPU of that name.
llvm::Expected<GpuSpec> neuSightDevice(llvm::StringRef dir,
                                       llvm::StringRef device);

/// A short GPU label for tables ("Tesla V100-PCIE-32GB" -> "V100").
std::string shortGpuName(llvm::StringRef device);

/// One priced row.
struct PricedRow {
  const KernelMeasurement *row = nullptr;
  double predictedUs = 0;
  std::string model;
  /// (predicted - measured) / measured.
  double relativeError() const;
};

struct ErrorStats {
  size_t count = 0;
  /// Mean of |relative error|.
  double mape = 0;
  /// Geometric mean of |relative error| (the DLRM paper's GMAE), each term
  /// floored at 1e-4 so one exact hit does not zero the mean.
  double gmae = 0;
  /// Fraction of rows within 10% and 25%.
  double within10 = 0, within25 = 0;
};
ErrorStats computeErrorStats(llvm::ArrayRef<PricedRow> rows);

/// The median of `values` (the mean of the two middle ones for an even
/// count); reorders them. `values` must not be empty.
double median(llvm::MutableArrayRef<double> values);

/// The median of log(predicted / measured): the one factor a model is off by
/// on a typical row (0 for an unbiased model).
double medianLogRatio(llvm::ArrayRef<PricedRow> rows);

/// The stats of `rows` with every prediction divided by
/// exp(medianLogRatio(rows)): the error left after calibrating a model with
/// one constant fitted on these very rows (the spread a constant cannot
/// remove).
ErrorStats computeDebiasedErrorStats(llvm::ArrayRef<PricedRow> rows);

} // namespace perf

#endif // PERF_COSTMODEL_KERNELMEASUREMENTS_H
