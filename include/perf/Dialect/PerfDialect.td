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
    /// Device work written where an op belongs (`perf.gemm` in a graph's
    /// body) is refused with the reason, not as an unknown op.
    std::optional<ParseOpHook>
    getParseOperationHook(::llvm::StringRef opName) const override;
  }];
  // Discardable attributes: what the passes and importers write (and a
  // user may write by hand). The verifier rejects any other perf.* name
  // and a value of another type.
  let discardableAttrs = (ins
    // kernel: its time in us (kernel cost; a measured kernel's own)
    "::mlir::Attribute":$latency_us,
    // kernel: the model that priced it
    "::mlir::StringAttr":$cost_model,
    // op or kernel: when it starts (critical path, with -o)
    "::mlir::Attribute":$start_us,
    // op or kernel: when it ends
    "::mlir::Attribute":$end_us,
    // framework op: host overheads T1, T2, T3, T5
    "::mlir::DenseF64ArrayAttr":$overhead_us,
    // framework op from a trace: the annotated region (a user annotation:
    // a DataLoader fetch, an optimizer step) it is the first op of; its T1
    // is the region's entry in the host overhead table
    "::mlir::StringAttr":$entered_region,
    // kernel: T4, the runtime call that launches it
    "::mlir::Attribute":$launch_us,
    // kernel from a trace: the runtime function that launched it
    // ("cudaMemsetAsync", "hipLaunchKernel"); --perf-host-overhead prices
    // the launch with that function's T4
    "::mlir::StringAttr":$launch_call,
    // graph: the critical path's summary
    "::mlir::DictionaryAttr":$estimate,
    // graph: kernels the perf database did not hold
    "::mlir::ArrayAttr":$db_misses,
    // graph: the GPU its measured latencies were taken on (a #perf.gpu,
    // checked by the verifier: the attribute class is declared after the
    // dialect)
    "::mlir::Attribute":$measured_on,
    // kernel moved to another GPU: its measured latency
    "::mlir::Attribute":$measured_latency_us,
    // kernel from a trace: its measured start
    "::mlir::Attribute":$measured_start_us,
    // graph from a trace: the measured iteration's time
    "::mlir::Attribute":$measured_us,
    // graph from a trace: the iteration's name
    "::mlir::StringAttr":$measured_iteration,
    // graph: what moving its measured kernels did
    "::mlir::DictionaryAttr":$retarget,
    // graph: the trace's GPU when the catalog lacks it
    "::mlir::DictionaryAttr":$trace_device,
    // graph: the step time before --perf-compare's passes
    "::mlir::Attribute":$baseline_us,
    // graph: the passes --perf-compare applied
    "::mlir::ArrayAttr":$transforms,
    // kernel: a copy from or to pageable memory, which runs inside its
    // runtime call (the call returns when it is done), so it starts
    // half-way through the part of the call it does not cover
    "::mlir::UnitAttr":$copy_in_call,
    // graph: the driver's launch queue depth its host overhead table was
    // measured with (--perf-host-overhead; the critical path blocks a
    // launch while that many kernels are pending)
    "::mlir::IntegerAttr":$launch_queue_depth,
    // graph: the host overhead table that priced it (--perf-host-overhead's
    // `table`: a host of the catalog or a file); the report names it
    "::mlir::StringAttr":$host_table,
    // graph: the host time after the last op of an iteration imported from
    // a trace (--perf-host-overhead, the table's iteration tail; the
    // critical path adds it to each host thread's end)
    "::mlir::FloatAttr":$host_tail_us,
    // framework op: its transformer block
    "::mlir::IntegerAttr":$layer,
    // framework op of a training step: the number a forward op shares with
    // the backward op autograd runs for it (--perf-synthesize-training
    // writes both), so that a layout pass lays the backward op out as it
    // laid out its forward op
    "::mlir::IntegerAttr":$autograd_pair,
    // framework op: its mixture-of-experts expert
    "::mlir::IntegerAttr":$expert,
    // framework op: part of a mixture-of-experts router, whose weights every
    // tensor-parallel rank holds whole (Megatron-LM's router is not split)
    "::mlir::UnitAttr":$router,
    // framework op: the parameters it owns
    "::mlir::IntegerAttr":$params,
    // graph: parameters of the step (or a device's)
    "::mlir::IntegerAttr":$parameters,
    // backward op or graph: gradient bytes
    "::mlir::IntegerAttr":$grad_bytes,
    // framework op: a dropout the training step keeps
    "::mlir::UnitAttr":$training_dropout,
    // framework op: its result is a layer's key or value cache, kept after
    // the step for the next one to read; the value is the bytes of the
    // cache it extends, held from the step's start until it runs
    "::mlir::IntegerAttr":$kv_cache,
    // module: the config.json it was imported from
    "::mlir::StringAttr":$model_config,
    // graph: the host launches the whole step as one CUDA graph (a serving
    // engine's captured step): no op pays its framework and launch costs,
    // the step pays one graph launch
    "::mlir::UnitAttr":$cuda_graph,
    // graph: the batch --perf-resize-batch set
    "::mlir::IntegerAttr":$batch,
    // graph: parallel branches --perf-assign-streams found
    "::mlir::IntegerAttr":$branches,
    // kernel: the kernels fused into it
    "::mlir::ArrayAttr":$fused,
    // fused embedding op: how many ops it replaced
    "::mlir::IntegerAttr":$fused_ops,
    // graph: element-wise kernels fused away
    "::mlir::IntegerAttr":$fused_elementwise,
    // graph: conv+bias+activation groups fused
    "::mlir::IntegerAttr":$fused_conv_bias_act,
    // kernel: the factor --perf-resize-extent applied to a measured time
    "::mlir::FloatAttr":$latency_scale,
    // graph: the data-parallel degree
    "::mlir::IntegerAttr":$data_parallel,
    // graph: the tensor-parallel degree
    "::mlir::IntegerAttr":$tensor_parallel,
    // graph: Megatron sequence parallelism
    "::mlir::UnitAttr":$sequence_parallel,
    // graph: forward and backward all-reduces of tensor parallelism
    "::mlir::DenseI64ArrayAttr":$tp_all_reduces,
    // op: already split by tensor parallelism
    "::mlir::UnitAttr":$tp_split,
    // graph: the pipeline's stages, micro-batches, schedule, chunks, sends
    // and stride (device ids between stages)
    "::mlir::DictionaryAttr":$pipeline_parallel,
    // op: its pipeline stage
    "::mlir::IntegerAttr":$stage,
    // op: its interleaved pipeline chunk
    "::mlir::IntegerAttr":$chunk,
    // op: its micro-batch
    "::mlir::IntegerAttr":$microbatch,
    // gradient all-reduce: its bucket
    "::mlir::IntegerAttr":$bucket,
    // graph: the ZeRO stage
    "::mlir::IntegerAttr":$zero,
    // graph: the expert-parallel degree
    "::mlir::IntegerAttr":$expert_parallel,
    // framework op: an all_to_all of expert parallelism (a layer's dispatch
    // of tokens to their experts' devices, or the combine back)
    "::mlir::UnitAttr":$expert_exchange,
    // graph: the activation recomputation granularity
    "::mlir::StringAttr":$recompute,
    // op: a recomputed forward op
    "::mlir::UnitAttr":$recomputed,
    // embedding op: the device of its shard
    "::mlir::IntegerAttr":$shard,
    // graph: how --perf-shard-embeddings placed the tables
    "::mlir::DictionaryAttr":$embedding_shards,
    // collective: the algorithm that priced it
    "::mlir::StringAttr":$algorithm,
    // collective: the NCCL protocol that priced it
    "::mlir::StringAttr":$protocol,
    // collective: devices sharing its host link
    "::mlir::IntegerAttr":$host_link_share,
    // graph: the PAI breakdown
    "::mlir::DictionaryAttr":$pai,
    // graph: the PAI architecture
    "::mlir::DictionaryAttr":$pai_architecture
  );
}

class Perf_Op<string mnemonic, list<Trait> traits = []>
    : Op<Perf_Dialect, mnemonic, traits>;

#endif // PERF_DIALECT_PERFDIALECT_TD
