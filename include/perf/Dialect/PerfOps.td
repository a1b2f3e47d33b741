//===- PerfOps.td - perf dialect operations ----------------*- tablegen -*-===//

#ifndef PERF_DIALECT_PERFOPS_TD
#define PERF_DIALECT_PERFOPS_TD

include "perf/Dialect/PerfDialect.td"
include "perf/Dialect/PerfAttrs.td"
include "perf/Interfaces/CollectiveOpInterface.td"
include "perf/Interfaces/KernelOpInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Sizes are positive, counts non-negative, [h, w] pairs have two entries
// (pads may be zero, strides and dilations may not), and none is above
// max-extent (perf/Support/Limits.h, docs/reliability.md): products of a few
// sizes stay inside a double. The verifiers add what ODS cannot say, the
// relations between sizes.
def Perf_WithinMaxExtent : AttrConstraint<CPred<
    "::perf::withinLimit(::llvm::cast<::mlir::IntegerAttr>($_self).getInt(), "
    "::perf::kMaxExtent)">, "at most max-extent (2^40)">;
def Perf_PairWithinMaxExtent : AttrConstraint<CPred<
    "::llvm::all_of(::llvm::cast<::mlir::DenseI64ArrayAttr>($_self)"
    ".asArrayRef(), [](int64_t v) { "
    "return ::perf::withinLimit(v, ::perf::kMaxExtent); })">,
    "at most max-extent (2^40)">;

def Perf_ElementTypeAttr : TypeAttrOf<AnyTypeOf<[AnyInteger, AnyFloat]>> {
  let summary = "an integer or float element type";
}

def Perf_Size : ConfinedAttr<I64Attr, [IntPositive, Perf_WithinMaxExtent]> {
  let summary = "a positive 64-bit integer at most max-extent (2^40)";
}
def Perf_Count : ConfinedAttr<I64Attr, [IntNonNegative, Perf_WithinMaxExtent]> {
  let summary = "a non-negative 64-bit integer at most max-extent (2^40)";
}
def Perf_PositivePair : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>,
    DenseArrayStrictlyPositive<DenseI64ArrayAttr>, Perf_PairWithinMaxExtent]> {
  let summary = "a pair [h, w] of positive integers at most max-extent, "
                "array<i64: h, w>";
}
def Perf_NonNegativePair : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>,
    DenseArrayNonNegative<DenseI64ArrayAttr>, Perf_PairWithinMaxExtent]> {
  let summary = "a pair [h, w] of non-negative integers at most max-extent, "
                "array<i64: h, w>";
}

//===----------------------------------------------------------------------===//
// Graph and framework ops
//===----------------------------------------------------------------------===//

