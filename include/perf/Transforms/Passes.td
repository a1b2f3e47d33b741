//===- Passes.td - perf transform and analysis passes ------*- tablegen -*-===//

#ifndef PERF_TRANSFORMS_PASSES_TD
#define PERF_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Every perf pass reads or writes perf ops and attributes: the dialect is
// loaded before it runs, also on a module that holds none yet (an empty file).
class PerfPass<string arg, string op> : Pass<arg, op> {
  let dependentDialects = ["::perf::PerfDialect"];
}

def SetTarget : PerfPass<"perf-set-target", "::perf::GraphOp"> {
  let summary = "Sets the target GPU of every perf.graph";
  let description = [{
    Replaces the `target` of every graph with a catalog GPU (`device=H100`)
    or one read from a device JSON file (`device-file=gpu.json`). perf-opt's
    `--perf-device` and `--perf-device-file` run this pass first.
  }];
  let options = [
    Option<"device", "device", "std::string", "\"\"",
           "Catalog GPU name (see docs/devices.md)">,
    Option<"deviceFile", "device-file", "std::string", "\"\"",
           "Device JSON file">,
  ];
}

def KernelCost : PerfPass<"perf-kernel-cost", "::mlir::ModuleOp"> {
  let summary = "Prices every kernel with the chosen latency models";
  let description = [{
    Writes `perf.latency_us` and `perf.cost_model` on every kernel. Models
    are tried in the order given by `models` (or its alias `model`); the
    first that prices a kernel wins. The roofline is
    max(FLOPs / (peak * compute-efficiency), bytes / (bandwidth * memory-efficiency)).

    Measured kernels keep their latency, unless the graph was measured on
    another GPU than its target (`perf.measured_on`): then each is priced as
    measured x (target / source) by `retarget` (`shrunk`, the default: the
    target's price times (measured / source price)^w, w per kernel kind from
    the model folder's retarget.json, 1 where it names none, and the ratio
    without such a file; `ratio`: the same stack's prices on both GPUs;
    `wave`: Habitat's wave scaling),
    keeps the measured
    time in `perf.measured_latency_us`, and the graph's `perf.retarget`
    counts the kernels moved and those no model priced (kept as measured).

    The models load once, when the pass is initialized (before any pass
    runs: a missing model folder or database is the first error), and
    every graph of the module shares them. Each distinct kernel of a graph
    is priced once, the distinct ones in
    parallel on the context's threads (`--mlir-disable-threading` prices
    them one after another); the prices are written in program order, so
    the module is the same whatever the thread count.
  }];
  let options = [
    Option<"models", "models", "std::string", "\"roofline\"",
           "Comma-separated model order, e.g. db,ml,tile,heuristic,roofline">,
    Option<"model", "model", "std::string", "\"\"",
           "Alias of `models`">,
    Option<"computeEfficiency", "compute-efficiency", "double", "0.7",
           "Achievable fraction of peak FLOP/s">,
    Option<"memoryEfficiency", "memory-efficiency", "double", "0.8",
           "Achievable fraction of peak memory bandwidth">,
    Option<"database", "db", "std::string", "\"\"",
           "Performance database (SQLite) for the db model">,
    Option<"mlModelDir", "ml-dir", "std::string", "\"\"",
           "Directory of trained models for the ml model">,
    Option<"retarget", "retarget", "std::string", "\"shrunk\"",
           "How measured kernels move to another GPU: shrunk (default: the "
           "ratio with the source's deviation from the model weighted by "
           "the model folder's retarget.json), ratio (the stack's prices on "
           "both) or wave (Habitat's wave scaling)">,
  ];
}

