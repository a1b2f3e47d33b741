//===- OnnxModelLoader.cpp - Parse, check and shape-infer ONNX files ------===//
//
// The only translation unit that calls into protobuf and the ONNX library.
// Both report errors by throwing, so this file alone is compiled with
// exceptions; every entry point catches and returns llvm::Error, and nothing
// thrown crosses into the rest of the project.
//
//===----------------------------------------------------------------------===//

#include "perf/Import/OnnxModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/defs/shape_inference.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

using namespace perf;

//===----------------------------------------------------------------------===//
// MLIR-free helpers on the loaded structures.
//===----------------------------------------------------------------------===//

bool OnnxValueInfo::isFullyKnown() const {
  return hasShape && llvm::all_of(shape, [](int64_t d) { return d >= 0; });
}

/// The product of `dims`, saturated one past max-tensor-elements (the loader
/// refuses shapes beyond it; saturating keeps the product defined before).
static int64_t saturatedProduct(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n = d > 0 && n > kMaxTensorElements.max / d ? kMaxTensorElements.max + 1
                                                : n * d;
  return n;
}

int64_t OnnxValueInfo::numElements() const {
  if (!isFullyKnown())
    return -1;
  return saturatedProduct(shape);
}

const OnnxAttribute *OnnxNode::getAttr(llvm::StringRef attrName) const {
  auto it = attributes.find(attrName);
  return it == attributes.end() ? nullptr : &it->second;
}

int64_t OnnxNode::getInt(llvm::StringRef attrName, int64_t dflt) const {
  const OnnxAttribute *a = getAttr(attrName);
  return a && a->kind == OnnxAttribute::Kind::Int ? a->i : dflt;
}

double OnnxNode::getFloat(llvm::StringRef attrName, double dflt) const {
  const OnnxAttribute *a = getAttr(attrName);
  return a && a->kind == OnnxAttribute::Kind::Float ? a->f : dflt;
}

std::string OnnxNode::getString(llvm::StringRef attrName,
                                llvm::StringRef dflt) const {
  const OnnxAttribute *a = getAttr(attrName);
  return a && a->kind == OnnxAttribute::Kind::String ? a->s : dflt.str();
}

std::vector<int64_t> OnnxNode::getInts(llvm::StringRef attrName) const {
  const OnnxAttribute *a = getAttr(attrName);
  return a && a->kind == OnnxAttribute::Kind::Ints ? a->ints
                                                   : std::vector<int64_t>{};
}

const OnnxValueInfo *OnnxGraph::lookup(llvm::StringRef valueName) const {
  auto it = values.find(valueName);
  return it == values.end() ? nullptr : &it->second;
}

//===----------------------------------------------------------------------===//
// Conversion from the protobuf structures.
//===----------------------------------------------------------------------===//

static DType dtypeOfElemType(int elemType) {
  using TP = onnx::TensorProto;
  switch (elemType) {
  case TP::DOUBLE:
    return DType::F64;
  case TP::FLOAT16:
    return DType::F16;
  case TP::BFLOAT16:
    return DType::BF16;
  case TP::INT64:
  case TP::UINT64:
    return DType::I64;
  case TP::INT32:
  case TP::UINT32:
    return DType::I32;
  case TP::INT8:
  case TP::UINT8:
  case TP::INT16:
  case TP::UINT16:
    return DType::I8;
  case TP::BOOL:
    return DType::Bool;
  default:
    return DType::F32;
  }
}