def Perf_GraphOp : Perf_Op<"graph", [Symbol, IsolatedFromAbove, SingleBlock,
                                     NoTerminator]> {
  let summary = "One training or inference step";
  let description = [{
    Lists the host-side work of one iteration in the order the host launches
    it. `target` is the GPU (`#perf.gpu<...>`) or system the step runs on;
    `phase` is "inference", "training" or "decode" (one generation step
    with a KV cache).

    ```mlir
    perf.graph @step attributes {target = #perf.gpu<"A100">, phase = "training"} {
      %x = perf.op "aten::randn" : () -> tensor<64x128xf32>
      %y = perf.op "aten::relu"(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32> {
        perf.elementwise {elements = 8192, fn = "relu"}
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       OptionalAttr<AnyAttr>:$target,
                       DefaultValuedStrAttr<StrAttr, "inference">:$phase);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The GPU of the target, if the target is a single GPU.
    ::perf::GpuAttr getGpuTarget() {
      return ::llvm::dyn_cast_if_present<::perf::GpuAttr>(getTargetAttr());
    }
  }];
}

def Perf_FrameworkOp : Perf_Op<"op", [SingleBlock, NoTerminator]> {
  let summary = "A framework op run by a host thread";
  let description = [{
    A framework-level op ("aten::addmm", "onnx::Conv") that the host thread of
    `device` runs. Operands and results are the tensors it reads and writes;
    its region lists the device work it launches, in launch order. An op with
    no device work has an empty region (omitted when printed).
  }];
  let arguments = (ins StrAttr:$op_name, Variadic<AnyType>:$inputs,
                       DefaultValuedAttr<I64Attr, "0">:$device);
  let results = (outs Variadic<AnyType>:$outputs);
  let regions = (region MaxSizedRegion<1>:$body);
  let assemblyFormat = [{
    $op_name (`(` $inputs^ `)`)? attr-dict `:` functional-type($inputs, $outputs)
    ($body^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Device work launched by this op, in order; empty when there is none.
    ::mlir::Block *getBodyBlockOrNull() {
      return getBody().empty() ? nullptr : &getBody().front();
    }
    /// Creates the body block if it does not exist yet.
    ::mlir::Block &getOrCreateBodyBlock();
  }];
}

def Perf_SyncOp : Perf_Op<"sync"> {
  let summary = "Host waits for device work (cudaDeviceSynchronize / stream sync)";
  let description = [{
    The host thread of `device` blocks until every stream of the device (or
    only `stream`, when given) has drained.
  }];
  let arguments = (ins DefaultValuedAttr<I64Attr, "0">:$device,
                       OptionalAttr<I64Attr>:$stream);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Perf_RepeatOp : Perf_Op<"repeat", [
    ParentOneOf<["GraphOp", "RepeatOp"]>, SingleBlock,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Host work written once and launched `count` times in a row";
  let description = [{
    Stands for its body written out `count` times, one copy after the other:
    the layers of a transformer, the micro-batches of a pipeline. Every pass
    either gives the same answer as on the unrolled graph (the cost and
    timing passes, the report) or refuses the graph and asks for
    `--perf-unroll-repeat` first. Each copy is a distinct piece of work
    (a layer has its own weights); back-to-back training steps are the
    critical path's `iterations` option instead.

    The body's block arguments carry values from one copy to the next:
    the first copy reads `inits`, copy i+1 reads what copy i yields, and
    the results are what the last copy yields.

    ```mlir
    %out = perf.repeat 12 (%x) : (tensor<8x1024x768xf16>) -> tensor<8x1024x768xf16> {
    ^bb0(%h: tensor<8x1024x768xf16>):
      %y = perf.op "layer"(%h) : (tensor<8x1024x768xf16>) -> tensor<8x1024x768xf16> {
        perf.gemm {m = 8192, n = 768, k = 768, dtype = f16}
      }
      perf.yield %y : tensor<8x1024x768xf16>
    }
    ```
  }];
  let arguments = (ins Perf_Size:$count,
                       Variadic<AnyType>:$inits);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $count (`(` $inits^ `)`)? attr-dict `:` functional-type($inits, $results)
    $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "int64_t":$count, "::mlir::ValueRange":$inits)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The values the body hands to the next copy (the terminator's).
    ::mlir::OperandRange getYielded();
    /// Ops the repeat stands for once unrolled: its body's ops, the
    /// terminator included (a copy of an empty body is not free to walk),
    /// `count` times, nested repeats unrolled; one past max-unrolled-ops
    /// when more.
    int64_t getUnrolledOpCount();
  }];
}

def Perf_YieldOp : Perf_Op<"yield", [Pure, Terminator,
                                     HasParent<"RepeatOp">]> {
  let summary = "The values a perf.repeat copy hands to the next";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// What every kernel op is checked for beyond its ODS constraints: its
// placement, max-extent on every size, a numeric dtype, no unknown
// attribute (perf::detail::verifyKernelOp).
def Perf_KernelVerifier : NativeOpTrait<"KernelVerifier"> {
  let cppNamespace = "::perf::OpTrait";
}

// Every kernel carries its placement, element type, the library kernel name
// when known (traces), the training pass it belongs to, and whether tensor
// cores may be used.
class Perf_KernelOp<string mnemonic, dag kindArgs, list<Trait> traits = []>
    : Perf_Op<mnemonic, traits # [Perf_KernelVerifier,
        DeclareOpInterfaceMethods<KernelOpInterface, ["getKernelDesc"]>]> {
  let arguments = !con(kindArgs, (ins
      OptionalAttr<Perf_ElementTypeAttr>:$dtype,
      DefaultValuedAttr<I64Attr, "0">:$device,
      DefaultValuedAttr<I64Attr, "0">:$stream,
      OptionalAttr<StrAttr>:$kernel_name,
      DefaultValuedAttr<Perf_TrainingPassAttr, "::perf::TrainingPass::Fwd">:$pass,
      UnitAttr:$tensor_cores));
  let assemblyFormat = "attr-dict";
}

def Perf_GemmOp : Perf_KernelOp<"gemm", (ins
    DefaultValuedAttr<Perf_Size, "1">:$batch, Perf_Size:$m, Perf_Size:$n,
    Perf_Size:$k, UnitAttr:$trans_a, UnitAttr:$trans_b)> {
  let summary = "Batched matrix multiply: batch x (m x k) * (k x n)";
}

def Perf_Conv2dOp : Perf_KernelOp<"conv2d", (ins
    Perf_Size:$n, Perf_Size:$c, Perf_Size:$h, Perf_Size:$w, Perf_Size:$k,
    Perf_Size:$r, Perf_Size:$s, OptionalAttr<Perf_PositivePair>:$stride,
    OptionalAttr<Perf_NonNegativePair>:$pad,
    OptionalAttr<Perf_PositivePair>:$dilation,
    DefaultValuedAttr<Perf_Size, "1">:$groups)> {
  let summary = "2-D convolution, NCHW input n x c x h x w, KCRS filter";
  let hasVerifier = 1;
  let description = [{
    `pass` is `#perf.pass<fwd>`, `<dgrad>` (input gradient) or `<wgrad>`
    (filter gradient).
    `stride`, `pad` and `dilation` are [h, w] pairs defaulting to 1, 0, 1.
  }];
}