def HostOverhead : PerfPass<"perf-host-overhead", "::perf::GraphOp"> {
  let summary = "Attaches the T1-T5 host overheads to every op and launch";
  let description = [{
    Writes `perf.overhead_us = array<f64: T1, T2, T3, T5>` on every perf.op
    and `perf.launch_us` (T4) on every kernel, from a JSON table
    (docs/host-overheads.md) or built-in defaults, times `scale` (a faster
    or slower host than the one the table was measured on). A table that
    records the driver's launch queue (`launch_queue_depth`) puts it on the
    graph as `perf.launch_queue_depth`, which the critical path honours.

    `launch` says how the host runs the step: `eager` launches every kernel
    itself, op by op; `cuda-graph` replays a captured graph (PyTorch's
    torch.cuda.CUDAGraph, `torch.compile(mode="reduce-overhead")`, a
    serving engine's decode): one `cudaGraphLaunch` on the first op, no
    other host time, the kernels back to back; `auto` (the default) is
    `cuda-graph` for a graph marked `perf.cuda_graph` and `eager` otherwise.
  }];
  let options = [
    Option<"table", "table", "std::string", "\"\"",
           "Overhead table (JSON); built-in defaults when empty">,
    Option<"scale", "scale", "double", "1.0",
           "Factor on every overhead (host time on another host)">,
    Option<"launch", "launch", "std::string", "\"auto\"",
           "How the host launches the step: auto (cuda-graph where the "
           "graph is marked perf.cuda_graph), eager or cuda-graph">,
  ];
}

def CriticalPath : PerfPass<"perf-critical-path", "::mlir::ModuleOp"> {
  let summary = "Computes start/end times and the end-to-end step time";
  let description = [{
    Walks each graph once (Algorithm 1 of Lin et al., generalized to a host
    thread per device, in-order streams, cross-stream data dependencies,
    syncs and collectives) and records `perf.start_us`/`perf.end_us` on every
    op and kernel and `perf.estimate` on the graph. A `perf.repeat` is
    walked as its copies, one after the other, without cloning its body;
    the critical path numbers kernels in that unrolled order, and an op in
    a repeat shows its last copy's times.
  }];
  let options = [
    Option<"kernelGap", "kernel-gap-us", "double", "1.0",
           "Gap between back-to-back kernels on one stream">,
    Option<"annotate", "annotate", "bool", "true",
           "Write perf.start_us/perf.end_us on every op and kernel (the "
           "graph's perf.estimate is always written)">,
    Option<"iterations", "iterations", "unsigned", "1",
           "Steps walked back to back, each starting from the host and "
           "stream clocks the previous one left; above 1, perf.estimate "
           "gets the last step's time as steady_state_us">,
    Option<"timeline", "timeline", "std::string", "\"\"",
           "Also write the schedule as Chrome Trace Event JSON to this file "
           "(Perfetto, chrome://tracing; docs/timeline.md)">,
    Option<"launchList", "launch-list", "std::string", "\"\"",
           "Also write every graph's launches in order (kernels with their "
           "database keys, streams and cross-stream waits, collectives, "
           "syncs, predicted times) to this JSON file: what a harness "
           "replays to measure the step (docs/estimate.md)">,
  ];
}

def Report : PerfPass<"perf-report", "::mlir::ModuleOp"> {
  let summary = "Prints the estimate of every graph";
  let description = [{
    Prints each graph's step time, critical path, per-kind times and memory
    (`format = "text"` or `"json"`) to `output`. With `kernel-list`, it also
    writes the distinct kernels of every graph as
    `{"schema": "perf.kernel_list/1", "kernels": [{"device", "dtype",
    "kind", "signature", "count"}, ...]}`: the key the `db` model looks up
    (docs/perf-db.md) and how many kernel ops share it, in first-seen order.
    `perf-bench --from` measures that list (docs/runtime-bench.md).
  }];
  let options = [
    Option<"format", "format", "std::string", "\"text\"",
           "text or json">,
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write the report ('-' is stdout)">,
    Option<"kernelList", "kernel-list", "std::string", "\"\"",
           "Also write every distinct kernel of the graphs (device, dtype, "
           "kind, signature, count) to this JSON file: the list "
           "perf-bench --from measures">,
  ];
}

//===----------------------------------------------------------------------===//
// Distributed training (docs/distributed.md)
//===----------------------------------------------------------------------===//

def CommCost : PerfPass<"perf-comm-cost", "::perf::GraphOp"> {
  let summary = "Prices every collective with NCCL's cost model";
  let description = [{
    Writes `perf.latency_us`, `perf.cost_model = "nccl"`, `perf.algorithm`
    and `perf.protocol` on every collective and send/recv, from
    lib/Comm/CollectiveModel (NCCL's tuner over the group's topology, then
    the system's calibration) over the system given by `system` (a preset
    name or a system JSON file). Without `system`, a single node of the
    graph's GPU is assumed, NVLink-connected when the GPU has NVLink, PCIe
    otherwise. A collective's own `algorithm` attribute overrides the option.
    Parameter-server transfers and shared host copies keep the alpha-beta
    model of the PAI study (`perf.cost_model = "alpha-beta"`).
  }];
  let options = [
    Option<"system", "system", "std::string", "\"\"",
           "System preset (dgx-a100, dgx-h100, pcie-a100, pai-v100-25gbe) or "
           "system JSON file; empty: one node of the graph's GPU">,
    Option<"algorithm", "algorithm", "std::string", "\"auto\"",
           "auto (NCCL's tuner), ring, tree, collnet_direct, collnet_chain, "
           "nvls, nvls_tree or pat">,
    Option<"protocol", "protocol", "std::string", "\"auto\"",
           "auto (NCCL's tuner), LL, LL128 or Simple">,
  ];
}

def UnrollRepeat : PerfPass<"perf-unroll-repeat", "::perf::GraphOp"> {
  let summary = "Writes every perf.repeat out as its copies";
  let description = [{
    Replaces each `perf.repeat` (innermost first) by `count` clones of its
    body, the first reading the initial values and each next one what the
    one before yields. The cost and timing passes and the report read
    repeats as they are, so a step written with repeats is estimated
    without this pass; the passes that rewrite a graph op by op (fusion,
    parallelism, training synthesis, ...) refuse a repeat and need it first.
  }];
}

def DataParallel : PerfPass<"perf-data-parallel", "::perf::GraphOp"> {
  let summary = "Adds bucketed gradient all_reduces for data parallelism";
  let description = [{
    Models one replica (device 0) of `devices` symmetric replicas. Gradients
    are gathered into buckets of `bucket-mb` MiB in backward order; each
    bucket's all_reduce over devices 0..N-1 runs on stream 1 right after the
    backward op that completes the bucket, so the critical path overlaps it
    with the rest of the backward pass. A sync on stream 1 precedes the first
    optimizer op. Gradient bytes are an op's `perf.grad_bytes`, else the
    weight size of its wgrad GEMMs and convolutions.
  }];
  let options = [
    Option<"devices", "devices", "int64_t", "2", "Data-parallel replicas">,
    Option<"stride", "stride", "int64_t", "0",
           "Device distance between replicas (0: a whole pipeline apart, "
           "stages x the tensor-parallel size, or one TP group apart where "
           "--perf-pipeline-parallel spaced its stages wider than a TP "
           "group): group 0, stride, 2 stride...">,
    Option<"bucketMb", "bucket-mb", "double", "25.0",
           "Gradient bucket size in MiB (PyTorch DDP default: 25)">,
  ];
}

def Recompute : PerfPass<"perf-recompute", "::perf::GraphOp"> {
  let summary = "Activation recomputation: transformer blocks re-run their "
                "forward ops before their backward pass";
  let description = [{
    Activation checkpointing as Megatron-LM runs it, per transformer block
    (`perf.layer`, written by the config and fx importers and kept on the
    backward ops by the training synthesis):

    * `granularity=full`: every forward op of a block is cloned right before
      the block's first backward op, and the backward ops from there on read
      the clones. The forward tensors of the block are then read only in the
      forward pass and die there; what stays from forward to backward is
      each block's input (the checkpoint).
    * `granularity=selective`: only the core attention is recomputed, the
      ops from the block's first weight-free GEMM (Q x K^T) to its second
      (scores x V) inclusive: the [batch, heads, seq, seq] tensors, which
      cost the most memory for the least compute. Blocks with fused
      attention (no weight-free GEMM pair) recompute nothing.

    Clones keep their kernels and attributes and carry `perf.recomputed`;
    the memory analysis does not count their weights again and
    `--perf-zero=stage=3` gathers a block's weights before them. Run it on
    the single-device training graph, before the parallelism passes (tensor
    parallelism then splits the clones as it splits the forward ops).
  }];
  let options = [
    Option<"granularity", "granularity", "std::string", "\"full\"",
           "full (every forward op of a block) or selective (core "
           "attention)">,
  ];
}

def ZeroRedundancy : PerfPass<"perf-zero", "::perf::GraphOp"> {
  let summary = "Shards optimizer state, gradients and weights over the "
                "data-parallel replicas (ZeRO stages 1-3)";
  let description = [{
    Runs after `--perf-data-parallel` and changes what its replicas keep
    and exchange, as DeepSpeed's ZeRO (and PyTorch FSDP) does:

    * stage 1: each replica updates and keeps the optimizer state of 1/N of
      the weights. Each gradient bucket is reduce-scattered instead of
      all-reduced (same bytes, same place in the backward pass), the
      optimizer step updates 1/N of the elements, and an all_gather of the
      updated weights (their full size) follows it on the compute stream.
    * stage 2: as stage 1, and each replica keeps only its 1/N of the
      gradients.
    * stage 3: weights are sharded too. Each transformer block
      (`perf.layer`) is a unit, as FSDP's transformer wrapping makes one;
      the ops outside every block form the root unit. A unit's weights are
      all-gathered before its first forward op and again before its first
      backward op (the root's stay gathered from forward to backward), and
      its gradients reduce-scattered after its last backward op, on the
      data-parallel stream; the ops that read the weights wait for the
      gather, which the memory analysis sees as a tensor alive while they
      run. The optimizer updates 1/N of the elements; no all_gather follows.
      A graph without `perf.layer` is one root unit: the whole model is
      gathered at once (FSDP without a wrapping policy).

    The graph records the stage as `perf.zero`; the memory analysis divides
    optimizer state (stage >= 1), gradients (>= 2) and weights (3) by N and
    counts one bucket, the largest reduce-scatter, instead of DDP's copy of
    every gradient. DeepSpeed runs stages 2 and 3 without pipeline
    parallelism, and so does this pass.
  }];
  let options = [
    Option<"stage", "stage", "int64_t", "1", "ZeRO stage: 1, 2 or 3">,
  ];
}

def ExpertParallel : PerfPass<"perf-expert-parallel", "::perf::GraphOp"> {
  let summary = "Spreads a mixture-of-experts model's experts over `devices` "
                "GPUs (expert parallelism)";
  let description = [{
    As GShard, Switch Transformers and DeepSpeed-MoE run it: each of the
    `devices` GPUs holds E/N of every mixture-of-experts layer's E experts
    and runs the rest of the model on its own tokens. The ops of each expert
    carry `perf.expert` (the config importer marks a Switch-Transformers
    router's experts). One device is modeled, device 0, which holds experts
    0 .. E/N-1 (expert 0 is the one a skewed router fills, so device 0 is the
    one the step waits for):

    * the other devices' expert ops, forward and backward, and their host
      syncs are removed, and the optimizer updates device 0's weights only;
    * device 0's experts run the tokens every device routes to them: their
      kernels and tensors are resized from one device's tokens (the first
      GEMM's m) to N times as many;
    * around each layer's experts, an `ep::dispatch` all_to_all sends every
      device's tokens to the devices of their experts and an `ep::combine`
      all_to_all returns them (the backward pass sends the gradients the
      same two ways). Each device sends an expert's device the bytes of the
      tokens it routes there (tokens x hidden size x element size); when the
      experts' shares differ (`--expert-routing=single`), the all_to_all
      carries them as `split_bytes`.

    Runs before the tensor, pipeline and data-parallel passes, and marks its
    all_to_alls `perf.expert_exchange`. After it,
    `--perf-tensor-parallel=devices=T` splits the experts over the TP ranks
    as it splits the dense MLPs (Megatron-LM's expert tensor parallelism
    equal to TP) and moves device 0's expert peers a TP group apart (0, T,
    2T, ...); `--perf-data-parallel=devices=D` (D a multiple of N) reduces
    the experts' gradients over the D/N replicas that hold the same experts,
    in buckets of their own (none when D = N). The graph records N as
    `perf.expert_parallel`.
  }];
  let options = [
    Option<"devices", "devices", "int64_t", "2",
           "GPUs the experts are spread over">,
  ];
}

def TensorParallel : PerfPass<"perf-tensor-parallel", "::perf::GraphOp"> {
  let summary = "Megatron-style tensor parallelism over `devices` GPUs";
  let description = [{
    A forward GEMM that reads a replicated tensor is column-parallel (n / N),
    one that reads a split tensor (the data flow from a column-parallel GEMM
    through the ops between) is row-parallel (k / N); without data-flow
    edges between ops, forward GEMMs alternate column and row in launch
    order; a GEMM without weights (`perf.params = 0`) that reads replicated
    tensors (rotary angles) stays whole. Kernels between a column- and its
    row-parallel GEMM (attention,
    activations) are split N ways; each row-parallel GEMM is followed by an
    all_reduce of its output. In the backward pass every GEMM, attention and
    element-wise kernel the size of a split forward one is split N ways, and
    the `dgrad` GEMM of each column-parallel layer is followed by an
    all_reduce of the input gradient. Device 0 stands for every rank.

    `sequence-parallel=true` adds Megatron's sequence parallelism (Korthikanti
    et al. 2022): the ops outside the column/row regions (layernorm,
    dropout, residual adds) work on 1/N of the sequence, so their kernels
    and tensors are split N ways too; each row-parallel all_reduce becomes a
    reduce_scatter (same bytes) and each column-parallel layer's input is
    all-gathered before it (once per input tensor). The backward pass
    mirrors it: the column layers' input-gradient all_reduces become
    reduce_scatters, each row-parallel layer's output gradient is
    all-gathered before its backward op, and each column-parallel layer's
    input is all-gathered again for its weight gradient. It follows the
    data flow, so the graph must have data-flow edges.

    A mixture-of-experts router (ops marked `perf.router`) runs whole on
    every rank, as Megatron-LM keeps its weights whole, so the experts after
    it read a replicated tensor and each expert's MLP is a column- and a
    row-parallel GEMM like a dense one. After `--perf-expert-parallel` its
    all_to_alls (`perf.expert_exchange`) move to device 0's expert peers a
    TP group apart (Megatron forms expert groups from the data-parallel
    ranks, TP innermost); under sequence parallelism each rank exchanges its
    1/N of the tokens.
  }];
  let options = [
    Option<"devices", "devices", "int64_t", "2", "Tensor-parallel ranks">,
    Option<"sequenceParallel", "sequence-parallel", "bool", "false",
           "Split the ops between the tensor-parallel regions along the "
           "sequence (Megatron's sequence parallelism)">,
  ];
}

def PipelineParallel : PerfPass<"perf-pipeline-parallel", "::perf::GraphOp"> {
  let summary = "Splits a graph into pipeline stages over `devices` GPUs";
  let description = [{
    The input graph is one micro-batch. Forward ops are cut into `devices`
    contiguous stages of about equal device time (`balance=time`: each
    kernel's perf.latency_us where priced, else its roofline time at peak on
    the graph's GPU; `balance=flops`: FLOPs), backward ops into the mirror
    stages; stage s runs on device s. The graph is rewritten into
    `microbatches` copies ordered by `schedule` (gpipe: all forwards, then
    all backwards; 1f1b: warm-up forwards, then one forward / one backward),
    with a send of the boundary activations (gradients) between stages on
    a stream per link direction (1 + 2 min(s, t) + (t < s)). Ops after the
    last backward op (the optimizer) run on every stage over the stage's
    share of the parameters (what its forward ops declare in perf.params;
    1/N where none declare any), after a sync of that stage.

    After tensor parallelism stage s runs on the TP group starting at
    device s x `stride`; the default stride, the TP size, puts the stages
    side by side (rank order tp-pp-dp: the data-parallel replicas a whole
    pipeline apart). `stride` = TP x DP size is Megatron-LM's default order
    (tp-dp-pp: its data-parallel groups fill the gaps, and
    --perf-data-parallel then puts its peers a TP group apart), which keeps
    the gradient all_reduces inside a node where a stage fits in one.

    `chunks=v` above 1 is Megatron-LM's interleaved 1F1B (Narayanan et al.
    2021, "virtual pipeline stages"): the model is cut into devices x v
    chunks, chunk c runs on device c mod devices, and each device runs its
    v chunks in Megatron's order (warm-up forwards (devices - d - 1) x 2 +
    (v - 1) x devices, then one forward / one backward), which shrinks the
    bubble from (devices - 1) / microbatches of the step to (devices - 1) /
    (microbatches x v) at the price of v times the sends. It needs the 1f1b
    schedule and microbatches divisible by devices, as Megatron does.
  }];
  let options = [
    Option<"devices", "devices", "int64_t", "2", "Pipeline stages">,
    Option<"microbatches", "microbatches", "int64_t", "0",
           "Micro-batches per step (0: 2 x devices)">,
    Option<"schedule", "schedule", "std::string", "\"1f1b\"",
           "gpipe or 1f1b">,
    Option<"chunks", "chunks", "int64_t", "1",
           "Model chunks per device: above 1, interleaved 1F1B">,
    Option<"balance", "balance", "std::string", "\"time\"",
           "What stages are balanced on: time or flops">,
    Option<"stride", "stride", "int64_t", "0",
           "Device ids between consecutive stages (0: the tensor-parallel "
           "size, stages side by side; the TP x DP size is Megatron-LM's "
           "default rank order)">,
  ];
}

