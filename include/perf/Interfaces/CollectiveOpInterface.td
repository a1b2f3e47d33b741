//===- CollectiveOpInterface.td - What every collective tells a cost model -*- tablegen -*-===//

#ifndef PERF_INTERFACES_COLLECTIVEOPINTERFACE_TD
#define PERF_INTERFACES_COLLECTIVEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let description = [{
    Communication among the devices of a group: a collective or one side of
    a point-to-point transfer. It occupies its stream on every device of the
    group and starts when all of them are ready; the collective model prices
    it from its `perf::CollectiveDesc` over the group's topology. The
    schedule, the memory analysis, the exports and the distributed passes
    read collectives only through this interface.
  }];
  let cppNamespace = "::perf";
  let methods = [
    InterfaceMethod<"Devices taking part (for send/recv: source, "
      "destination).", "::llvm::ArrayRef<int64_t>", "getGroupIds", (ins), [{}],
      [{ return $_op.getGroup(); }]>,
    InterfaceMethod<"Bytes per device: the message each device contributes "
      "(all_gather: the gathered size; all_to_all: the most any device "
      "sends).", "int64_t", "getByteCount", (ins), [{}],
      [{ return static_cast<int64_t>($_op.getBytes()); }]>,
    InterfaceMethod<"Device whose copy of the op this is.", "int64_t",
      "getDeviceId", (ins), [{}],
      [{ return static_cast<int64_t>($_op.getDevice()); }]>,
    InterfaceMethod<"Stream the collective occupies on every device of its "
      "group.", "int64_t", "getStreamId", (ins), [{}],
      [{ return static_cast<int64_t>($_op.getStream()); }]>,
    InterfaceMethod<"Which collective the op is.", "::perf::CollectiveKind",
      "getCollectiveKind", (ins), [{}],
      [{ return ConcreteOp::kCollectiveKind; }]>,
    InterfaceMethod<"The collective as the MLIR-free collective model sees "
      "it.", "::perf::CollectiveDesc", "getCollectiveDesc", (ins), [{}], [{
        ::perf::CollectiveDesc desc;
        desc.kind = ConcreteOp::kCollectiveKind;
        if (::std::optional<::mlir::Type> type = $_op.getDtype())
          desc.dtype = ::perf::getDType(*type);
        desc.bytes = static_cast<int64_t>($_op.getBytes());
        desc.groupSize = static_cast<int64_t>($_op.getGroup().size());
        return desc;
      }]>,
  ];
}

#endif // PERF_INTERFACES_COLLECTIVEOPINTERFACE_TD
