//===- PerfAttrs.td - perf dialect attributes --------------*- tablegen -*-===//

#ifndef PERF_DIALECT_PERFATTRS_TD
#define PERF_DIALECT_PERFATTRS_TD

include "perf/Dialect/PerfDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Perf_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Perf_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Perf_GpuAttr : Perf_Attr<"Gpu", "gpu"> {
  let summary = "A GPU described by the figures cost models need";
  let description = [{
    `#perf.gpu<"H100">` names a catalog GPU and expands to all its figures;
    any figure can be overridden or given for a GPU that is not in the
    catalog:

    ```mlir
    #perf.gpu<"H100-SXM5-80GB", sms = 132, fp32_tflops = 67.0, mem_bw_gbs = 3350.0>
    #perf.gpu<"future", base = "H100", mem_bw_gbs = 8000.0>
    ```
    Keys and units are those of the device JSON (docs/devices.md).
  }];
  let parameters = (ins "::perf::GpuSpec":$spec);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Enumerated kernel and collective attributes
//===----------------------------------------------------------------------===//

// The keywords a kernel's `pass` is written with. "bwd" and "dgrad" are
// both the input-gradient pass (conv and gemm say dgrad, the others bwd);
// getKernelDesc maps them to perf::KernelPass.
def Perf_TrainingPass : I32EnumAttr<"TrainingPass",
    "the training pass a kernel belongs to", [
      I32EnumAttrCase<"Fwd", 0, "fwd">,
      I32EnumAttrCase<"Bwd", 1, "bwd">,
      I32EnumAttrCase<"Dgrad", 2, "dgrad">,
      I32EnumAttrCase<"Wgrad", 3, "wgrad">,
      I32EnumAttrCase<"Update", 4, "update">]> {
  let cppNamespace = "::perf";
  let genSpecializedAttr = 0;
}

def Perf_TrainingPassAttr : EnumAttr<Perf_Dialect, Perf_TrainingPass, "pass"> {
  let summary = "the training pass of a kernel, #perf.pass<fwd|bwd|dgrad|wgrad|update>";
  let assemblyFormat = "`<` $value `>`";
}

def Perf_CopyDirection : I32EnumAttr<"CopyDirection",
    "the direction of a copy", [
      I32EnumAttrCase<"H2D", 0, "h2d">,
      I32EnumAttrCase<"D2H", 1, "d2h">,
      I32EnumAttrCase<"D2D", 2, "d2d">]> {
  let cppNamespace = "::perf";
  let genSpecializedAttr = 0;
}

def Perf_CopyDirectionAttr : EnumAttr<Perf_Dialect, Perf_CopyDirection, "copy"> {
  let summary = "the direction of a copy, #perf.copy<h2d|d2h|d2d>";
  let assemblyFormat = "`<` $value `>`";
}

def Perf_OptimizerAlgorithm : I32EnumAttr<"OptimizerAlgorithm",
    "the update rule of an optimizer kernel", [
      I32EnumAttrCase<"SGD", 0, "sgd">,
      I32EnumAttrCase<"Adam", 1, "adam">]> {
  let cppNamespace = "::perf";
  let genSpecializedAttr = 0;
}

def Perf_OptimizerAlgorithmAttr
    : EnumAttr<Perf_Dialect, Perf_OptimizerAlgorithm, "optimizer"> {
  let summary = "the update rule of an optimizer, #perf.optimizer<sgd|adam>";
  let assemblyFormat = "`<` $value `>`";
}

// NCCL's algorithms in NCCL's spelling order (src/include/device.h,
// NCCL_ALGO_*), and auto for the tuner's choice; perf::CollectiveAlgorithm
// (Comm/NcclTuner.h) is the cost model's copy of the same list.
def Perf_NcclAlgorithm : I32EnumAttr<"NcclAlgorithm",
    "the NCCL algorithm a collective is pinned to", [
      I32EnumAttrCase<"Tree", 0, "tree">,
      I32EnumAttrCase<"Ring", 1, "ring">,
      I32EnumAttrCase<"CollNetDirect", 2, "collnet_direct">,
      I32EnumAttrCase<"CollNetChain", 3, "collnet_chain">,
      I32EnumAttrCase<"NVLS", 4, "nvls">,
      I32EnumAttrCase<"NVLSTree", 5, "nvls_tree">,
      I32EnumAttrCase<"PAT", 6, "pat">,
      I32EnumAttrCase<"Auto", 7, "auto">]> {
  let cppNamespace = "::perf";
  let genSpecializedAttr = 0;
}

def Perf_NcclAlgorithmAttr : EnumAttr<Perf_Dialect, Perf_NcclAlgorithm, "nccl"> {
  let summary = "the NCCL algorithm of a collective, #perf.nccl<tree|ring|"
                "collnet_direct|collnet_chain|nvls|nvls_tree|pat|auto>";
  let assemblyFormat = "`<` $value `>`";
}