def Perf_ElementwiseOp : Perf_KernelOp<"elementwise", (ins
    Perf_Size:$elements, DefaultValuedAttr<Perf_Count, "1">:$inputs,
    DefaultValuedAttr<F64Attr, "1.0">:$flops_per_element,
    OptionalAttr<StrAttr>:$fn)> {
  let summary = "Element-wise kernel over `elements` outputs";
  let hasVerifier = 1;
}

class Perf_RowsColsKernelOp<string mnemonic, string what>
    : Perf_KernelOp<mnemonic, (ins Perf_Size:$rows, Perf_Size:$cols)> {
  let summary = what # " over rows x cols";
}

def Perf_ReduceOp : Perf_RowsColsKernelOp<"reduce", "Row reduction">;
def Perf_SoftmaxOp : Perf_RowsColsKernelOp<"softmax", "Softmax">;
def Perf_LayerNormOp : Perf_RowsColsKernelOp<"layernorm", "Layer normalization">;

def Perf_EmbeddingBagOp : Perf_KernelOp<"embedding_bag", (ins
    DefaultValuedAttr<Perf_Size, "1">:$tables, Perf_Size:$rows,
    Perf_Size:$dim, Perf_Size:$batch,
    DefaultValuedAttr<Perf_Size, "1">:$pooling)> {
  let summary = "Pooled embedding lookups over one or more tables";
  let hasVerifier = 1;
  let description = [{
    `tables` tables of `rows` x `dim`; `batch` bags per table each pooling
    `pooling` rows. `pass` is `#perf.pass<fwd>` or `<bwd>`. A batched (fused) lookup over
    several tables is one op with `tables` > 1.
  }];
}

def Perf_MemcpyOp : Perf_KernelOp<"memcpy", (ins Perf_Size:$bytes,
    DefaultValuedAttr<Perf_CopyDirectionAttr, "::perf::CopyDirection::D2D">:$kind)> {
  let summary = "Copy of `bytes`; kind is h2d, d2h or d2d";
}

def Perf_TransposeOp : Perf_KernelOp<"transpose", (ins Perf_Size:$elements)> {
  let summary = "Layout change moving `elements` elements";
}

def Perf_ConcatOp : Perf_KernelOp<"concat", (ins Perf_Size:$elements)> {
  let summary = "Concatenation writing `elements` elements";
}

def Perf_PoolingOp : Perf_KernelOp<"pooling", (ins
    Perf_Size:$n, Perf_Size:$c, Perf_Size:$h, Perf_Size:$w, Perf_Size:$r,
    Perf_Size:$s, OptionalAttr<Perf_PositivePair>:$stride,
    OptionalAttr<Perf_NonNegativePair>:$pad)> {
  let summary = "Max or average pooling over r x s windows";
}

