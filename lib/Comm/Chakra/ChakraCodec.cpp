//===- ChakraCodec.cpp - Chakra ET to and from protobuf -------------------===//
//
// Compiled apart from the LLVM-flagged libraries (with the toolchain's default
// RTTI and exception settings, as libprotobuf is): only std types cross its
// interface.
//
//===----------------------------------------------------------------------===//

#include "et_def.pb.h"
#include "perf/Comm/ChakraTrace.h"
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

using namespace perf::chakra;
namespace pb = ChakraProtoMsg;

//===----------------------------------------------------------------------===//
// Node helpers
//===----------------------------------------------------------------------===//

const Attr *Node::findAttr(const std::string &name) const {
  for (const Attr &a : attrs)
    if (a.name == name)
      return &a;
  return nullptr;
}

static Attr &slot(std::vector<Attr> &attrs, const std::string &name) {
  for (Attr &a : attrs)
    if (a.name == name)
      return a = Attr{name};
  attrs.push_back(Attr{name});
  return attrs.back();
}

void Node::setInt64(const std::string &name, int64_t v) {
  Attr &a = slot(attrs, name);
  a.kind = Attr::Kind::Int64;
  a.intValue = v;
}

void Node::setInt32(const std::string &name, int32_t v) {
  Attr &a = slot(attrs, name);
  a.kind = Attr::Kind::Int32;
  a.intValue = v;
}

void Node::setUint64(const std::string &name, uint64_t v) {
  Attr &a = slot(attrs, name);
  a.kind = Attr::Kind::Uint64;
  a.uintValue = v;
}

void Node::setBool(const std::string &name, bool v) {
  Attr &a = slot(attrs, name);
  a.kind = Attr::Kind::Bool;
  a.boolValue = v;
}

void Node::setString(const std::string &name, const std::string &v) {
  Attr &a = slot(attrs, name);
  a.kind = Attr::Kind::String;
  a.stringValue = v;
}

std::optional<CommType> Node::commType() const {
  const Attr *a = findAttr("comm_type");
  if (!a || a->kind != Attr::Kind::Int64)
    return std::nullopt;
  return CommType(a->intValue);
}

std::optional<int64_t> Node::commSize() const {
  const Attr *a = findAttr("comm_size");
  if (!a || a->kind != Attr::Kind::Int64)
    return std::nullopt;
  return a->intValue;
}

bool Node::isCpuOp() const {
  const Attr *a = findAttr("is_cpu_op");
  return !a || a->kind != Attr::Kind::Bool || a->boolValue;
}

Node perf::chakra::makeComputeNode(uint64_t id, std::string name,
                                   uint64_t durationMicros,
                                   std::vector<uint64_t> dataDeps) {
  Node n;
  n.id = id;
  n.name = std::move(name);
  n.type = NodeType::Compute;
  n.durationMicros = durationMicros;
  n.dataDeps = std::move(dataDeps);
  n.setBool("is_cpu_op", false);
  return n;
}

Node perf::chakra::makeCollectiveNode(uint64_t id, std::string name,
                                      CommType type, int64_t bytes,
                                      uint64_t durationMicros,
                                      std::vector<uint64_t> dataDeps) {
  Node n =
      makeComputeNode(id, std::move(name), durationMicros, std::move(dataDeps));
  n.type = NodeType::CommCollective;
  n.setInt64("comm_type", int64_t(type));
  n.setInt64("comm_size", bytes);
  return n;
}

Node perf::chakra::makePointToPointNode(uint64_t id, std::string name,
                                        bool isSend, int32_t src, int32_t dst,
                                        int32_t tag, int64_t bytes,
                                        uint64_t durationMicros,
                                        std::vector<uint64_t> dataDeps) {
  Node n =
      makeComputeNode(id, std::move(name), durationMicros, std::move(dataDeps));
  n.type = isSend ? NodeType::CommSend : NodeType::CommRecv;
  n.setInt32("comm_src", src);
  n.setInt32("comm_dst", dst);
  n.setInt32("comm_tag", tag);
  n.setInt64("comm_size", bytes);
  return n;
}

//===----------------------------------------------------------------------===//
// Wire format
//===----------------------------------------------------------------------===//

static void toProto(const Attr &a, pb::AttributeProto &p) {
  p.set_name(a.name);
  switch (a.kind) {
  case Attr::Kind::Int32:
    p.set_int32_val(int32_t(a.intValue));
    break;
  case Attr::Kind::Int64:
    p.set_int64_val(a.intValue);
    break;
  case Attr::Kind::Uint64:
    p.set_uint64_val(a.uintValue);
    break;
  case Attr::Kind::Double:
    p.set_double_val(a.doubleValue);
    break;
  case Attr::Kind::Bool:
    p.set_bool_val(a.boolValue);
    break;
  case Attr::Kind::String:
    p.set_string_val(a.stringValue);
    break;
  case Attr::Kind::BoolList:
    for (bool b : a.boolList)
      p.mutable_bool_list()->add_values(b);
    break;
  case Attr::Kind::Int64List:
    for (int64_t v : a.intList)
      p.mutable_int64_list()->add_values(v);
    break;
  case Attr::Kind::Other:
    break;
  }
}

