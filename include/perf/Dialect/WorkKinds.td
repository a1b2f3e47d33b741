//===- WorkKinds.td - Every kind of device work, once ---------*- tablegen -*-===//
//
// Each kernel, copy and collective a perf.op can launch, with its
// attributes, how it reads as a KernelDesc, its FLOPs and bytes and its
// perf database signature (WorkKindBase.td says what each field means).
// A new kind is a definition here (last: the order is the bytecode's
// numbering), its cost where the roofline of its FLOPs and bytes is not
// enough (lib/CostModel), its importer rules and its perf-bench rule.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_DIALECT_WORKKINDS_TD
#define PERF_DIALECT_WORKKINDS_TD

include "perf/Dialect/WorkKindBase.td"

// The attributes of every kernel and collective, read through WorkAttr
// itself (getDeviceId, getStreamId, getDtype) rather than a kind's view.
def WorkAttrOwned {
  list<string> names = ["dtype", "device", "stream"];
}

// The attributes every kernel takes besides its kind's own.
def KernelCommon {
  dag fields = (ins Optional<ElementType>:$dtype,
                    Default<Placement, "0">:$device,
                    Default<Placement, "0">:$stream,
                    Text:$kernel_name,
                    Default<PassKind, "::perf::TrainingPass::Fwd">:$pass,
                    Flag:$tensor_cores);
}

// The attributes every collective takes.
def CollectiveCommon {
  dag fields = (ins Count:$bytes, DeviceList:$group,
                    Optional<ElementType>:$dtype,
                    Default<Placement, "0">:$device,
                    Default<Placement, "0">:$stream,
                    Optional<NcclKind>:$algorithm);
}

//===----------------------------------------------------------------------===//
// Kernels and copies
//===----------------------------------------------------------------------===//

def Gemm : KernelKind<"gemm", "Gemm"> {
  let summary = "Batched matrix multiply: batch x (m x k) * (k x n)";
  let fields = (ins Default<Size, "1">:$batch, Size:$m, Size:$n, Size:$k,
                    Flag:$trans_a, Flag:$trans_b);
  let tensorCores = 1;
  let flops = "return 2.0 * b * d.m * d.n * d.k;";
  let bytes = [{
    return e * b * (double(d.m) * d.k + double(d.k) * d.n + double(d.m) * d.n);
  }];
  let validSizes = "return positive({d.batch, d.m, d.n, d.k});";
  let signature = [IntKey<"b", "batch">, IntKey<"m", "m">, IntKey<"n", "n">,
                   IntKey<"k", "k">, FlagKey<"ta", "transA">,
                   FlagKey<"tb", "transB">];
}

def Conv2d : KernelKind<"conv2d", "Conv2d"> {
  let summary = "2-D convolution, NCHW input n x c x h x w, KCRS filter";
  let fields = (ins As<Size, "batch">:$n, Size:$c, Size:$h, Size:$w,
                    As<Size, "outChannels">:$k, Size:$r, Size:$s,
                    Default<PositivePair, "1, 1">:$stride,
                    Default<NonNegativePair, "0, 0">:$pad,
                    Default<PositivePair, "1, 1">:$dilation,
                    Default<Size, "1">:$groups);
  let tensorCores = 1;
  let verify = [{
    if (work.getC() % work.getGroups() != 0 ||
        work.getK() % work.getGroups() != 0)
      return error() << "'groups' (" << work.getGroups()
                     << ") must divide c and k";
    if (failed(verifyPassIn(error, work, {TrainingPass::Fwd,
                                          TrainingPass::Dgrad,
                                          TrainingPass::Wgrad})))
      return failure();
    KernelDesc d = work.getKernelDesc();
    if (d.outH() <= 0 || d.outW() <= 0)
      return error() << "output is empty: filter larger than padded input";
    return success();
  }];
  // 2 * N * K * P * Q * (C / groups) * R * S; dgrad and wgrad do the same
  // number of multiply-adds as the forward pass.
  let flops = [{
    double g = std::max<int64_t>(d.groups, 1);
    return 2.0 * b * d.outChannels * d.outH() * d.outW() * (d.c / g) * d.r *
           d.s;
  }];
  let bytes = [{
    double g = std::max<int64_t>(d.groups, 1);
    double in = b * d.c * d.h * d.w;
    double filter = double(d.outChannels) * (d.c / g) * d.r * d.s;
    double out = b * d.outChannels * d.outH() * d.outW();
    return e * (in + filter + out);
  }];
  let validSizes = [{
    if (!positive({d.batch, d.c, d.h, d.w, d.r, d.s, d.strideH, d.strideW,
                   d.outChannels, d.groups, d.dilationH, d.dilationW}) ||
        d.padH < 0 || d.padW < 0 || d.c % d.groups != 0 ||
        d.outChannels % d.groups != 0)
      return false;
    // The padded input must hold the dilated window at least once.
    return d.outH() > 0 && d.outW() > 0;
  }];
  let signature = [IntKey<"n", "batch">, IntKey<"c", "c">, IntKey<"h", "h">,
                   IntKey<"w", "w">, IntKey<"k", "outChannels">,
                   IntKey<"r", "r">, IntKey<"s", "s">,
                   IntKey<"sh", "strideH">, IntKey<"sw", "strideW">,
                   IntKey<"ph", "padH">, IntKey<"pw", "padW">,
                   IntKey<"dh", "dilationH">, IntKey<"dw", "dilationW">,
                   IntKey<"g", "groups">, PassKey];
}