/// Integer contents of a small int32/int64 tensor, wherever protobuf put them.
static std::optional<std::vector<int64_t>>
smallIntData(const onnx::TensorProto &t) {
  constexpr int64_t kMaxElements = 64;
  if (llvm::any_of(t.dims(), [](int64_t d) { return d < 0; }))
    return std::nullopt;
  int64_t n = saturatedProduct(
      llvm::ArrayRef<int64_t>(t.dims().data(), t.dims().size()));
  if (n > kMaxElements)
    return std::nullopt;
  std::vector<int64_t> out;
  if (t.data_type() == onnx::TensorProto::INT64) {
    if (t.int64_data_size() == n) {
      out.assign(t.int64_data().begin(), t.int64_data().end());
      return out;
    }
    if (t.has_raw_data() && int64_t(t.raw_data().size()) == 8 * n) {
      out.resize(n);
      std::memcpy(out.data(), t.raw_data().data(), 8 * n);
      return out;
    }
  } else if (t.data_type() == onnx::TensorProto::INT32) {
    if (t.int32_data_size() == n) {
      out.assign(t.int32_data().begin(), t.int32_data().end());
      return out;
    }
    if (t.has_raw_data() && int64_t(t.raw_data().size()) == 4 * n) {
      std::vector<int32_t> tmp(n);
      std::memcpy(tmp.data(), t.raw_data().data(), 4 * n);
      out.assign(tmp.begin(), tmp.end());
      return out;
    }
  }
  return std::nullopt;
}

static void setFromTypeProto(OnnxValueInfo &info, const onnx::TypeProto &type) {
  if (!type.has_tensor_type())
    return;
  const auto &tensor = type.tensor_type();
  info.elemType = tensor.elem_type();
  info.dtype = dtypeOfElemType(info.elemType);
  if (!tensor.has_shape())
    return;
  info.hasShape = true;
  info.shape.clear();
  for (const auto &dim : tensor.shape().dim())
    info.shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
}

static void convertGraph(const onnx::GraphProto &g, OnnxGraph &out);

static OnnxAttribute convertAttribute(const onnx::AttributeProto &a) {
  using AP = onnx::AttributeProto;
  OnnxAttribute r;
  switch (a.type()) {
  case AP::INT:
    r.kind = OnnxAttribute::Kind::Int;
    r.i = a.i();
    break;
  case AP::FLOAT:
    r.kind = OnnxAttribute::Kind::Float;
    r.f = a.f();
    break;
  case AP::STRING:
    r.kind = OnnxAttribute::Kind::String;
    r.s = a.s();
    break;
  case AP::INTS:
    r.kind = OnnxAttribute::Kind::Ints;
    r.ints.assign(a.ints().begin(), a.ints().end());
    break;
  case AP::FLOATS:
    r.kind = OnnxAttribute::Kind::Floats;
    r.floats.assign(a.floats().begin(), a.floats().end());
    break;
  case AP::STRINGS:
    r.kind = OnnxAttribute::Kind::Strings;
    r.strings.assign(a.strings().begin(), a.strings().end());
    break;
  case AP::TENSOR:
    r.kind = OnnxAttribute::Kind::Tensor;
    r.tensorDims.assign(a.t().dims().begin(), a.t().dims().end());
    r.tensorElemType = a.t().data_type();
    r.tensorIntData = smallIntData(a.t());
    break;
  case AP::GRAPH:
    r.kind = OnnxAttribute::Kind::Graph;
    break;
  default:
    r.kind = OnnxAttribute::Kind::Other;
    break;
  }
  return r;
}

/// The bytes of a floating-point initializer stored in the file (raw_data
/// or float_data, not copied), with the size of one element; empty when
/// absent.
static std::pair<llvm::StringRef, size_t>
floatInitializerBytes(const onnx::TensorProto &t) {
  size_t elem = 0;
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT:
    elem = 4;
    break;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    elem = 2;
    break;
  case onnx::TensorProto::DOUBLE:
    elem = 8;
    break;
  default:
    return {};
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return {};
  if (!t.raw_data().empty())
    return {t.raw_data(), elem};
  if (t.data_type() == onnx::TensorProto::FLOAT && t.float_data_size() > 0)
    return {llvm::StringRef(
                reinterpret_cast<const char *>(t.float_data().data()),
                t.float_data_size() * sizeof(float)),
            elem};
  return {};
}

namespace {
/// An initializer whose data may repeat another's.
struct StoredWeight {
  const onnx::TensorProto *proto;
  llvm::StringRef bytes;
  size_t elem;