static Attr fromProto(const pb::AttributeProto &p) {
  Attr a;
  a.name = p.name();
  switch (p.value_case()) {
  case pb::AttributeProto::kInt32Val:
    a.kind = Attr::Kind::Int32;
    a.intValue = p.int32_val();
    break;
  case pb::AttributeProto::kInt64Val:
    a.kind = Attr::Kind::Int64;
    a.intValue = p.int64_val();
    break;
  case pb::AttributeProto::kUint64Val:
    a.kind = Attr::Kind::Uint64;
    a.uintValue = p.uint64_val();
    break;
  case pb::AttributeProto::kDoubleVal:
    a.kind = Attr::Kind::Double;
    a.doubleValue = p.double_val();
    break;
  case pb::AttributeProto::kBoolVal:
    a.kind = Attr::Kind::Bool;
    a.boolValue = p.bool_val();
    break;
  case pb::AttributeProto::kStringVal:
    a.kind = Attr::Kind::String;
    a.stringValue = p.string_val();
    break;
  case pb::AttributeProto::kBoolList:
    a.kind = Attr::Kind::BoolList;
    a.boolList.assign(p.bool_list().values().begin(),
                      p.bool_list().values().end());
    break;
  case pb::AttributeProto::kInt64List:
    a.kind = Attr::Kind::Int64List;
    a.intList.assign(p.int64_list().values().begin(),
                     p.int64_list().values().end());
    break;
  default:
    a.kind = Attr::Kind::Other;
    break;
  }
  return a;
}

static bool writeDelimited(const google::protobuf::MessageLite &m,
                           google::protobuf::io::CodedOutputStream &out) {
  size_t size = m.ByteSizeLong();
  if (size > uint32_t(INT32_MAX))
    return false;
  out.WriteVarint32(uint32_t(size));
  m.SerializeWithCachedSizes(&out);
  return !out.HadError();
}

bool perf::chakra::encodeTrace(const Trace &trace, std::string &out,
                               std::string &error) {
  out.clear();
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  pb::GlobalMetadata meta;
  meta.set_version(trace.version);
  for (const Attr &a : trace.metadataAttrs)
    toProto(a, *meta.add_attr());
  if (!writeDelimited(meta, coded)) {
    error = "cannot encode the global metadata";
    return false;
  }
  pb::Node node;
  for (const Node &n : trace.nodes) {
    node.Clear();
    node.set_id(n.id);
    node.set_name(n.name);
    node.set_type(pb::NodeType(int(n.type)));
    for (uint64_t d : n.ctrlDeps)
      node.add_ctrl_deps(d);
    for (uint64_t d : n.dataDeps)
      node.add_data_deps(d);
    node.set_start_time_micros(n.startTimeMicros);
    node.set_duration_micros(n.durationMicros);
    for (const Attr &a : n.attrs)
      toProto(a, *node.add_attr());
    if (!writeDelimited(node, coded)) {
      error =
          "cannot encode node " + std::to_string(n.id) + " '" + n.name + "'";
      return false;
    }
  }
  coded.Trim();
  return true;
}

static bool readDelimited(google::protobuf::MessageLite &m,
                          google::protobuf::io::CodedInputStream &in) {
  uint32_t size = 0;
  if (!in.ReadVarint32(&size))
    return false;
  auto limit = in.PushLimit(int(size));
  bool ok = m.ParseFromCodedStream(&in) && in.ConsumedEntireMessage() &&
            in.BytesUntilLimit() == 0;
  in.PopLimit(limit);
  return ok;
}

bool perf::chakra::decodeTrace(const std::string &bytes, Trace &trace,
                               std::string &error) {
  trace = Trace();
  trace.version.clear();
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t *>(bytes.data()), int(bytes.size()));
  in.SetTotalBytesLimit(INT32_MAX);
  pb::GlobalMetadata meta;
  if (bytes.empty() || !readDelimited(meta, in)) {
    error = "byte 0: not a Chakra trace (no length-delimited GlobalMetadata)";
    return false;
  }
  trace.version = meta.version();
  for (const pb::AttributeProto &a : meta.attr())
    trace.metadataAttrs.push_back(fromProto(a));
  pb::Node node;
  while (in.CurrentPosition() < int(bytes.size())) {
    int at = in.CurrentPosition();
    node.Clear();
    if (!readDelimited(node, in)) {
      error = "byte " + std::to_string(at) + ": node " +
              std::to_string(trace.nodes.size()) +
              " is truncated or not a Node message";
      return false;
    }
    Node n;
    n.id = node.id();
    n.name = node.name();
    n.type = NodeType(int(node.type()));
    n.ctrlDeps.assign(node.ctrl_deps().begin(), node.ctrl_deps().end());
    n.dataDeps.assign(node.data_deps().begin(), node.data_deps().end());
    n.startTimeMicros = node.start_time_micros();
    n.durationMicros = node.duration_micros();
    for (const pb::AttributeProto &a : node.attr())
      n.attrs.push_back(fromProto(a));
    trace.nodes.push_back(std::move(n));
  }
  return true;
}
