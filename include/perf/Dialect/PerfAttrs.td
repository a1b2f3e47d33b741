//===- PerfAttrs.td - perf dialect attributes --------------*- tablegen -*-===//

#ifndef PERF_DIALECT_PERFATTRS_TD
#define PERF_DIALECT_PERFATTRS_TD

include "perf/Dialect/PerfDialect.td"
include "mlir/IR/AttrTypeBase.td"

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

#endif // PERF_DIALECT_PERFATTRS_TD
