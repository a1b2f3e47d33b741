//===- PerfDialect.td - The perf dialect -------------------*- tablegen -*-===//

#ifndef PERF_DIALECT_PERFDIALECT_TD
#define PERF_DIALECT_PERFDIALECT_TD

include "mlir/IR/OpBase.td"

def Perf_Dialect : Dialect {
  let name = "perf";
  let summary = "Performance IR for predicting deep-learning step time on GPUs";
  let description = [{
    One training or inference step as the host launches it: framework ops
    (`perf.op`) run by a host thread per device, each holding the device work
    it launches (typed kernels, copies, collectives) placed on a device and a
    stream. Tensor SSA values carry the data dependencies. Analysis passes
    write costs back as `perf.*` attributes.
  }];
  let cppNamespace = "::perf";
  let useDefaultAttributePrinterParser = 1;
  // perf.* attributes that hold times are checked where the IR is read.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// Discardable attributes the analysis passes write.
    static constexpr ::llvm::StringLiteral kLatencyAttr = "perf.latency_us";
    static constexpr ::llvm::StringLiteral kCostModelAttr = "perf.cost_model";
    static constexpr ::llvm::StringLiteral kStartAttr = "perf.start_us";
    static constexpr ::llvm::StringLiteral kEndAttr = "perf.end_us";
    static constexpr ::llvm::StringLiteral kOverheadAttr = "perf.overhead_us";
    static constexpr ::llvm::StringLiteral kLaunchAttr = "perf.launch_us";
    static constexpr ::llvm::StringLiteral kEstimateAttr = "perf.estimate";
    static constexpr ::llvm::StringLiteral kDbMissesAttr = "perf.db_misses";
    /// On a graph: the GPU its measured kernel latencies were taken on.
    static constexpr ::llvm::StringLiteral kMeasuredOnAttr = "perf.measured_on";
    /// On a kernel moved to another GPU: the latency measured on that GPU.
    static constexpr ::llvm::StringLiteral kMeasuredLatencyAttr =
        "perf.measured_latency_us";
    /// On a kernel imported from a trace: when it started, in us from the
    /// start of the measured iteration (the timeline shows it beside the
    /// prediction).
    static constexpr ::llvm::StringLiteral kMeasuredStartAttr =
        "perf.measured_start_us";
    /// On a graph: what moving its measured kernels to the target did.
    static constexpr ::llvm::StringLiteral kRetargetAttr = "perf.retarget";
    /// On a graph imported from a trace of a GPU the catalog does not know:
    /// what the trace says of it (name, SMs, memory).
    static constexpr ::llvm::StringLiteral kTraceDeviceAttr =
        "perf.trace_device";
    /// On a framework op: the transformer block it belongs to (0, 1, ...),
    /// written by the importers and kept on the backward op; activation
    /// recomputation and ZeRO-3 work per block.
    static constexpr ::llvm::StringLiteral kLayerAttr = "perf.layer";
    /// On a framework op of a mixture-of-experts layer: the expert it runs
    /// (0, 1, ...), written by the config importer and kept on the backward
    /// op; expert parallelism places the experts on devices.
    static constexpr ::llvm::StringLiteral kExpertAttr = "perf.expert";
  }];
}

class Perf_Op<string mnemonic, list<Trait> traits = []>
    : Op<Perf_Dialect, mnemonic, traits>;

#endif // PERF_DIALECT_PERFDIALECT_TD