def ShardEmbeddings : PerfPass<"perf-shard-embeddings", "::mlir::ModuleOp"> {
  let summary = "Places embedding tables across GPUs with all_to_all";
  let description = [{
    DLRM-style model parallelism: every table of every embedding_bag kernel
    is placed on one of `devices` GPUs by `strategy` (size: balance table
    bytes; lookup: balance lookups; greedy: balance bytes read per step,
    largest first). Each device looks up the whole batch for its tables;
    an all_to_all exchanges pooled embeddings after the forward lookups and
    their gradients before the backward ones. Prints the per-device load.
  }];
  let options = [
    Option<"devices", "devices", "int64_t", "2", "GPUs holding tables">,
    Option<"strategy", "strategy", "std::string", "\"greedy\"",
           "size, lookup or greedy">,
    Option<"output", "output", "std::string", "\"-\"",
           "Where to print the per-device load ('-' is stdout, '' none)">,
  ];
}

def PaiBreakdown : PerfPass<"perf-pai-breakdown", "::mlir::ModuleOp"> {
  let summary = "Prints the PAI breakdown T_d / T_c / T_w of every graph";
  let description = [{
    The analytical model of Wang et al. (Alibaba PAI, IISWC 2019, Sec. II-B):
    T_d = input bytes / PCIe, T_c = FLOPs of compute-bound kernels / peak +
    bytes of memory-bound kernels / HBM, T_w = weight traffic / the link of
    the architecture, all at 70% of nominal, for each device (a cNode; the
    weights counted once per step, not per micro-batch); the slowest device
    is reported. Prints the no-overlap sum next to the critical-path
    estimate when --perf-critical-path ran first, and stores the numbers in
    `perf.pai` on the graph.
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"allreduce-local\"",
           "1w1g, 1wng, ps-worker, allreduce-local or allreduce-cluster">,
    Option<"workers", "workers", "int64_t", "8", "Model replicas (cNodes)">,
    Option<"system", "system", "std::string", "\"pai-v100-25gbe\"",
           "System preset or JSON file giving PCIe, NVLink and Ethernet">,
    Option<"inputBytes", "input-bytes", "double", "-1",
           "Input bytes per step per replica (-1: the h2d copies)">,
    Option<"efficiency", "efficiency", "double", "0.7",
           "Fraction of every nominal capacity achieved">,
    Option<"output", "output", "std::string", "\"-\"",
           "Where to print ('-' is stdout, '' none)">,
  ];
}

//===----------------------------------------------------------------------===//
// Training synthesis, fusion, streams and Benanza's lower bounds
// (docs/transforms.md)
//===----------------------------------------------------------------------===//

def SynthesizeTraining
    : PerfPass<"perf-synthesize-training", "::perf::GraphOp"> {
  let summary = "Turns an inference graph into one training step";
  let description = [{
    Appends the backward pass, in reverse order of the forward ops, and the
    optimizer update, and sets the graph's phase to "training". A forward
    op that has parameters or an input needing a gradient gets a backward
    op "<name>.backward" whose kernels are: a gradient accumulation when its
    output feeds several ops, then per forward kernel its backward kernels
    (conv2d: dgrad + wgrad; gemm: two GEMMs; element-wise, pooling,
    batchnorm, softmax, layernorm, transpose/concat: one `bwd` kernel).
    dgrad kernels are left out where no input needs a gradient (the first
    layer). Parameters are read from `perf.params` or `onnx.params`; without
    either, conv2d filters, GEMM B operands (when the op is not from ONNX)
    and batchnorm scale/shift are parameters. Each backward op records its
    gradient bytes in `perf.grad_bytes`; the graph records the totals in
    `perf.grad_bytes` and `perf.parameters`.

    With `master-weights`, FP16/BF16 weights train as mixed-precision
    frameworks train them: their gradients are FP32 (4 bytes a weight), the
    optimizer updates an FP32 copy it keeps (`master_weights` on the
    perf.optimizer kernel, f32), and an element-wise kernel writes the
    updated copy back to the model's weights (an FP32 read and a 16-bit
    write per weight). FP32 weights train as without it.
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", "\"sgd\"",
           "sgd (with momentum), adam, or none (no update step)">,
    Option<"perLayer", "per-layer", "bool", "false",
           "One optimizer kernel per parameterized op instead of one "
           "multi-tensor kernel over all parameters">,
    Option<"masterWeights", "master-weights", "bool", "false",
           "Mixed precision with FP32 master weights (Megatron-LM, "
           "DeepSpeed, apex O2) for FP16/BF16 weights: FP32 gradients, the "
           "update on an FP32 copy, and a copy back to the model">,
  ];
}

def FuseConvBiasAct : PerfPass<"perf-fuse-conv-bias-act", "::perf::GraphOp"> {
  let summary = "Fuses conv2d + bias add + activation into one conv kernel";
  let description = [{
    Benanza's conv-bias-activation pattern (cudnnConvolutionBiasActivation-
    Forward): a forward conv2d followed, in the same op or in single-use
    successor ops, by an element-wise bias add and/or an activation (relu,
    sigmoid, tanh, clip) of the same size becomes the conv2d alone, marked
    `perf.fused = ["bias", "relu"]`. The element-wise kernels are removed;
    ops left without kernels stay as kernel-less perf.ops so data
    dependencies are unchanged.
  }];
}