  bool is2D() const { return proto->dims_size() == 2; }
  llvm::StringRef at(int64_t index) const {
    return bytes.substr(index * elem, elem);
  }
  /// Whether `other` holds this tensor's numbers as they are.
  bool sameAs(const StoredWeight &other) const {
    return llvm::equal(proto->dims(), other.proto->dims()) &&
           bytes == other.bytes;
  }
  /// Whether `other` (cols x rows) holds this (rows x cols) transposed; a
  /// few sampled elements first, so unrelated matrices cost little.
  bool transposeOf(const StoredWeight &other) const {
    if (!is2D() || !other.is2D() || proto->dims(0) != other.proto->dims(1) ||
        proto->dims(1) != other.proto->dims(0))
      return false;
    int64_t rows = proto->dims(0), cols = proto->dims(1), n = rows * cols;
    auto matches = [&](int64_t i) {
      int64_t r = i / cols, c = i % cols;
      return at(i) == other.at(c * rows + r);
    };
    for (int64_t k = 0; k < 16; ++k)
      if (!matches((n - 1) * k / 15))
        return false;
    for (int64_t i = 0; i < n; ++i)
      if (!matches(i))
        return false;
    return true;
  }
};
} // namespace

/// Marks initializers that repeat an earlier one's numbers, as they are or
/// transposed (2-D). Tensors of one repeated value (zero biases, ones) are
/// left alone: equal by construction, not by tying.
static void markDuplicateInitializers(const onnx::GraphProto &g,
                                      OnnxGraph &out) {
  // By element type and count: only tensors in one group can be copies.
  std::map<std::pair<int, int64_t>, std::vector<StoredWeight>> groups;
  for (const auto &init : g.initializer()) {
    int64_t count = 1;
    bool valid = true;
    for (int64_t d : init.dims())
      valid = valid && d >= 0 && !llvm::MulOverflow(count, d, count);
    if (!valid || count < 2)
      continue;
    auto [bytes, elem] = floatInitializerBytes(init);
    if (bytes.size() != size_t(count) * elem)
      continue;
    StoredWeight w{&init, bytes, elem};
    bool uniform = true;
    for (int64_t i = 1; i < count && uniform; ++i)
      uniform = w.at(i) == w.at(0);
    if (!uniform)
      groups[{init.data_type(), count}].push_back(w);
  }
  for (auto &[key, members] : groups)
    for (size_t i = 1; i < members.size(); ++i)
      for (size_t j = 0; j < i; ++j) {
        const StoredWeight &later = members[i], &earlier = members[j];
        if (!later.sameAs(earlier) && !later.transposeOf(earlier))
          continue;
        const std::string &source = out.values[earlier.proto->name()].duplicateOf;
        out.values[later.proto->name()].duplicateOf =
            source.empty() ? earlier.proto->name() : source;
        break;
      }
}

