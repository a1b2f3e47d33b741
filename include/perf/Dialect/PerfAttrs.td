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

#endif // PERF_DIALECT_PERFATTRS_TD
