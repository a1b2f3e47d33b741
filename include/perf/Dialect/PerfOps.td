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
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$count,
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

// Every kernel carries its placement, element type, the library kernel name
// when known (traces), the training pass it belongs to, and whether tensor
// cores may be used.
class Perf_KernelOp<string mnemonic, dag kindArgs, list<Trait> traits = []>
    : Perf_Op<mnemonic, traits # [
        DeclareOpInterfaceMethods<KernelOpInterface, ["getKernelDesc"]>]> {
  let arguments = !con(kindArgs, (ins
      OptionalAttr<TypeAttr>:$dtype,
      DefaultValuedAttr<I64Attr, "0">:$device,
      DefaultValuedAttr<I64Attr, "0">:$stream,
      OptionalAttr<StrAttr>:$kernel_name,
      DefaultValuedStrAttr<StrAttr, "fwd">:$pass,
      UnitAttr:$tensor_cores));
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Perf_GemmOp : Perf_KernelOp<"gemm", (ins
    DefaultValuedAttr<I64Attr, "1">:$batch, I64Attr:$m, I64Attr:$n,
    I64Attr:$k, UnitAttr:$trans_a, UnitAttr:$trans_b)> {
  let summary = "Batched matrix multiply: batch x (m x k) * (k x n)";
}

def Perf_Conv2dOp : Perf_KernelOp<"conv2d", (ins
    I64Attr:$n, I64Attr:$c, I64Attr:$h, I64Attr:$w, I64Attr:$k, I64Attr:$r,
    I64Attr:$s, OptionalAttr<DenseI64ArrayAttr>:$stride,
    OptionalAttr<DenseI64ArrayAttr>:$pad,
    OptionalAttr<DenseI64ArrayAttr>:$dilation,
    DefaultValuedAttr<I64Attr, "1">:$groups)> {
  let summary = "2-D convolution, NCHW input n x c x h x w, KCRS filter";
  let description = [{
    `pass` is "fwd", "dgrad" (input gradient) or "wgrad" (filter gradient).
    `stride`, `pad` and `dilation` are [h, w] pairs defaulting to 1, 0, 1.
  }];
}

def Perf_ElementwiseOp : Perf_KernelOp<"elementwise", (ins
    I64Attr:$elements, DefaultValuedAttr<I64Attr, "1">:$inputs,
    DefaultValuedAttr<F64Attr, "1.0">:$flops_per_element,
    OptionalAttr<StrAttr>:$fn)> {
  let summary = "Element-wise kernel over `elements` outputs";
}

class Perf_RowsColsKernelOp<string mnemonic, string what>
    : Perf_KernelOp<mnemonic, (ins I64Attr:$rows, I64Attr:$cols)> {
  let summary = what # " over rows x cols";
}

def Perf_ReduceOp : Perf_RowsColsKernelOp<"reduce", "Row reduction">;
def Perf_SoftmaxOp : Perf_RowsColsKernelOp<"softmax", "Softmax">;
def Perf_LayerNormOp : Perf_RowsColsKernelOp<"layernorm", "Layer normalization">;

def Perf_EmbeddingBagOp : Perf_KernelOp<"embedding_bag", (ins
    DefaultValuedAttr<I64Attr, "1">:$tables, I64Attr:$rows, I64Attr:$dim,
    I64Attr:$batch, DefaultValuedAttr<I64Attr, "1">:$pooling)> {
  let summary = "Pooled embedding lookups over one or more tables";
  let description = [{
    `tables` tables of `rows` x `dim`; `batch` bags per table each pooling
    `pooling` rows. `pass` is "fwd" or "bwd". A batched (fused) lookup over
    several tables is one op with `tables` > 1.
  }];
}

def Perf_MemcpyOp : Perf_KernelOp<"memcpy", (ins I64Attr:$bytes,
    DefaultValuedStrAttr<StrAttr, "d2d">:$kind)> {
  let summary = "Copy of `bytes`; kind is h2d, d2h or d2d";
}

def Perf_TransposeOp : Perf_KernelOp<"transpose", (ins I64Attr:$elements)> {
  let summary = "Layout change moving `elements` elements";
}

def Perf_ConcatOp : Perf_KernelOp<"concat", (ins I64Attr:$elements)> {
  let summary = "Concatenation writing `elements` elements";
}

def Perf_PoolingOp : Perf_KernelOp<"pooling", (ins
    I64Attr:$n, I64Attr:$c, I64Attr:$h, I64Attr:$w, I64Attr:$r, I64Attr:$s,
    OptionalAttr<DenseI64ArrayAttr>:$stride,
    OptionalAttr<DenseI64ArrayAttr>:$pad)> {
  let summary = "Max or average pooling over r x s windows";
}

def Perf_BatchNormOp : Perf_KernelOp<"batchnorm", (ins I64Attr:$elements,
    I64Attr:$channels)> {
  let summary = "Batch normalization over `elements` values";
}

def Perf_AttentionOp : Perf_KernelOp<"attention", (ins I64Attr:$batch,
    I64Attr:$heads, I64Attr:$seq, I64Attr:$head_dim,
    OptionalAttr<I64Attr>:$kv_seq)> {
  let summary = "Fused scaled-dot-product attention";
  let description = [{
    `seq` queries attend to `kv_seq` keys (absent: `seq`, self-attention
    without a cache; a decode step has one query and the cached keys).
  }];
}

def Perf_OptimizerOp : Perf_KernelOp<"optimizer", (ins I64Attr:$elements,
    DefaultValuedStrAttr<StrAttr, "sgd">:$algorithm)> {
  let summary = "Parameter update (sgd or adam) over `elements` parameters";
}

def Perf_GenericKernelOp : Perf_KernelOp<"kernel", (ins F64Attr:$flops,
    F64Attr:$bytes, OptionalAttr<StrAttr>:$fn)> {
  let summary = "Any other kernel, described by its FLOPs and bytes";
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// A collective occupies `stream` on every device of `group` and starts when
// all of them are ready. `bytes` is the per-device message size.
class Perf_CollectiveOp<string mnemonic, string kind, dag extraArgs = (ins)>
    : Perf_Op<mnemonic, [DeclareOpInterfaceMethods<CollectiveOpInterface>]> {
  let arguments = !con((ins I64Attr:$bytes, DenseI64ArrayAttr:$group),
      extraArgs, (ins
      OptionalAttr<TypeAttr>:$dtype,
      DefaultValuedAttr<I64Attr, "0">:$device,
      DefaultValuedAttr<I64Attr, "0">:$stream,
      OptionalAttr<StrAttr>:$algorithm));
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