static void convertGraph(const onnx::GraphProto &g, OnnxGraph &out) {
  out.name = g.name();
  auto info = [&](const std::string &name) -> OnnxValueInfo & {
    OnnxValueInfo &v = out.values[name];
    v.name = name;
    return v;
  };
  llvm::StringSet<> initNames;
  for (const auto &init : g.initializer()) {
    initNames.insert(init.name());
    out.initializers.push_back(init.name());
    OnnxValueInfo &v = info(init.name());
    v.elemType = init.data_type();
    v.dtype = dtypeOfElemType(v.elemType);
    v.hasShape = true;
    v.shape.assign(init.dims().begin(), init.dims().end());
    v.isConstant = true;
    v.intData = smallIntData(init);
  }
  markDuplicateInitializers(g, out);
  for (const auto &in : g.input()) {
    OnnxValueInfo &v = info(in.name());
    if (!initNames.count(in.name())) {
      out.inputs.push_back(in.name());
      setFromTypeProto(v, in.type());
    } else if (!v.hasShape) {
      setFromTypeProto(v, in.type());
    }
  }
  for (const auto &vi : g.value_info())
    setFromTypeProto(info(vi.name()), vi.type());
  for (const auto &o : g.output()) {
    out.outputs.push_back(o.name());
    setFromTypeProto(info(o.name()), o.type());
  }
  out.nodes.reserve(g.node_size());
  for (const auto &n : g.node()) {
    OnnxNode node;
    node.opType = n.op_type();
    node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
    node.name = n.name();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto &a : n.attribute()) {
      node.attributes[a.name()] = convertAttribute(a);
      if (a.type() == onnx::AttributeProto::GRAPH) {
        auto sub = std::make_shared<OnnxGraph>();
        convertGraph(a.g(), *sub);
        node.subgraphs.emplace_back(a.name(), std::move(sub));
      }
    }
    // Constants carry their (small integer) values for shape operands.
    if (node.opType == "Constant" && node.outputs.size() == 1) {
      if (const OnnxAttribute *v = node.getAttr("value");
          v && v->kind == OnnxAttribute::Kind::Tensor) {
        OnnxValueInfo &c = info(node.outputs[0]);
        c.isConstant = true;
        c.intData = v->tensorIntData;
        if (!c.hasShape) {
          c.hasShape = true;
          c.shape = v->tensorDims;
          c.elemType = v->tensorElemType;
          c.dtype = dtypeOfElemType(c.elemType);
        }
      }
    }
    for (const std::string &name : node.inputs)
      if (!name.empty())
        info(name);
    for (const std::string &name : node.outputs)
      if (!name.empty())
        info(name);
    out.nodes.push_back(std::move(node));
  }
}

//===----------------------------------------------------------------------===//
// Preparation of the ModelProto before checking and inference.
//===----------------------------------------------------------------------===//

static bool tensorHasData(const onnx::TensorProto &t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return false;
  return t.has_raw_data() || t.float_data_size() || t.int32_data_size() ||
         t.string_data_size() || t.int64_data_size() || t.double_data_size() ||
         t.uint64_data_size();
}

static int64_t tensorElements(const onnx::TensorProto &t) {
  return saturatedProduct(
      llvm::ArrayRef<int64_t>(t.dims().data(), t.dims().size()));
}

/// Initializers stored in another file or stripped of their bytes become
/// typed graph inputs: their shapes are all that costs need, and the checker
/// rejects tensors without data.
static void detachWeightData(onnx::GraphProto &g) {
  llvm::StringSet<> inputNames;
  for (const auto &in : g.input())
    inputNames.insert(in.name());
  auto *inits = g.mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i) {
    const onnx::TensorProto &t = inits->Get(i);
    if (tensorHasData(t) || tensorElements(t) == 0)
      continue;
    if (!inputNames.count(t.name())) {
      onnx::ValueInfoProto *in = g.add_input();
      in->set_name(t.name());
      auto *tensorType = in->mutable_type()->mutable_tensor_type();
      tensorType->set_elem_type(t.data_type());
      auto *shape = tensorType->mutable_shape();
      for (int64_t d : t.dims())
        shape->add_dim()->set_dim_value(d);
    }
    inits->DeleteSubrange(i, 1);
  }
}

/// Names nodes that have none so that errors and reports can point at them.
static void nameNodes(onnx::GraphProto &g) {
  int index = 0;
  for (auto &n : *g.mutable_node()) {
    if (n.name().empty())
      n.set_name(n.op_type() + "_" + std::to_string(index));
    ++index;
    for (auto &a : *n.mutable_attribute())
      if (a.has_g())
        nameNodes(*a.mutable_g());
  }
}

static int64_t firstInputBatch(const onnx::GraphProto &g) {
  llvm::StringSet<> initNames;
  for (const auto &init : g.initializer())
    initNames.insert(init.name());
  for (const auto &in : g.input()) {
    if (initNames.count(in.name()) || !in.type().has_tensor_type())
      continue;
    const auto &shape = in.type().tensor_type().shape();
    if (shape.dim_size() == 0)
      continue;
    return shape.dim(0).has_dim_value() ? shape.dim(0).dim_value() : -1;
  }
  return -1;
}