def FuseElementwise : PerfPass<"perf-fuse-elementwise", "::perf::GraphOp"> {
  let summary = "Fuses chains of element-wise kernels into one kernel";
  let description = [{
    A chain of forward element-wise kernels of the same size, consecutive in
    one op or across ops linked by single-use tensors, becomes one kernel:
    FLOPs per element add up, inputs are the chain's external inputs, and
    the intermediate tensors are neither written nor read again. The fused
    kernel records its parts in `perf.fused`.
  }];
}

def AssignStreams : PerfPass<"perf-assign-streams", "::perf::GraphOp"> {
  let summary = "Puts independent branches of the graph on separate streams";
  let description = [{
    Splits the op DAG into branches: chains where an op is the only consumer
    of its single producer. A branch that starts at a fork (a tensor with
    several consumers) gets the next of `streams` streams, round-robin; the
    main chain keeps stream 0. Kernels of the op are moved to its branch's
    stream. The critical path then overlaps branches, waiting for data
    dependencies across streams.
  }];
  let options = [
    Option<"streams", "streams", "int64_t", "4", "Streams per device">,
  ];
}

def LowerBound : PerfPass<"perf-lower-bound", "::mlir::ModuleOp"> {
  let summary = "Benanza's per-layer analysis and lower-bound latencies";
  let description = [{
    Prints, per graph: each layer's (perf.op's) kernels, MACs, FLOPs, bytes
    and latency; the model totals; the unique layers (deduplicated by kernel
    kind and signature); the sequential lower bound (sum of kernel
    latencies) and the parallel lower bound (critical path of the op DAG
    with zero host overheads and every op on its own stream), with the
    critical path. Kernels must be priced (--perf-kernel-cost) first.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"text\"", "text or json">,
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write the report ('-' is stdout)">,
    Option<"layers", "layers", "bool", "true",
           "Print the per-layer table (text format)">,
  ];
}

