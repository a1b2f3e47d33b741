//===- ExecutionTrace.cpp - PyTorch Execution Trace reader ----------------===//

#include "perf/Trace/ExecutionTrace.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/JsonOutline.h"
#include "perf/Trace/TraceFile.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>

using namespace llvm;

namespace perf {
namespace trace {

/// An error about the trace file `origin` as a whole (the one format).
static Error traceError(StringRef origin, const Twine &message) {
  return perf::fileError(origin, message);
}

bool isAnnotationName(StringRef name) {
  return name.starts_with("[") || name.starts_with("##") ||
         name.starts_with("ProfilerStep#") || name.starts_with("Optimizer.") ||
         name.starts_with("enumerate(DataLoader)") ||
         name.starts_with("module::") || name.starts_with("DLRM ") ||
         name.starts_with("DistributedDataParallel.") ||
         // The autograd engine's wrapper: the backward op inside it is the
         // framework op; the engine's own time counts as T1.
         name.starts_with("autograd::engine::evaluate_function");
}

/// "Tensor(float)" -> "float"; "" when `type` is not a tensor type.
static StringRef tensorElementType(StringRef type) {
  if (!type.consume_front("Tensor(") || !type.consume_back(")"))
    return "";
  return type;
}

/// Element types of "GenericList[Tensor(float),Tensor(long int)]".
static SmallVector<StringRef> listElementTypes(StringRef type) {
  SmallVector<StringRef> types;
  if (!type.consume_front("GenericList[") || !type.consume_back("]"))
    return types;
  SmallVector<StringRef> parts;
  type.split(parts, ',');
  for (StringRef part : parts)
    types.push_back(part.trim());
  return types;
}

/// [tensor_id, storage_id, offset, numel, itemsize, device]
static bool isTensorValue(const json::Value &value) {
  const json::Array *array = value.getAsArray();
  return array && array->size() >= 5 && (*array)[0].getAsInteger() &&
         (array->size() < 6 || (*array)[5].getAsString());
}

static TensorArg makeTensor(const json::Value &value, const json::Value *shape,
                            const json::Value *strides, StringRef dtype) {
  TensorArg tensor;
  const json::Array &array = *value.getAsArray();
  tensor.tensorId = array[0].getAsInteger().value_or(-1);
  tensor.storageId = array[1].getAsInteger().value_or(-1);
  tensor.numel = array[3].getAsInteger().value_or(0);
  tensor.itemSize = array[4].getAsInteger().value_or(0);
  if (array.size() >= 6)
    tensor.device = array[5].getAsString().value_or("").str();
  tensor.dtype = dtype.str();
  if (const json::Array *dims = shape ? shape->getAsArray() : nullptr)
    for (const json::Value &dim : *dims)
      if (std::optional<int64_t> d = dim.getAsInteger())
        tensor.shape.push_back(*d);
  if (const json::Array *steps = strides ? strides->getAsArray() : nullptr) {
    for (const json::Value &step : *steps)
      if (std::optional<int64_t> d = step.getAsInteger())
        tensor.strides.push_back(*d);
    // Strides that do not match the shape's rank are not the tensor's.
    if (tensor.strides.size() != tensor.shape.size())
      tensor.strides.clear();
  }
  return tensor;
}

/// Splits parallel value/shape/type arrays into tensors and scalars.
static void collectArguments(const json::Array *values,
                             const json::Array *shapes,
                             const json::Array *strides,
                             const json::Array *types,
                             std::vector<TensorArg> &tensors,
                             std::vector<json::Value> *scalars,
                             std::vector<std::string> *typeNames) {
  if (!values)
    return;
  for (size_t i = 0, e = values->size(); i < e; ++i) {
    const json::Value &value = (*values)[i];
    const json::Value *shape =
        shapes && i < shapes->size() ? &(*shapes)[i] : nullptr;
    const json::Value *stride =
        strides && i < strides->size() ? &(*strides)[i] : nullptr;
    StringRef type;
    if (types && i < types->size())
      type = (*types)[i].getAsString().value_or("");
    if (typeNames)
      typeNames->push_back(type.str());
    StringRef elementType = tensorElementType(type);
    if (!elementType.empty() && isTensorValue(value)) {
      tensors.push_back(makeTensor(value, shape, stride, elementType));
      if (scalars)
        scalars->push_back(nullptr);
      continue;
    }
    SmallVector<StringRef> listTypes = listElementTypes(type);
    const json::Array *list = value.getAsArray();
    if (!listTypes.empty() && list && !list->empty() &&
        isTensorValue((*list)[0])) {
      const json::Array *listShapes = shape ? shape->getAsArray() : nullptr;
      const json::Array *listStrides = stride ? stride->getAsArray() : nullptr;
      for (size_t j = 0, f = list->size(); j < f; ++j) {
        if (!isTensorValue((*list)[j]))
          continue;
        StringRef t = j < listTypes.size() ? tensorElementType(listTypes[j])
                                           : StringRef();
        tensors.push_back(makeTensor(
            (*list)[j],
            listShapes && j < listShapes->size() ? &(*listShapes)[j] : nullptr,
            listStrides && j < listStrides->size() ? &(*listStrides)[j]
                                                   : nullptr,
            t));
      }
      if (scalars)
        scalars->push_back(nullptr);
      continue;
    }
    if (scalars)
      scalars->push_back(value);
  }
}

/// Accepts "1.0.1" and 1.0.2 through 1.1.x, with any "-chakra..." suffix.
static bool isSupportedSchema(StringRef schema, bool &newLayout) {
  StringRef numbers = schema.split('-').first;
  SmallVector<StringRef> parts;
  numbers.split(parts, '.');
  unsigned major, minor, patch;
  if (parts.size() != 3 || parts[0].getAsInteger(10, major) ||
      parts[1].getAsInteger(10, minor) || parts[2].getAsInteger(10, patch))
    return false;
  if (major != 1 || minor > 1)
    return false;
  if (minor == 0 && patch < 1)
    return false;
  newLayout = !(minor == 0 && patch == 1);
  return true;
}

Error ExecutionTrace::readHeader(const json::Object &top, StringRef origin) {
  std::optional<StringRef> schema = top.getString("schema");
  if (!schema)
    return traceError(origin, "execution trace without a \"schema\" version");
  schemaVersion = schema->str();
  if (!isSupportedSchema(*schema, newLayout))
    return traceError(origin, "unknown execution trace schema version '" +
                                  *schema +
                                  "' (supported: 1.0.1 through 1.1.x)");
  processId = top.getInteger("pid").value_or(0);
  return Error::success();
}

Error ExecutionTrace::addNode(const json::Value &value, size_t i,
                              StringRef origin) {
  ExecutionTrace &trace = *this;
  const json::Object *object = value.getAsObject();
  if (!object)
    return traceError(origin, formatv("node #{0} is not an object", i));
  ExecNode node;
  std::optional<int64_t> id = object->getInteger("id");
  if (!id)
    return traceError(origin, formatv("node #{0} has no integer \"id\"", i));
  node.id = *id;
  node.name = object->getString("name").value_or("").str();
  const json::Object *inputs = object->getObject("inputs");
  if (inputs) {
    // 1.0.2+ layout.
    node.parent = object->getInteger("ctrl_deps").value_or(-1);
    collectArguments(inputs->getArray("values"), inputs->getArray("shapes"),
                     inputs->getArray("strides"), inputs->getArray("types"),
                     node.inputs, &node.scalarInputs, &node.inputTypes);
    if (const json::Object *outputs = object->getObject("outputs"))
      collectArguments(outputs->getArray("values"), outputs->getArray("shapes"),
                       outputs->getArray("strides"), outputs->getArray("types"),
                       node.outputs, nullptr, nullptr);
    if (const json::Array *attrs = object->getArray("attrs")) {
      for (const json::Value &attr : *attrs) {
        const json::Object *a = attr.getAsObject();
        if (!a)
          continue;
        StringRef attrName = a->getString("name").value_or("");
        const json::Value *value = a->get("value");
        if (attrName == "rf_id")
          node.rfId = asLooseInteger(value, -1);
        else if (attrName == "tid")
          node.tid = asLooseInteger(value, 0);
        else if (attrName == "seq_id")
          node.seqId = asLooseInteger(value, -1);
        else if (attrName == "op_schema" && value)
          node.opSchema = value->getAsString().value_or("").str();
      }
    }
  } else {
    // 1.0.1 layout.
    node.parent = object->getInteger("parent").value_or(-1);
    node.rfId = object->getInteger("rf_id").value_or(-1);
    node.tid = object->getInteger("tid").value_or(0);
    node.seqId = object->getInteger("seq_id").value_or(-1);
    node.opSchema = object->getString("op_schema").value_or("").str();
    collectArguments(
        object->getArray("inputs"), object->getArray("input_shapes"),
        object->getArray("input_strides"), object->getArray("input_types"),
        node.inputs, &node.scalarInputs, &node.inputTypes);
    collectArguments(
        object->getArray("outputs"), object->getArray("output_shapes"),
        object->getArray("output_strides"), object->getArray("output_types"),
        node.outputs, nullptr, nullptr);
  }
  node.isOperator = !node.name.empty() && !isAnnotationName(node.name);
  if (!trace.indexById.try_emplace(node.id, trace.nodeList.size()).second)
    return traceError(origin, formatv("duplicate node id {0}", node.id));
  if (node.rfId >= 0)
    trace.indexByRfId.try_emplace(node.rfId, trace.nodeList.size());
  trace.nodeList.push_back(std::move(node));
  return Error::success();
}

Expected<ExecutionTrace> ExecutionTrace::load(StringRef path) {
  Expected<InputText> text = InputText::read(path);
  if (!text)
    return text.takeError();
  return parseText(text->text(), path);
}

Expected<ExecutionTrace> ExecutionTrace::loadBytes(StringRef bytes,
                                                   StringRef origin) {
  Expected<InputText> text = InputText::of(bytes, origin);
  if (!text)
    return text.takeError();
  return parseText(text->text(), origin);
}

Expected<ExecutionTrace> ExecutionTrace::parse(const json::Value &root,
                                               StringRef origin) {
  const json::Object *top = root.getAsObject();
  if (!top)
    return traceError(origin, "not an execution trace (top level is not an "
                              "object)");
  const json::Array *nodes = top->getArray("nodes");
  if (!nodes)
    return traceError(origin, "not an execution trace (no \"nodes\" array)");
  ExecutionTrace trace;
  if (Error error = trace.readHeader(*top, origin))
    return std::move(error);
  trace.nodeList.reserve(nodes->size());
  for (size_t i = 0, e = nodes->size(); i < e; ++i)
    if (Error error = trace.addNode((*nodes)[i], i, origin))
      return std::move(error);
  trace.buildStructure();
  return trace;
}

Expected<ExecutionTrace>
ExecutionTrace::parseText(StringRef text, StringRef origin, size_t sliceBytes) {
  // The nodes are read a slice at a time (JsonOutline): one slice's JSON
  // tree (llvm::json takes about 37 bytes per byte of text) is alive at
  // once, not the whole trace's.
  Expected<JsonOutline> outline =
      outlineJson(text, origin, "nodes", sliceBytes);
  if (!outline)
    return outline.takeError();
  Expected<json::Value> root = json::parse(outline->skeleton);
  if (!root)
    return locateJsonError(
        root.takeError(),
        [&](size_t k) { return outline->textOffsetOfSkeleton(k); }, text,
        origin);
  // A root that is not an object, or whose "nodes" (the last of that key,
  // as llvm::json keeps it) is not one of the arrays the outline cut: the
  // whole-tree reader says what is wrong.
  const json::Object *top = root->getAsObject();
  if (!top || !top->getArray("nodes") || outline->arrays.empty())
    return parse(*root, origin);
  ExecutionTrace trace;
  if (Error error = trace.readHeader(*top, origin))
    return std::move(error);
  std::string buffer;
  size_t index = 0;
  if (Error error = forEachSlice(
          text, outline->arrays.back(), origin, buffer, /*padding=*/0,
          [&](StringRef slice, size_t begin) -> Expected<size_t> {
            Expected<json::Value> part = json::parse(slice);
            if (!part)
              return locateJsonError(
                  part.takeError(), [&](size_t k) { return begin + k; }, text,
                  origin);
            const json::Array &elements = *part->getAsArray();
            for (const json::Value &value : elements)
              if (Error error = trace.addNode(value, index++, origin))
                return std::move(error);
            return elements.size();
          }))
    return std::move(error);
  trace.buildStructure();
  return trace;
}

const ExecNode *ExecutionTrace::findNode(int64_t id) const {
  auto it = indexById.find(id);
  return it == indexById.end() ? nullptr : &nodeList[it->second];
}

const ExecNode *ExecutionTrace::findByRfId(int64_t rfId) const {
  auto it = indexByRfId.find(rfId);
  return it == indexByRfId.end() ? nullptr : &nodeList[it->second];
}

void ExecutionTrace::buildStructure() {
  size_t count = nodeList.size();
  // Parent index per node; -1 for roots, self-parents and dangling parents.
  std::vector<int64_t> parentIndex(count, -1);
  for (size_t i = 0; i < count; ++i) {
    const ExecNode &node = nodeList[i];
    if (node.parent == node.id)
      continue; // the process root names itself as parent
    auto it = indexById.find(node.parent);
    if (it == indexById.end())
      continue;
    parentIndex[i] = it->second;
  }
  // Operator-ancestor flags with cycle detection: 0 unknown, 1 on the current
  // walk, 2 done.
  std::vector<uint8_t> state(count, 0);
  std::vector<uint8_t> hasOperatorAncestor(count, 0);
  SmallVector<size_t> walk;
  for (size_t start = 0; start < count; ++start) {
    if (state[start] == 2)
      continue;
    walk.clear();
    size_t current = start;
    bool cycle = false;
    while (true) {
      if (state[current] == 2)
        break;
      if (state[current] == 1) {
        cycle = true;
        break;
      }
      state[current] = 1;
      walk.push_back(current);
      if (parentIndex[current] < 0)
        break;
      current = parentIndex[current];
    }
    if (cycle) {
      // Break the cycle at the node where the walk closed on itself.
      ++brokenParents;
      parentIndex[current] = -1;
    }
    // Resolve from the top of the walk downwards.
    for (size_t k = walk.size(); k-- > 0;) {
      size_t n = walk[k];
      int64_t p = parentIndex[n];
      hasOperatorAncestor[n] =
          p >= 0 && (nodeList[p].isOperator || hasOperatorAncestor[p]);
      state[n] = 2;
    }
  }
  for (size_t i = 0; i < count; ++i)
    if (parentIndex[i] >= 0)
      nodeList[parentIndex[i]].children.push_back(i);
  for (size_t i = 0; i < count; ++i) {
    llvm::sort(nodeList[i].children, [&](size_t a, size_t b) {
      return nodeList[a].id < nodeList[b].id;
    });
    if (nodeList[i].isOperator && !hasOperatorAncestor[i])
      topLevel.push_back(i);
  }
  llvm::sort(topLevel, [&](size_t a, size_t b) {
    return nodeList[a].id < nodeList[b].id;
  });

  // Tensor ids are the trace's, any int64 (DenseMap reserves two).
  std::unordered_map<int64_t, size_t> lastWriter;
  for (size_t index : topLevel) {
    const ExecNode &node = nodeList[index];
    std::vector<size_t> deps;
    for (const TensorArg &input : node.inputs) {
      auto it = lastWriter.find(input.tensorId);
      if (it != lastWriter.end() && it->second != index)
        deps.push_back(it->second);
    }
    llvm::sort(deps);
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    if (!deps.empty())
      producers[index] = std::move(deps);
    for (const TensorArg &output : node.outputs)
      lastWriter[output.tensorId] = index;
  }
}

std::vector<size_t> ExecutionTrace::producersOf(size_t index) const {
  auto it = producers.find(index);
  return it == producers.end() ? std::vector<size_t>() : it->second;
}

} // namespace trace
} // namespace perf