/// Sets dim 0 of each runtime input to `batch` and drops the shapes inferred
/// for the old batch. Reshape targets that bake the exported batch into
/// their leading entry (Caffe2 exports write [1, 2048]) follow the new batch.
/// Runtime inputs that carry data: not initializers, with a leading dim that
/// is the exported batch (or symbolic); exports without parameters also list
/// weights as inputs, and those are recognised by the operand they feed.
static llvm::StringSet<> dataInputNames(const onnx::GraphProto &g) {
  int64_t oldBatch = firstInputBatch(g);
  llvm::StringSet<> initNames;
  for (const auto &init : g.initializer())
    initNames.insert(init.name());
  llvm::StringSet<> dataInputs;
  for (const auto &in : g.input()) {
    if (initNames.count(in.name()) || !in.type().has_tensor_type())
      continue;
    const auto &shape = in.type().tensor_type().shape();
    if (shape.dim_size() == 0)
      continue;
    if (shape.dim(0).has_dim_value() && shape.dim(0).dim_value() != oldBatch)
      continue;
    dataInputs.insert(in.name());
  }
  static const llvm::StringSet<> weightOps = {"Conv",
                                              "ConvTranspose",
                                              "Gemm",
                                              "BatchNormalization",
                                              "InstanceNormalization",
                                              "LayerNormalization",
                                              "PRelu"};
  for (const auto &n : g.node()) {
    if (weightOps.count(n.op_type()))
      for (int i = 1; i < n.input_size(); ++i)
        dataInputs.erase(n.input(i));
    if (n.op_type() == "Gather" && n.input_size() > 0)
      dataInputs.erase(n.input(0));
  }
  return dataInputs;
}

/// Drops the shapes inferred for the old input sizes; outputs keep their
/// rank (the checker wants a shape) but forget the sizes.
static void forgetInferredShapes(onnx::GraphProto &g) {
  g.clear_value_info();
  for (auto &o : *g.mutable_output())
    if (o.type().has_tensor_type() && o.type().tensor_type().has_shape())
      for (auto &dim : *o.mutable_type()
                            ->mutable_tensor_type()
                            ->mutable_shape()
                            ->mutable_dim())
        dim.clear_dim_value();
}

/// Sets dim 1 of each data input of rank 2 or more (token ids and masks
/// [batch, sequence], features [batch, sequence, hidden]) to `seq`. Returns
/// false when no input has such a dimension. Shapes computed inside the
/// graph follow where the export computes them (dynamic axes); a sequence
/// length baked into a Reshape constant does not.
static bool overrideSequence(onnx::GraphProto &g, int64_t seq) {
  llvm::StringSet<> dataInputs = dataInputNames(g);
  bool changed = false;
  for (auto &in : *g.mutable_input()) {
    if (!dataInputs.count(in.name()))
      continue;
    auto *shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (shape->dim_size() < 2)
      continue;
    shape->mutable_dim(1)->set_dim_value(seq);
    changed = true;
  }
  if (changed)
    forgetInferredShapes(g);
  return changed;
}