//===----------------------------------------------------------------------===//
// Transforms of imported traces and what-if questions (docs/traces.md)
//===----------------------------------------------------------------------===//

def FuseEmbeddings : PerfPass<"perf-fuse-embeddings", "::perf::GraphOp"> {
  let summary = "Replaces groups of embedding_bag ops by one batched lookup";
  let description = [{
    Figure 11 of Lin et al.: consecutive framework ops that each launch one
    `perf.embedding_bag` with the same pass, dim, batch, dtype, device and
    stream become one `perf.op "batched_embedding_bag"` launching a single
    kernel over all their tables (`tables` = the sum, `rows` and `pooling`
    the table-weighted means). The fused op takes the union of the operands
    and yields all the results, so data dependencies are kept; it sits
    where the last member was, and members whose results are used before
    that point start a new group. The old estimate, when present, is kept
    as `perf.baseline_us` for `--perf-compare`.
  }];
  let options = [
    Option<"minGroup", "min-group", "int64_t", "2",
           "Smallest number of lookups worth fusing">,
  ];
}

def ResizeBatch : PerfPass<"perf-resize-batch", "::perf::GraphOp"> {
  let summary = "Rescales the batch dimension of a graph";
  let description = [{
    Replaces the batch size `from` (the graph's `perf.batch`, else the most
    common leading dimension of its tensors) by `batch` in tensor types and
    in kernel sizes: a size equal to the old batch, or a multiple of it
    (batch x sequence, batch x pooling), scales with it; GEMMs scale the
    first of batch, m, n, k that holds the batch (k for weight gradients).
    Optimizer updates and all_reduces (parameters) keep their size.
    Rescaled kernels lose a measured latency and are priced again; measured
    kernels without shapes scale their latency linearly. Also accepted as
    `--perf-resize-batch=N`.
  }];
  let options = [
    Option<"batch", "batch", "int64_t", "0", "New batch size">,
    Option<"from", "from", "int64_t", "0",
           "Old batch size (0: perf.batch, else inferred from the tensors)">,
  ];
}