def Elementwise : KernelKind<"elementwise", "Elementwise"> {
  let summary = "Element-wise kernel over `elements` outputs";
  let fields = (ins As<Size, "numElements">:$elements,
                    As<Default<Count, "1">, "numInputs">:$inputs,
                    As<Default<Float, "1.0">, "flopsPerElement">:$flops_per_element,
                    As<Text, "op">:$fn, Flag:$strided);
  let verify = [{
    if (!isFiniteAtLeast(work.getFlopsPerElement(), 0))
      return error() << "'flops_per_element' must be finite and non-negative";
    return success();
  }];
  let flops = "return d.flopsPerElement * d.numElements;";
  let bytes = "return e * d.numElements * (d.numInputs + 1.0);";
  let validSizes = [{
    return positive({d.numElements}) && d.numInputs >= 0 &&
           d.flopsPerElement >= 0;
  }];
  let signature = [IntKey<"n", "numElements">, IntKey<"in", "numInputs">,
                   OpKey<"unknown">, SetFlagKey<"st", "strided">];
  // The transcendental functions' cost, as the importers count it.
  let signatureParsed = [{
    if (d.op == "gelu" || d.op == "tanh" || d.op == "sigmoid")
      d.flopsPerElement = 10;
  }];
}

// The row kernels: rows x cols in, one row at a time.
class RowKernel<string mnemonicName, string cppEnumName>
    : KernelKind<mnemonicName, cppEnumName> {
  let fields = (ins Size:$rows, Size:$cols);
  let bytes = "return 2.0 * e * d.rows * d.cols;";
  let validSizes = "return positive({d.rows, d.cols});";
  let signature = [IntKey<"rows", "rows">, IntKey<"cols", "cols">];
}

def Reduce : RowKernel<"reduce", "Reduce"> {
  let summary = "Row reduction over rows x cols";
  let flops = "return static_cast<double>(d.rows) * d.cols;";
  let bytes = "return e * (double(d.rows) * d.cols + d.rows);";
}

def Softmax : RowKernel<"softmax", "Softmax"> {
  let summary = "Softmax over rows x cols";
  // max, subtract, exp, sum, divide.
  let flops = "return 5.0 * d.rows * d.cols;";
}

def LayerNorm : RowKernel<"layernorm", "LayerNorm"> {
  let summary = "Layer normalization over rows x cols";
  // mean, variance, normalize, scale and shift.
  let flops = "return 8.0 * d.rows * d.cols;";
}

def EmbeddingBag : KernelKind<"embedding_bag", "EmbeddingBag"> {
  let summary = "Pooled embedding lookups over one or more tables";
  let fields = (ins As<Default<Size, "1">, "numTables">:$tables,
                    As<Size, "tableRows">:$rows, Size:$dim, Size:$batch,
                    Default<Size, "1">:$pooling);
  let verify = [{
    return verifyPassIn(error, work, {TrainingPass::Fwd, TrainingPass::Bwd});
  }];
  // One add per looked-up element.
  let flops = "return static_cast<double>(d.numTables) * b * d.pooling * d.dim;";
  // Looked-up rows, the int64 indices and offsets, and the pooled output.
  let bytes = [{
    double lookups = double(d.numTables) * b * d.pooling;
    return e * lookups * d.dim + 8.0 * lookups + 8.0 * d.numTables * b +
           e * d.numTables * b * d.dim;
  }];
  let validSizes = [{
    return positive({d.numTables, d.tableRows, d.dim, d.batch, d.pooling});
  }];
  let signature = [IntKey<"t", "numTables">, IntKey<"rows", "tableRows">,
                   IntKey<"d", "dim">, IntKey<"b", "batch">,
                   IntKey<"l", "pooling">, PassKey];
}