static void overrideBatch(onnx::GraphProto &g, int64_t batch) {
  int64_t oldBatch = firstInputBatch(g);
  llvm::StringSet<> initNames;
  for (const auto &init : g.initializer())
    initNames.insert(init.name());
  llvm::StringSet<> dataInputs = dataInputNames(g);
  for (auto &in : *g.mutable_input())
    if (dataInputs.count(in.name()))
      in.mutable_type()
          ->mutable_tensor_type()
          ->mutable_shape()
          ->mutable_dim(0)
          ->set_dim_value(batch);
  forgetInferredShapes(g);

  if (oldBatch <= 0 || oldBatch == batch)
    return;
  std::unordered_map<std::string, int> initIndex;
  for (int i = 0; i < g.initializer_size(); ++i)
    initIndex[g.initializer(i).name()] = i;
  std::unordered_map<std::string, std::string> constOutputs;
  int rewritten = 0;
  for (auto &n : *g.mutable_node()) {
    if (n.op_type() != "Reshape" || n.input_size() < 2 ||
        initIndex.count(n.input(0)))
      continue;
    auto it = initIndex.find(n.input(1));
    if (it == initIndex.end())
      continue;
    const onnx::TensorProto &target = g.initializer(it->second);
    auto data = smallIntData(target);
    if (!data || data->empty() || (*data)[0] != oldBatch)
      continue;
    (*data)[0] = batch;
    onnx::TensorProto *copy = g.add_initializer();
    copy->set_name(target.name() + "__batch" + std::to_string(rewritten++));
    copy->set_data_type(onnx::TensorProto::INT64);
    copy->add_dims(static_cast<int64_t>(data->size()));
    for (int64_t v : *data)
      copy->add_int64_data(v);
    if (g.input_size() && initNames.count(target.name())) {
      onnx::ValueInfoProto *in = g.add_input();
      in->set_name(copy->name());
      auto *tt = in->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(onnx::TensorProto::INT64);
      tt->mutable_shape()->add_dim()->set_dim_value(data->size());
    }
    initIndex[copy->name()] = g.initializer_size() - 1;
    n.set_input(1, copy->name());
  }
}

static llvm::Error makeError(llvm::StringRef file, const llvm::Twine &msg) {
  return fileError(file, msg);
}

//===----------------------------------------------------------------------===//
// Guards in front of ONNX's shape inference.
//===----------------------------------------------------------------------===//

namespace {
/// An op whose ONNX inference function divides by its strides and indexes
/// its windows by the input's rank without checking them: a stride of 0 is
/// a SIGFPE, weights of another rank than the input a read out of bounds.
struct ConvLikeOp {
  const char *name;
  int input;   // The data input.
  int weights; // The weight input, -1 for pooling.
};
constexpr ConvLikeOp kConvLikeOps[] = {
    {"Conv", 0, 1},          {"ConvInteger", 0, 1}, {"QLinearConv", 0, 3},
    {"ConvTranspose", 0, 1}, {"MaxPool", 0, -1},    {"AveragePool", 0, -1},
    {"LpPool", 0, -1},       {"MaxUnpool", 0, -1},
};
} // namespace

/// The rank of input `index`, or -1 when it is not known.
static int inputRank(onnx::InferenceContext &ctx, int index) {
  if (index < 0 || size_t(index) >= ctx.getNumInputs())
    return -1;
  const onnx::TypeProto *type = ctx.getInputType(index);
  if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape())
    return -1;
  return type->tensor_type().shape().dim_size();
}

/// Throws ONNX's InferenceError for what its conv and pooling inference
/// would crash on; called before that inference.
static void checkConvLike(onnx::InferenceContext &ctx, const ConvLikeOp &op) {
  int rank = inputRank(ctx, op.input);
  if (rank >= 0 && rank < 3)
    fail_shape_inference("the input has rank ", rank,
                         "; a convolution or pooling needs 3 or more");
  int weights = inputRank(ctx, op.weights);
  if (rank >= 0 && weights >= 0 && weights != rank)
    fail_shape_inference("the weights have rank ", weights, ", the input ",
                         rank);
  int spatial = rank >= 0 ? rank - 2 : weights >= 0 ? weights - 2 : -1;
  auto ints = [&](const char *name, int size, int64_t min) {
    const onnx::AttributeProto *a = ctx.getAttribute(name);
    if (!a)
      return;
    if (spatial >= 0 && a->ints_size() != size)
      fail_shape_inference("attribute ", name, " has ", a->ints_size(),
                           " values, the ", spatial,
                           " spatial dimensions need ", size);
    for (int64_t v : a->ints())
      if (v < min)
        fail_shape_inference("attribute ", name, " holds ", v,
                             "; its values must be at least ", min);
  };
  ints("kernel_shape", spatial, 1);
  ints("strides", spatial, 1);
  ints("dilations", spatial, 1);
  ints("pads", 2 * spatial, 0);
  ints("output_padding", spatial, 0);
  ints("output_shape", spatial, 0);
  if (const onnx::AttributeProto *group = ctx.getAttribute("group"))
    if (group->i() < 1)
      fail_shape_inference("attribute group is ", group->i(),
                           "; it must be at least 1");
}

