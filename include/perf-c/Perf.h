/*===-- perf-c/Perf.h - C API of the perf cost model --------------*- C -*-===*\
|*                                                                            *|
|* For compilers and tools that want "how long does this kernel / this graph  *|
|* take on that GPU" without C++ or MLIR in their interface. Strings returned *|
|* through `char **` are owned by the caller and freed with perfFreeString.   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PERF_C_PERF_H
#define PERF_C_PERF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PerfKernelKind: PerfKernelGemm, PerfKernelConv2d, ... in the order of
   perf::KernelKind (include/perf/Dialect/WorkKinds.td). */
#include "perf-c/KernelKinds.h"

/// A kernel. Zero-initialize it, set `kind`, `dtype` and the fields of the
/// kind (the meaning of each is that of perf::KernelDesc).
typedef struct {
  PerfKernelKind kind;
  /// "f32", "bf16", ...; NULL means f32.
  const char *dtype;
  int tensorCores;
  int64_t batch, m, n, k;
  int64_t c, h, w, outChannels, r, s, strideH, strideW, padH, padW, groups;
  int64_t numElements, numInputs;
  int64_t rows, cols;
  int64_t numTables, tableRows, dim, pooling;
  double flops, bytes;
} PerfKernel;

/// Latency of `kernel` on the catalog GPU `gpu` priced by the comma-separated
/// model order `models` (NULL: "roofline"). Returns 0 on success and writes
/// the latency in microseconds; on failure returns non-zero and, when `error`
/// is not NULL, an error message.
int perfKernelLatencyUs(const PerfKernel *kernel, const char *gpu,
                        const char *models, double *latencyUs, char **error);

/// A kernel cost model stack built once and used for many kernels (loading
/// the ml boosters or opening the database per call would dominate a
/// compiler's cost queries). Not thread-safe: one per thread, or a lock.
typedef struct PerfCostModel PerfCostModel;

/// Builds the stack `models` (comma-separated, first that prices a kernel
/// wins; NULL: "roofline"), with the perf database `database` for the db
/// model and the perf-train folder `modelDir` for the ml and tile models
/// (either may be NULL). Returns NULL on failure and, when `error` is not
/// NULL, an error message.
PerfCostModel *perfCostModelCreate(const char *models, const char *database,
                                   const char *modelDir, char **error);

/// Latency of `kernel` on the catalog GPU `gpu`, in microseconds. When
/// `pricedBy` is not NULL it receives the name of the model that answered
/// ("db", "ml", ..., "none"), to be freed with perfFreeString. Returns 0 on
/// success.
int perfCostModelLatencyUs(PerfCostModel *model, const PerfKernel *kernel,
                           const char *gpu, double *latencyUs, char **pricedBy,
                           char **error);

void perfCostModelDestroy(PerfCostModel *model);

/// Estimates every perf.graph of a module given as perf IR text: runs
/// `pipeline` (a pass pipeline such as "perf-fuse-embeddings", may be NULL or
/// empty) then the default cost pipeline on `gpu` (NULL keeps the graphs'
/// targets), and writes the JSON report. Returns 0 on success.
int perfEstimateModule(const char *mlirText, const char *gpu,
                       const char *pipeline, char **reportJson, char **error);

/// Settings of the estimate; zero-initialize and set what differs from the
/// defaults.
typedef struct {
  /// Kernel model order as for perfCostModelCreate; NULL: "roofline".
  const char *models;
  /// Perf database of the db model and perf-train folder of the ml and tile
  /// models; NULL: none.
  const char *database;
  const char *modelDir;
  /// Steps walked back to back for the steady-state step time
  /// (`steady_state_us` in the report); 0 or 1: one step.
  unsigned iterations;
  /// Any other option of the estimate pipeline, in `perf-opt --estimate`'s
  /// textual form ("launch=cuda-graph overheads=h200-vm"; docs/estimate.md),
  /// applied after the fields above; NULL: none.
  const char *estimateOptions;
} PerfEstimateOptions;

/// perfEstimateModule with `options` (NULL: the defaults).
int perfEstimateModuleWithOptions(const char *mlirText, const char *gpu,
                                  const char *pipeline,
                                  const PerfEstimateOptions *options,
                                  char **reportJson, char **error);

void perfFreeString(char *string);

#ifdef __cplusplus
}
#endif

#endif /* PERF_C_PERF_H */
