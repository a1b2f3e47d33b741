//===- PerfOps.td - perf dialect operations ----------------*- tablegen -*-===//

#ifndef PERF_DIALECT_PERFOPS_TD
#define PERF_DIALECT_PERFOPS_TD

include "perf/Dialect/PerfDialect.td"
include "perf/Dialect/PerfAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// A size is positive and at most max-extent (perf/Support/Limits.h,
// docs/reliability.md): products of a few sizes stay inside a double.
def Perf_WithinMaxExtent : AttrConstraint<CPred<
    "::perf::withinLimit(::llvm::cast<::mlir::IntegerAttr>($_self).getInt(), "
    "::perf::kMaxExtent)">, "at most max-extent (2^40)">;

def Perf_Size : ConfinedAttr<I64Attr, [IntPositive, Perf_WithinMaxExtent]> {
  let summary = "a positive 64-bit integer at most max-extent (2^40)";
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

def Perf_WorkListAttr : TypedArrayAttrBase<Perf_WorkAttr,
    "a list of device work (#perf.work)">;

def Perf_FrameworkOp : Perf_Op<"op"> {
  let summary = "A framework op run by a host thread";
  let description = [{
    A framework-level op ("aten::addmm", "onnx::Conv") that the host thread of
    `device` runs. Operands and results are the tensors it reads and writes;
    `work` lists the device work it launches, in launch order, written in
    braces one piece a line (#perf.work). An op with no device work has
    none (and no braces).

    ```mlir
    %y = perf.op "aten::relu"(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32> {
      perf.elementwise {elements = 8192, fn = "relu"}
    }
    ```
  }];
  let arguments = (ins StrAttr:$op_name, Variadic<AnyType>:$inputs,
                       DefaultValuedAttr<I64Attr, "0">:$device,
                       OptionalAttr<Perf_WorkListAttr>:$work);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = [{
    $op_name (`(` $inputs^ `)`)? attr-dict `:` functional-type($inputs, $outputs)
    `` custom<WorkList>($work)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$outputs, "::mlir::StringAttr":$op_name,
                   "::mlir::ValueRange":$inputs, "::mlir::IntegerAttr":$device),
    [{ build($_builder, $_state, outputs, op_name, inputs, device, nullptr); }]>,
    OpBuilder<(ins "::mlir::TypeRange":$outputs, "::llvm::StringRef":$op_name,
                   "::mlir::ValueRange":$inputs, "uint64_t":$device),
    [{ build($_builder, $_state, outputs, op_name, inputs, device, nullptr); }]>
  ];
  let extraClassDeclaration = [{
    /// The device work launched by this op, in order; empty when none.
    ::llvm::ArrayRef<::perf::WorkAttr> getWorkList();
    size_t getNumWork() { return getWorkList().size(); }
    bool hasWork() { return getWorkAttr() != nullptr; }
    ::perf::WorkAttr getWork(size_t index) { return getWorkList()[index]; }
    /// Replaces the work list (removed when empty).
    void setWorkList(::llvm::ArrayRef<::perf::WorkAttr> work);
    /// Adds `work` after the last piece.
    void appendWork(::perf::WorkAttr work);
    /// Replaces the piece at `index`.
    void setWork(size_t index, ::perf::WorkAttr work);
    /// An error at this op about `work`, a piece of its work, naming both
    /// ("'perf.gemm' launched by 'aten::linear': ..."): work has no
    /// location of its own.
    ::mlir::InFlightDiagnostic emitWorkError(::perf::WorkAttr work);
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

#endif // PERF_DIALECT_PERFOPS_TD