def Compare : PerfPass<"perf-compare", "::mlir::ModuleOp"> {
  let summary = "Prints the estimate against the baseline and the measurement";
  let description = [{
    For every estimated graph prints the predicted step time, the estimate
    before the transforms (`perf.baseline_us`, recorded by perf-fuse-embeddings
    and perf-resize-batch when an estimate ran before them) with the change, and
    the measured iteration time of an imported trace (`perf.measured_us`)
    with the relative error of the prediction.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"text\"", "text or json">,
    Option<"output", "output", "std::string", "\"-\"",
           "Where to write ('-' is stdout)">,
  ];
}

def PaiArchitecture : PerfPass<"perf-pai-architecture", "::perf::GraphOp"> {
  let summary = "Rewrite a training step for a PAI architecture: PS/Worker, "
                "AllReduce-Local or AllReduce-Cluster, with input I/O";
  let description = [{
    The architectures of Wang et al., "Characterizing Deep Learning Training
    Workloads on Alibaba-PAI" (IISWC 2019) as graph rewrites the critical
    path times. Input I/O: a `pai::input` op copying `input-bytes` host to
    device first (priced over the system's host PCIe, shared by the job's
    GPUs of a server). PS/Worker: `ps` parameter servers (device ids after the
    system's GPUs) send the weights before the forward pass (`pai::pull`) and
    receive the gradients after the backward pass (`pai::push`); the worker's
    optimizer ops go (the servers apply the update). AllReduce-Local: one
    ring all_reduce of the gradients inside one server. AllReduce-Cluster: one
    all_reduce over `workers` GPUs, `gpus-per-node` a server, run as NCCL's
    tuner picks (its ring, or its tree: a chain inside each server, a double
    binary tree across).
    One replica (device 0) is modeled; `perf.pai_architecture` on the graph
    tells --perf-comm-cost how to price the parameter-server links.
  }];
  let options = [
    Option<"arch", "arch", "std::string", "\"allreduce-local\"",
           "ps-worker, allreduce-local or allreduce-cluster">,
    Option<"workers", "workers", "int64_t", "8", "Model replicas (GPUs)">,
    Option<"ps", "ps", "int64_t", "0",
           "Parameter servers (ps-worker; 0: one per worker)">,
    Option<"gpusPerNode", "gpus-per-node", "int64_t", "0",
           "Workers per server (0: 1 for ps-worker, else as many as fit)">,
    Option<"system", "system", "std::string", "\"pai-v100-25gbe\"",
           "Preset or system JSON (places the workers on servers)">,
    Option<"inputBytes", "input-bytes", "int64_t", "0",
           "Input bytes a step copies host to device (0: no input op)">,
  ];
}

#endif // PERF_TRANSFORMS_PASSES_TD