def Perf_WorkAttr : Perf_Attr<"Work", "work"> {
  let summary = "One piece of device work a perf.op launches";
  let description = [{
    A kernel, a copy or a collective: its kind and its attributes, those of
    the kind (include/perf/Dialect/WorkKinds.td defines each kind once;
    docs/generated/WorkKinds.md lists them) and the `perf.*` facts passes
    write (`perf.latency_us`). A perf.op prints its work list in braces, one piece
    a line, as `perf.<kind> {attributes}`:

    ```mlir
    %y = perf.op "aten::linear"(%x) : (tensor<64x768xf16>) -> tensor<64x3072xf16> {
      perf.gemm {m = 64, n = 3072, k = 768, dtype = f16}
    }
    ```
    Standing alone it reads `#perf.work<gemm {m = 64, n = 3072, k = 768}>`.
    Work is an attribute, not an op: a step repeats the same kernels in
    every layer, and identical work is stored once however often it runs.
  }];
  // The kinds and their attributes are WorkKinds.td's; each kind has a
  // typed view of this attribute (GemmWork, ...) that perf-tblgen writes.
  let parameters = (ins "::perf::WorkKind":$kind,
                        "::mlir::DictionaryAttr":$attrs);
  // An attribute holding its kind's default is left out (as ODS elides a
  // default-valued attribute of an op), so that work prints as written and
  // `device = 0` and no device are one attribute.
  let skipDefaultBuilders = 1;
  let builders = [
    AttrBuilder<(ins "::perf::WorkKind":$kind, "::mlir::DictionaryAttr":$attrs), [{
      return $_get($_ctxt, kind, ::perf::withoutDefaults(kind, attrs));
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The attribute as given, neither verified nor stripped of defaults:
    /// for the verifier, whose kind checks read the work through its
    /// accessors (get() would verify again in builds with assertions).
    static WorkAttr getUnverified(::mlir::MLIRContext *context,
                                  ::perf::WorkKind kind,
                                  ::mlir::DictionaryAttr attrs);

    /// "gemm", "all_reduce": the kind as written after `perf.`.
    ::llvm::StringRef getKindName() const;
    bool isCollective() const { return ::perf::isCollectiveKind(getKind()); }
    bool isKernel() const { return !isCollective(); }
    bool isMemcpy() const { return getKind() == ::perf::WorkKind::Memcpy; }

    /// An attribute of the work, null when absent: for the `perf.*` facts
    /// passes write. A kind's own attributes are read through its view
    /// (`llvm::cast<GemmWork>(work).getM()`).
    ::mlir::Attribute get(::llvm::StringRef name) const;
    template <typename T> T getAs(::llvm::StringRef name) const {
      return ::llvm::dyn_cast_if_present<T>(get(name));
    }
    bool has(::llvm::StringRef name) const { return bool(get(name)); }

    /// The same work with `name` set to `value` (removed when null).
    WorkAttr with(::llvm::StringRef name, ::mlir::Attribute value) const;
    /// The same work with its attributes changed by `update`.
    WorkAttr with(::llvm::function_ref<void(::mlir::NamedAttrList &)> update) const;

    int64_t getDeviceId() const { return readInt("device").value_or(0); }
    int64_t getStreamId() const { return readInt("stream").value_or(0); }
    /// The element type, null when not given.
    ::mlir::Type getDtype() const { return readType("dtype"); }
    /// The training pass of a kernel (fwd for a collective).
    ::perf::TrainingPass getTrainingPass() const;
    /// Devices of a collective (send/recv: [source, destination]); none
    /// for a kernel.
    ::llvm::ArrayRef<int64_t> getGroupIds() const;
    /// A collective's bytes per device (0 for a kernel).
    int64_t getCollectiveBytes() const;
    /// The same work on another device or stream.
    WorkAttr withDevice(int64_t device) const;
    WorkAttr withStream(int64_t stream) const;

    /// The kernel as the MLIR-free cost models see it (kernels only).
    ::perf::KernelDesc getKernelDesc() const;
    /// FLOPs of a kernel (a multiply-add counts two).
    double getFlopCount() const { return getKernelDesc().totalFlops(); }

    /// Which collective the work is (collectives only).
    ::perf::CollectiveKind getCollectiveKind() const;
    /// The collective as the collective model sees it (collectives only).
    ::perf::CollectiveDesc getCollectiveDesc() const;

    // How the views read an attribute of the kind: the value, or none
    // when absent (WorkKinds.td's defaults are the views').
    std::optional<int64_t> readInt(::llvm::StringRef name) const;
    std::optional<double> readFloat(::llvm::StringRef name) const;
    ::llvm::StringRef readString(::llvm::StringRef name) const;
    bool readFlag(::llvm::StringRef name) const { return bool(get(name)); }
    std::optional<std::pair<int64_t, int64_t>>
    readPair(::llvm::StringRef name) const;
    ::mlir::Type readType(::llvm::StringRef name) const;
    ::llvm::ArrayRef<int64_t> readArray(::llvm::StringRef name) const;
    template <typename EnumAttrT>
    auto readEnum(::llvm::StringRef name) const
        -> std::optional<decltype(std::declval<EnumAttrT>().getValue())> {
      if (auto value = getAs<EnumAttrT>(name))
        return value.getValue();
      return std::nullopt;
    }
  }];
}

#endif // PERF_DIALECT_PERFATTRS_TD