/// Puts checkConvLike in front of the inference function of every version
/// of the conv-like ops, once per process.
static void guardShapeInference() {
  static std::once_flag once;
  std::call_once(once, [] {
    int64_t maxOpset = onnxMaxKnownOpset("");
    for (const ConvLikeOp &op : kConvLikeOps) {
      std::set<const onnx::OpSchema *> seen;
      for (int version = 1; version <= maxOpset; ++version) {
        const onnx::OpSchema *schema =
            onnx::OpSchemaRegistry::Schema(op.name, version, "");
        if (!schema || !seen.insert(schema).second)
          continue;
        // The registry owns its schemas as mutable objects and offers no
        // other way to amend one.
        auto *mutableSchema = const_cast<onnx::OpSchema *>(schema);
        onnx::InferenceFunction original =
            mutableSchema->GetTypeAndShapeInferenceFunction();
        mutableSchema->TypeAndShapeInferenceFunction(
            [original, op](onnx::InferenceContext &ctx) {
              checkConvLike(ctx, op);
              if (original)
                original(ctx);
            });
      }
    }
  });
}

/// Refuses a negative dimension anywhere a shape is declared: ONNX's
/// inference takes it at its word.
static llvm::Error checkDeclaredShapes(const onnx::GraphProto &g,
                                       llvm::StringRef file) {
  auto check = [&](const onnx::ValueInfoProto &v) -> llvm::Error {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
      return llvm::Error::success();
    for (auto [i, dim] : llvm::enumerate(v.type().tensor_type().shape().dim()))
      if (dim.has_dim_value() && dim.dim_value() < 0)
        return makeError(file, "value '" + v.name() + "': dimension " +
                                   llvm::Twine(i) + " is " +
                                   llvm::Twine(dim.dim_value()));
    return llvm::Error::success();
  };
  for (const auto &list : {g.input(), g.output(), g.value_info()})
    for (const onnx::ValueInfoProto &v : list)
      if (llvm::Error e = check(v))
        return e;
  for (const onnx::TensorProto &t : g.initializer())
    for (auto [i, d] : llvm::enumerate(t.dims()))
      if (d < 0)
        return makeError(file, "initializer '" + t.name() + "': dimension " +
                                   llvm::Twine(i) + " is " + llvm::Twine(d));
  if (!withinLimit(g.node_size(), kMaxGraphOps))
    return makeError(
        file, limitExceeded("the node count", g.node_size(), kMaxGraphOps));
  return llvm::Error::success();
}

