//===- ModelConfigImport.h - Transformer steps, configs and fx -*- C++ -*-===//

#ifndef PERF_IMPORT_MODELCONFIGIMPORT_H
#define PERF_IMPORT_MODELCONFIGIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "perf/CostModel/KernelMeasurements.h"
#include "perf/Import/ModelConfig.h"
#include "perf/Support/GpuSpec.h"

namespace perf {

/// The step of the HuggingFace config `text` (read from `path`): a forward
/// graph, and for training its backward (and optimizer step, if asked).
/// Errors are emitted on the context and give null.
mlir::OwningOpRef<mlir::ModuleOp>
importModelConfig(mlir::MLIRContext *context, llvm::StringRef text,
                  llvm::StringRef path, const StepOptions &options);

/// Registers --import-model-config with its --batch, --seq, --phase,
/// --dtype, --attention, --head and --optimizer options.
void registerModelConfigImportTranslation();

struct FxImportOptions {
  /// Times the graph's transformer block repeats; 0: num_layer of the label
  /// JSON beside the CSV, else 1.
  int64_t numLayers = 0;
  /// Keep each node's measured time on its kernels.
  bool measured = true;
  /// "inference" or "training"; empty: training when a node has a backward
  /// time.
  std::string phase;
  /// The GPU the node times were measured on (catalog name); empty: the
  /// label folder holding the CSV ("Tesla_T4/...csv.gz"), when the catalog
  /// knows it.
  std::string measuredDevice;
};

/// The step of a NeuSight per-node torch.fx CSV, `contents` read from
/// `path` (plain or gzip-compressed). Errors name the file and line and
/// give null.
mlir::OwningOpRef<mlir::ModuleOp> importFxCsv(mlir::MLIRContext *context,
                                              llvm::StringRef contents,
                                              llvm::StringRef path,
                                              const FxImportOptions &options);

/// Kernels measured inside a real step (an fx CSV's nodes, a trace's
/// kernels): the GPU they ran on and a row per kernel.
struct StepKernelMeasurements {
  GpuSpec device;
  std::vector<KernelMeasurement> rows;
};

/// The node measurements of a NeuSight per-node fx CSV at `path`, as kernel
/// measurements perf-train can learn from: every forward node that runs one
/// kernel, with the node's measured time on the GPU of `device` (catalog
/// name; empty: the label folder holding the CSV). NeuSight timed each node
/// alone between two events, as it timed its kernel measurements, so the
/// two sets are alike; nodes of several kernels, timed together, are left
/// out. Errors name the file.
llvm::Expected<StepKernelMeasurements>
readFxNodeMeasurements(llvm::StringRef path, llvm::StringRef device = "");

/// The measured kernels of a perf graph at `path` (.mlir or .mlirbc), as
/// kernel measurements perf-train can learn from: every kernel op a Kineto
/// or execution-trace import timed (`perf.cost_model = "measured"`, or a
/// retargeted kernel's `perf.measured_latency_us`) whose kind a model prices
/// (not generic `kernel` ops), on the GPU of its graph's `perf.measured_on`
/// (else `perf.gpu`). Kineto times a kernel as it ran behind the others on its
/// stream, which is what the models price. Errors name the file.
llvm::Expected<StepKernelMeasurements>
readMeasuredGraphKernels(llvm::StringRef path);

/// Registers --import-fx-csv with --num-layer, --fx-measured and
/// --fx-device.
void registerFxCsvImportTranslation();

} // namespace perf

#endif // PERF_IMPORT_MODELCONFIGIMPORT_H