def Memcpy : KernelKind<"memcpy", "Memcpy"> {
  let summary = "Copy of `bytes`; kind is h2d, d2h or d2d";
  let fields = (ins Size:$bytes,
                    Accessor<As<Default<CopyKind, "::perf::CopyDirection::D2D">, "-">,
                             "Direction">:$kind);
  let toDesc = "d.copyKind = toMemcpyKind(work.getDirection());";
  let fromDesc = "w.setDirection(toCopyDirection(d.copyKind));";
  // A copy within the device reads and writes each byte; a copy over the
  // bus moves each once.
  let bytes = [{
    return d.copyKind == MemcpyKind::DeviceToDevice ? 2.0 * d.bytes : d.bytes;
  }];
  let validSizes = "return d.bytes >= 1;";
  let signature = [CopyBytesKey, DirKey];
}

// Kernels that move `elements` elements once.
class MoveKernel<string mnemonicName, string cppEnumName>
    : KernelKind<mnemonicName, cppEnumName> {
  let fields = (ins As<Size, "numElements">:$elements);
  let bytes = "return 2.0 * e * d.numElements;";
  let validSizes = "return positive({d.numElements});";
  let signature = [IntKey<"n", "numElements">];
}

def Transpose : MoveKernel<"transpose", "Transpose"> {
  let summary = "Layout change moving `elements` elements";
}

def Concat : MoveKernel<"concat", "Concat"> {
  let summary = "Concatenation writing `elements` elements";
  let fields = (ins As<Size, "numElements">:$elements, Flag:$strided);
  let signature = [IntKey<"n", "numElements">, SetFlagKey<"st", "strided">];
}

def Pooling : KernelKind<"pooling", "Pooling"> {
  let summary = "Max or average pooling over r x s windows";
  let fields = (ins As<Size, "batch">:$n, Size:$c, Size:$h, Size:$w, Size:$r,
                    Size:$s, Default<PositivePair, "1, 1">:$stride,
                    Default<NonNegativePair, "0, 0">:$pad);
  let flops = "return b * d.c * d.outH() * d.outW() * double(d.r) * double(d.s);";
  let bytes = [{
    return e * b * d.c * (double(d.h) * d.w + double(d.outH()) * d.outW());
  }];
  let validSizes = [{
    if (!positive({d.batch, d.c, d.h, d.w, d.r, d.s, d.strideH, d.strideW}) ||
        d.padH < 0 || d.padW < 0)
      return false;
    return d.outH() > 0 && d.outW() > 0;
  }];
  let signature = [IntKey<"n", "batch">, IntKey<"c", "c">, IntKey<"h", "h">,
                   IntKey<"w", "w">, IntKey<"r", "r">, IntKey<"s", "s">,
                   IntKey<"sh", "strideH">, IntKey<"sw", "strideW">,
                   IntKey<"ph", "padH">, IntKey<"pw", "padW">, PassKey];
}

def BatchNorm : KernelKind<"batchnorm", "BatchNorm"> {
  let summary = "Batch normalization over `elements` values";
  let fields = (ins As<Size, "numElements">:$elements,
                    As<Size, "c">:$channels);
  // Mean, variance, normalize, scale and shift.
  let toDesc = "d.flopsPerElement = 5;";
  let flops = "return d.flopsPerElement * d.numElements;";
  let bytes = "return 2.0 * e * d.numElements;";
  let validSizes = "return positive({d.numElements, d.c});";
  let signature = [IntKey<"n", "numElements">, IntKey<"c", "c">, PassKey];
}

