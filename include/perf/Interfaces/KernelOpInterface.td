//===- KernelOpInterface.td - What every kernel tells a cost model -*- tablegen -*-===//

#ifndef PERF_INTERFACES_KERNELOPINTERFACE_TD
#define PERF_INTERFACES_KERNELOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def KernelOpInterface : OpInterface<"KernelOpInterface"> {
  let description = [{
    Device work placed on a device and a stream. Each kernel kind describes
    itself as a `perf::KernelDesc`, from which every cost model reads FLOPs,
    bytes and shape features. A new kernel kind is one op plus getKernelDesc.
  }];
  let cppNamespace = "::perf";
  let methods = [
    InterfaceMethod<"The kernel as the MLIR-free cost models see it.",
      "::perf::KernelDesc", "getKernelDesc">,
    InterfaceMethod<"Device the kernel runs on.", "int64_t", "getDeviceId",
      (ins), [{}], [{ return static_cast<int64_t>($_op.getDevice()); }]>,
    InterfaceMethod<"Stream the kernel is launched on.", "int64_t",
      "getStreamId", (ins), [{}],
      [{ return static_cast<int64_t>($_op.getStream()); }]>,
    InterfaceMethod<"FLOPs (a multiply-add counts two).", "double",
      "getFlopCount", (ins), [{}],
      [{ return $_op.getKernelDesc().totalFlops(); }]>,
    InterfaceMethod<"Bytes moved to and from device memory.", "double",
      "getByteCount", (ins), [{}],
      [{ return $_op.getKernelDesc().totalBytes(); }]>,
  ];
}

#endif // PERF_INTERFACES_KERNELOPINTERFACE_TD