def Perf_BatchNormOp : Perf_KernelOp<"batchnorm", (ins Perf_Size:$elements,
    Perf_Size:$channels)> {
  let summary = "Batch normalization over `elements` values";
}

def Perf_AttentionOp : Perf_KernelOp<"attention", (ins Perf_Size:$batch,
    Perf_Size:$heads, Perf_Size:$seq, Perf_Size:$head_dim,
    OptionalAttr<Perf_Size>:$kv_seq)> {
  let summary = "Fused scaled-dot-product attention";
  let description = [{
    `seq` queries attend to `kv_seq` keys (absent: `seq`, self-attention
    without a cache; a decode step has one query and the cached keys).
  }];
}

def Perf_OptimizerOp : Perf_KernelOp<"optimizer", (ins Perf_Size:$elements,
    DefaultValuedAttr<Perf_OptimizerAlgorithmAttr,
                      "::perf::OptimizerAlgorithm::SGD">:$algorithm,
    UnitAttr:$master_weights)> {
  let summary = "Parameter update (sgd or adam) over `elements` parameters";
  let description = [{
    `master_weights`: mixed-precision training (Megatron-LM, DeepSpeed,
    apex O2). The update runs on an FP32 copy of the model's FP16/BF16
    weights that the optimizer keeps beside its moments (`dtype` is the
    copy's, f32), so each weight holds one more state; the updated copy is
    written back to the model by a kernel of its own.
  }];
}

def Perf_GenericKernelOp : Perf_KernelOp<"kernel", (ins F64Attr:$flops,
    F64Attr:$bytes, OptionalAttr<StrAttr>:$fn)> {
  let summary = "Any other kernel, described by its FLOPs and bytes";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// A collective occupies `stream` on every device of `group` and starts when
// all of them are ready. `bytes` is the per-device message size.
class Perf_CollectiveOp<string mnemonic, string kind, dag extraArgs = (ins)>
    : Perf_Op<mnemonic, [DeclareOpInterfaceMethods<CollectiveOpInterface>]> {
  let arguments = !con((ins Perf_Count:$bytes, DenseI64ArrayAttr:$group),
      extraArgs, (ins
      OptionalAttr<Perf_ElementTypeAttr>:$dtype,
      DefaultValuedAttr<I64Attr, "0">:$device,
      DefaultValuedAttr<I64Attr, "0">:$stream,
      OptionalAttr<Perf_NcclAlgorithmAttr>:$algorithm));
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr ::perf::CollectiveKind kCollectiveKind =
        ::perf::CollectiveKind::}] # kind # [{;
  }];
}

def Perf_AllReduceOp : Perf_CollectiveOp<"all_reduce", "AllReduce"> {
  let summary = "All-reduce of `bytes` per device over `group`";
}
def Perf_AllGatherOp : Perf_CollectiveOp<"all_gather", "AllGather"> {
  let summary = "All-gather; `bytes` is the gathered size per device";
}
def Perf_ReduceScatterOp : Perf_CollectiveOp<"reduce_scatter", "ReduceScatter"> {
  let summary = "Reduce-scatter; `bytes` is the input size per device";
}
def Perf_AllToAllOp : Perf_CollectiveOp<"all_to_all", "AllToAll",
    (ins OptionalAttr<DenseI64ArrayAttr>:$split_bytes)> {
  let summary = "All-to-all; `bytes` is what each device sends in total";
  let description = [{
    Uneven splits: `split_bytes` lists, for every device i of `group` and
    every device j, the bytes i sends to j (row i, group.size() squared
    entries; the diagonal stays on the device). `bytes` is then the most
    any device sends. Without it every device sends bytes / group.size() to
    each.
  }];
}
def Perf_SendOp : Perf_CollectiveOp<"send", "SendRecv"> {
  let summary = "Point-to-point send; `group` is [source, destination]";
}
def Perf_RecvOp : Perf_CollectiveOp<"recv", "SendRecv"> {
  let summary = "Point-to-point receive; `group` is [source, destination]";
}

#endif // PERF_DIALECT_PERFOPS_TD
