//===- ChakraTrace.h - Chakra execution traces for ASTRA-sim ----*- C++ -*-===//
//
// A Chakra execution trace (mlcommons/chakra, schema/protobuf/et_def.proto) is
// a GlobalMetadata message followed by Node messages, each prefixed by its
// length as a varint. ASTRA-sim replays one such file per rank to simulate the
// network at cluster scale. This is the project's MLIR-free view of one: the
// node fields and attributes ASTRA-sim's ET feeder reads (is_cpu_op, num_ops,
// tensor_size, comm_type, comm_size, comm_src, comm_dst, comm_tag,
// comm_priority, pg_name) and any other attribute kept by name.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COMM_CHAKRATRACE_H
#define PERF_COMM_CHAKRATRACE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perf {
namespace chakra {

/// ChakraProtoMsg.NodeType, same numbers.
enum class NodeType : int {
  Invalid = 0,
  Metadata = 1,
  MemLoad = 2,
  MemStore = 3,
  Compute = 4,
  CommSend = 5,
  CommRecv = 6,
  CommCollective = 7,
};

/// ChakraProtoMsg.CollectiveCommType, same numbers.
enum class CommType : int64_t {
  AllReduce = 0,
  Reduce = 1,
  AllGather = 2,
  Gather = 3,
  Scatter = 4,
  Broadcast = 5,
  AllToAll = 6,
  ReduceScatter = 7,
  ReduceScatterBlock = 8,
  Barrier = 9,
};

/// One AttributeProto. Only the value kinds the feeder reads are typed; other
/// kinds decode as `Other` with their name kept.
struct Attr {
  enum class Kind {
    Int32,
    Int64,
    Uint64,
    Double,
    Bool,
    String,
    BoolList,
    Int64List,
    Other
  };
  std::string name;
  Kind kind = Kind::Other;
  int64_t intValue = 0;
  uint64_t uintValue = 0;
  double doubleValue = 0;
  bool boolValue = false;
  std::string stringValue;
  std::vector<int64_t> intList;
  std::vector<bool> boolList;
};

struct Node {
  uint64_t id = 0;
  std::string name;
  NodeType type = NodeType::Invalid;
  std::vector<uint64_t> ctrlDeps;
  std::vector<uint64_t> dataDeps;
  uint64_t startTimeMicros = 0;
  uint64_t durationMicros = 0;
  std::vector<Attr> attrs;

  const Attr *findAttr(const std::string &name) const;
  /// Sets (replacing) an attribute of the kind ASTRA-sim reads it as.
  void setInt64(const std::string &name, int64_t v);
  void setInt32(const std::string &name, int32_t v);
  void setUint64(const std::string &name, uint64_t v);
  void setBool(const std::string &name, bool v);
  void setString(const std::string &name, const std::string &v);

  /// Typed views of the feeder's attributes.
  std::optional<CommType> commType() const;
  std::optional<int64_t> commSize() const;
  /// ASTRA-sim treats a node without is_cpu_op as a CPU op.
  bool isCpuOp() const;
};

/// A compute node: is_cpu_op=false (it runs on the GPU) and, when known,
/// num_ops and tensor_size.
Node makeComputeNode(uint64_t id, std::string name, uint64_t durationMicros,
                     std::vector<uint64_t> dataDeps = {});
/// A collective: comm_type and comm_size (bytes).
Node makeCollectiveNode(uint64_t id, std::string name, CommType type,
                        int64_t bytes, uint64_t durationMicros,
                        std::vector<uint64_t> dataDeps = {});
/// A send (`isSend`) or receive between two ranks: comm_src, comm_dst,
/// comm_tag, comm_size.
Node makePointToPointNode(uint64_t id, std::string name, bool isSend,
                          int32_t src, int32_t dst, int32_t tag, int64_t bytes,
                          uint64_t durationMicros,
                          std::vector<uint64_t> dataDeps = {});

struct Trace {
  /// GlobalMetadata.version ("0.0.4" is the schema ASTRA-sim 2 reads).
  std::string version = "0.0.4";
  std::vector<Attr> metadataAttrs;
  std::vector<Node> nodes;
};

/// Serializes to the length-delimited stream. Returns false with `error` set
/// if a message cannot be encoded.
bool encodeTrace(const Trace &trace, std::string &out, std::string &error);
/// Parses a length-delimited stream; on failure `error` names the node index
/// and byte offset.
bool decodeTrace(const std::string &bytes, Trace &trace, std::string &error);

} // namespace chakra
} // namespace perf

#endif // PERF_COMM_CHAKRATRACE_H