/// Every shape the loader or ONNX's inference settled within the limits
/// (a Reshape may ask for any size).
static llvm::Error checkShapeLimits(const OnnxGraph &g, llvm::StringRef file) {
  for (const auto &[name, value] : g.values)
    if (value.hasShape)
      if (std::optional<std::string> bad = checkTensorShape(value.shape))
        return makeError(file, "value '" + name + "': " + *bad);
  for (const OnnxNode &node : g.nodes)
    for (const auto &[attribute, sub] : node.subgraphs)
      if (llvm::Error e = checkShapeLimits(*sub, file))
        return e;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Entry points.
//===----------------------------------------------------------------------===//

/// ONNX messages span lines ("==> Context: ..."); reports want one line.
static std::string oneLine(llvm::StringRef text) {
  std::string out;
  bool space = false;
  for (char c : text.trim()) {
    if (c == '\n' || c == '\r' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty() && out.back() != ' ')
      out += ' ';
    space = false;
    out += c;
  }
  return out;
}

int64_t perf::onnxMaxKnownOpset(llvm::StringRef domain) {
  try {
    std::string d = domain == "ai.onnx" ? "" : domain.str();
    const auto &map =
        onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = map.find(d);
    return it == map.end() ? -1 : it->second.second;
  } catch (...) {
    return -1;
  }
}

static llvm::Expected<OnnxModel> loadImpl(llvm::StringRef bytes,
                                          llvm::StringRef file,
                                          const OnnxLoadOptions &options) {
  onnx::ModelProto proto;
  if (bytes.empty())
    return makeError(file, "empty file, not an ONNX model");
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return makeError(file, "not an ONNX model: the protobuf is malformed or "
                           "truncated");
  if (proto.ir_version() <= 0 || !proto.has_graph())
    return makeError(file, "not an ONNX model: no ir_version or no graph");
  if (proto.ir_version() > onnx::Version::IR_VERSION)
    return makeError(file, "IR version " + llvm::Twine(proto.ir_version()) +
                               " is newer than this ONNX library reads (" +
                               llvm::Twine(int(onnx::Version::IR_VERSION)) +
                               ")");

  OnnxModel model;
  model.path = file.str();
  model.irVersion = proto.ir_version();
  model.producerName = proto.producer_name();
  for (const auto &op : proto.opset_import()) {
    std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    int64_t maxKnown = onnxMaxKnownOpset(domain);
    if (maxKnown >= 0 && op.version() > maxKnown)
      return makeError(file, "imports opset " + llvm::Twine(op.version()) +
                                 " of domain '" +
                                 (domain.empty() ? "ai.onnx" : domain) +
                                 "', newer than the highest this ONNX "
                                 "library knows (" +
                                 llvm::Twine(maxKnown) + ")");
    model.opsets.emplace_back(domain, op.version());
  }

  onnx::GraphProto *graph = proto.mutable_graph();
  if (llvm::Error e = checkDeclaredShapes(*graph, file))
    return std::move(e);
  nameNodes(*graph);
  detachWeightData(*graph);
  if (!withinLimit(options.batchSize, kMaxExtent) ||
      !withinLimit(options.sequenceLength, kMaxExtent))
    return makeError(
        file, limitExceeded("the batch size or sequence length",
                            std::max(options.batchSize, options.sequenceLength),
                            kMaxExtent));
  if (options.batchSize > 0)
    overrideBatch(*graph, options.batchSize);
  if (options.sequenceLength > 0 &&
      !overrideSequence(*graph, options.sequenceLength))
    return makeError(file, "--onnx-seq: no runtime input has a second "
                           "(sequence) dimension to set");

  if (options.runChecker) {
    try {
      onnx::checker::check_model(proto);
    } catch (const std::exception &e) {
      return makeError(file, "invalid model: " + oneLine(e.what()));
    }
  }
  guardShapeInference();
  try {
    onnx::ShapeInferenceOptions si(/*check_type=*/true, /*strict_mode=*/1,
                                   /*data_prop=*/true);
    onnx::shape_inference::InferShapes(proto,
                                       onnx::OpSchemaRegistry::Instance(), si);
  } catch (const std::exception &e) {
    return makeError(file, "shape inference failed: " + oneLine(e.what()));
  }

  convertGraph(proto.graph(), model.graph);
  if (llvm::Error e = checkShapeLimits(model.graph, file))
    return std::move(e);
  model.batchSize = firstInputBatch(proto.graph());
  return model;
}

llvm::Expected<OnnxModel>
perf::loadOnnxModelFromBuffer(llvm::StringRef bytes, llvm::StringRef bufferName,
                              const OnnxLoadOptions &options) {
  try {
    return loadImpl(bytes, bufferName, options);
  } catch (const std::exception &e) {
    return makeError(bufferName, oneLine(e.what()));
  } catch (...) {
    return makeError(bufferName, "unknown error while reading the model");
  }
}

llvm::Expected<OnnxModel> perf::loadOnnxModel(llvm::StringRef path,
                                              const OnnxLoadOptions &options) {
  auto buffer = readInputFile(path);
  if (!buffer)
    return buffer.takeError();
  return loadOnnxModelFromBuffer((*buffer)->getBuffer(), path, options);
}