def Attention : KernelKind<"attention", "Attention"> {
  let summary = "Fused scaled-dot-product attention (FlashAttention and kin)";
  let fields = (ins Size:$batch, Size:$heads, As<Size, "m">:$seq,
                    As<Size, "k">:$head_dim, As<Optional<Size>, "-">:$kv_seq,
                    As<Optional<Size>, "-">:$kv_heads, Flag:$causal,
                    As<Optional<Size>, "window">:$window,
                    As<Text, "op">:$impl,
                    As<Optional<Size>, "pageSize">:$block_size);
  let tensorCores = 1;
  // GQA/MQA share each key and value head between heads / kv_heads query
  // heads; the implementations are the fused kernels frameworks pick
  // (empty: the one the GPU's libraries run by default).
  let verify = [{
    int64_t kvHeads = work.getKvHeads().value_or(work.getHeads());
    if (work.getHeads() % kvHeads != 0)
      return error() << "'kv_heads' (" << kvHeads
                     << ") must divide 'heads' (" << work.getHeads() << ")";
    if (!isAttentionImpl(work.getImpl()))
      return error() << "'impl' must be one of " << kAttentionImpls
                     << ", got \"" << work.getImpl() << "\"";
    if (work.getCausal() && work.getSeq() > work.getKvSeq().value_or(work.getSeq()))
      return error() << "a causal 'seq' (" << work.getSeq()
                     << ") may not exceed 'kv_seq'";
    return success();
  }];
  let toDesc = [{
    d.n = work.getKvSeq().value_or(0);
    d.kvHeads = work.getKvHeads().value_or(0);
    d.causal = work.getCausal();
  }];
  let fromDesc = [{
    if (d.n > 0 && d.n != d.m)
      w.setKvSeq(d.n);
    if (d.kvHeads > 0 && d.kvHeads != d.heads)
      w.setKvHeads(d.kvHeads);
    w.setCausal(d.causal);
  }];
  // QK^T and PV over the (query, key) pairs each head attends to: 4 d
  // FLOPs a pair and 5 for the softmax; the backward pass recomputes the
  // scores and takes five products, 2.5x the forward's.
  let flops = [{
    double pairs = d.attentionPairs();
    double forward = b * d.heads * pairs * (4.0 * d.k + 5.0);
    return d.pass == KernelPass::Forward ? forward : 2.5 * forward;
  }];
  // Q and O of the queries, K and V of the keys each key head reads
  // (flash-style, the score matrix on chip); the backward also reads dO
  // and writes dQ, dK and dV.
  let bytes = [{
    double q = b * d.heads * d.m * d.k;
    double kv = b * d.keyHeads() * d.attentionKeysRead() * d.k;
    double forward = e * 2.0 * (q + kv);
    return d.pass == KernelPass::Forward ? forward : 2.0 * forward;
  }];
  let validSizes = [{
    return positive({d.batch, d.heads, d.m, d.k}) && d.kvHeads >= 0 &&
           d.heads % d.keyHeads() == 0 && d.window >= 0 && d.pageSize >= 0;
  }];
  let signature = [FlopsKey, WorkBytesKey];
}

def Optimizer : KernelKind<"optimizer", "Optimizer"> {
  let summary = "Parameter update (sgd or adam) over `elements` parameters";
  let fields = (ins As<Size, "numElements">:$elements,
                    As<Default<OptimizerKind,
                               "::perf::OptimizerAlgorithm::SGD">, "-">:$algorithm,
                    As<Flag, "-">:$master_weights);
  // SGD with momentum reads param, grad, momentum; Adam also two moments.
  let toDesc = [{
    bool adam = work.getAlgorithm() == OptimizerAlgorithm::Adam;
    d.op = adam ? "adam" : "sgd";
    d.numInputs = adam ? 4 : 3;
    d.flopsPerElement = adam ? 12 : 3;
  }];
  let fromDesc = [{
    std::optional<OptimizerAlgorithm> algorithm =
        d.op.empty() ? OptimizerAlgorithm::SGD
                     : symbolizeOptimizerAlgorithm(d.op);
    if (!algorithm)
      return WorkAttr();
    w.setAlgorithm(*algorithm);
  }];
  let flops = "return d.flopsPerElement * d.numElements;";
  // Parameters, gradients and (Adam) two moments read and written.
  let bytes = "return e * d.numElements * (d.numInputs + 1.0);";
  let validSizes = "return positive({d.numElements});";
  let signature = [IntKey<"n", "numElements">, OpKey<"sgd">];
}

def Generic : KernelKind<"kernel", "Generic"> {
  let summary = "Any other kernel, described by its FLOPs and bytes";
  let dbName = "generic";
  let fields = (ins As<Float, "-">:$flops, As<Float, "-">:$bytes,
                    As<Text, "op">:$fn);
  // A typed kernel whose counts were overridden is written as this kind
  // with the counts it stands for.
  let toDesc = [{
    d.flops = work.getFlops();
    d.bytes = work.getBytes();
  }];
  let fromDesc = [{
    w.setFlops(d.totalFlops());
    w.setBytes(d.totalBytes());
  }];
  let verify = [{
    if (!isFiniteAtLeast(work.getFlops(), 0) ||
        !isFiniteAtLeast(work.getBytes(), 0))
      return error() << "'flops' and 'bytes' must be finite and non-negative";
    return success();
  }];
  let flops = "return d.flops;";
  let validSizes = "return d.flops >= 0 && d.bytes >= 0;";
  let signature = [FlopsKey, WorkBytesKey];
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def AllReduce : CollectiveKind<"all_reduce", "AllReduce"> {
  let summary = "All-reduce of `bytes` per device over `group`";
}

def AllGather : CollectiveKind<"all_gather", "AllGather"> {
  let summary = "All-gather; `bytes` is the gathered size per device";
}

def ReduceScatter : CollectiveKind<"reduce_scatter", "ReduceScatter"> {
  let summary = "Reduce-scatter; `bytes` is the input size per device";
}

def AllToAll : CollectiveKind<"all_to_all", "AllToAll"> {
  let summary = "All-to-all; `bytes` is what each device sends in total";
  let fields = (ins I64Array:$split_bytes);
  let verify = "return verifySplitBytes(error, work);";
}

def Send : CollectiveKind<"send", "Send"> {
  let summary = "Point-to-point send; `group` is [source, destination]";
}

def Recv : CollectiveKind<"recv", "Recv"> {
  let summary = "Point-to-point receive; `group` is [source, destination]";
}

//===----------------------------------------------------------------------===//
// Kernels added after the collectives (the bytecode's numbering)
//===----------------------------------------------------------------------===//

def Rope : KernelKind<"rope", "Rope"> {
  let summary = "Rotary position embedding of the queries and keys of `tokens` tokens";
  let fields = (ins As<Size, "rows">:$tokens, Size:$heads,
                    As<Optional<Size>, "-">:$kv_heads,
                    As<Size, "k">:$head_dim,
                    As<Optional<Size>, "cols">:$rotary_dim);
  let verify = [{
    if (work.getRotaryDim().value_or(0) > work.getHeadDim())
      return error() << "'rotary_dim' must not exceed 'head_dim'";
    return success();
  }];
  let toDesc = "d.kvHeads = work.getKvHeads().value_or(0);";
  let fromDesc = [{
    if (d.kvHeads > 0 && d.kvHeads != d.heads)
      w.setKvHeads(d.kvHeads);
  }];
  // x * cos - y * sin for each rotated pair: three FLOPs an element.
  let flops = [{
    double rotated = d.cols > 0 ? d.cols : d.k;
    return 3.0 * d.rows * double(d.heads + d.keyHeads()) * rotated;
  }];
  // The rotated elements of the query and key heads read and written in
  // place, the cos/sin cache row of each token and its position.
  let bytes = [{
    double rotated = d.cols > 0 ? d.cols : d.k;
    double elements = d.rows * double(d.heads + d.keyHeads()) * rotated;
    return e * (2.0 * elements + double(d.rows) * rotated) + 8.0 * d.rows;
  }];
  let validSizes = [{
    return positive({d.rows, d.heads, d.k}) && d.kvHeads >= 0 &&
           d.cols >= 0 && d.cols <= d.k;
  }];
  let signature = [IntKey<"t", "rows">, IntKey<"h", "heads">,
                   IntKey<"hkv", "kvHeads">, IntKey<"d", "k">,
                   IntKey<"r", "cols">];
}

def KvCacheWrite : KernelKind<"kv_cache_write", "KvCacheWrite"> {
  let summary = "The keys and values of `tokens` tokens written into a KV cache";
  let fields = (ins As<Size, "rows">:$tokens,
                    As<Size, "kvHeads">:$kv_heads, As<Size, "k">:$head_dim,
                    As<Optional<Size>, "pageSize">:$block_size);
  // The keys and values read and written once, and each token's slot.
  let bytes = "return 4.0 * e * d.rows * d.kvHeads * d.k + 8.0 * d.rows;";
  let validSizes = "return positive({d.rows, d.kvHeads, d.k}) && d.pageSize >= 0;";
  let signature = [IntKey<"t", "rows">, IntKey<"hkv", "kvHeads">,
                   IntKey<"d", "k">, IntKey<"bs", "pageSize">];
}

#endif // PERF_DIALECT_WORKKINDS_TD
