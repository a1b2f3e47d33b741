//===- DocNode.cpp - A JSON-shaped document read in place -----------------===//

#include "perf/Support/DocNode.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include <cmath>
#include <limits>

using namespace perf;

DocNode DocNode::boolean(bool value) {
  DocNode n(Kind::Boolean);
  n.booleanValue = value;
  return n;
}

DocNode DocNode::integer(int64_t value) {
  DocNode n(Kind::Integer);
  n.integerValue = value;
  return n;
}

DocNode DocNode::number(double value) {
  DocNode n(Kind::Number);
  n.numberValue = value;
  return n;
}

DocNode DocNode::string(llvm::StringRef value) {
  DocNode n(Kind::String);
  n.text = value;
  return n;
}

DocNode DocNode::array(std::vector<DocNode> items) {
  DocNode n(Kind::Array);
  n.items = std::move(items);
  return n;
}

DocNode DocNode::packedArray(char marker, uint64_t count,
                             llvm::StringRef bytes) {
  assert(packedElementSize(marker) &&
         bytes.size() == count * packedElementSize(marker));
  DocNode n(Kind::Array);
  n.packedMarker = marker;
  n.packedCount = count;
  n.text = bytes;
  return n;
}

DocNode
DocNode::object(std::vector<std::pair<llvm::StringRef, DocNode>> fields) {
  DocNode n(Kind::Object);
  n.members = std::move(fields);
  return n;
}

DocNode DocNode::fromJson(const llvm::json::Value &value) {
  switch (value.kind()) {
  case llvm::json::Value::Null:
    return null();
  case llvm::json::Value::Boolean:
    return boolean(*value.getAsBoolean());
  case llvm::json::Value::Number:
    // getAsInteger and getAsNumber of either node agree with the value's.
    if (std::optional<int64_t> i = value.getAsInteger())
      return integer(*i);
    return number(*value.getAsNumber());
  case llvm::json::Value::String:
    return string(*value.getAsString());
  case llvm::json::Value::Array: {
    std::vector<DocNode> items;
    items.reserve(value.getAsArray()->size());
    for (const llvm::json::Value &v : *value.getAsArray())
      items.push_back(fromJson(v));
    return array(std::move(items));
  }
  case llvm::json::Value::Object: {
    std::vector<std::pair<llvm::StringRef, DocNode>> fields;
    for (const auto &[key, v] : *value.getAsObject())
      fields.emplace_back(llvm::StringRef(key), fromJson(v));
    return object(std::move(fields));
  }
  }
  return null();
}

unsigned DocNode::packedElementSize(char marker) {
  switch (marker) {
  case 'i':
  case 'U':
    return 1;
  case 'I':
    return 2;
  case 'l':
  case 'd':
    return 4;
  case 'L':
  case 'D':
    return 8;
  default:
    return 0;
  }
}

namespace {
template <typename T> T readBig(const char *p) {
  return llvm::support::endian::read<T, llvm::endianness::big>(p);
}

/// Element `i` of a packed array, as the node it would have been read as.
DocNode packedElement(char marker, llvm::StringRef bytes, size_t i) {
  const char *p = bytes.data() + i * DocNode::packedElementSize(marker);
  switch (marker) {
  case 'i':
    return DocNode::integer(readBig<int8_t>(p));
  case 'U':
    return DocNode::integer(readBig<uint8_t>(p));
  case 'I':
    return DocNode::integer(readBig<int16_t>(p));
  case 'l':
    return DocNode::integer(readBig<int32_t>(p));
  case 'L':
    return DocNode::integer(readBig<int64_t>(p));
  case 'd':
    return DocNode::number(llvm::bit_cast<float>(readBig<uint32_t>(p)));
  default:
    return DocNode::number(llvm::bit_cast<double>(readBig<uint64_t>(p)));
  }
}
} // namespace

std::optional<int64_t> DocNode::getAsInteger() const {
  if (kindOf == Kind::Integer)
    return integerValue;
  // As llvm::json::Value::getAsInteger: a double that is an integer in range.
  double whole;
  if (kindOf == Kind::Number && std::modf(numberValue, &whole) == 0.0 &&
      whole >= double(std::numeric_limits<int64_t>::min()) &&
      whole <= double(std::numeric_limits<int64_t>::max()))
    return int64_t(whole);
  return std::nullopt;
}

std::optional<double> DocNode::getAsNumber() const {
  if (kindOf == Kind::Integer)
    return double(integerValue);
  if (kindOf == Kind::Number)
    return numberValue;
  return std::nullopt;
}

std::optional<llvm::StringRef> DocNode::getAsString() const {
  if (kindOf == Kind::String)
    return text;
  return std::nullopt;
}

size_t DocNode::size() const {
  if (kindOf == Kind::Object)
    return members.size();
  return packedMarker ? packedCount : items.size();
}

std::optional<int64_t> DocNode::integerAt(size_t i) const {
  if (kindOf != Kind::Array || i >= size())
    return std::nullopt;
  if (packedMarker)
    return packedElement(packedMarker, text, i).getAsInteger();
  return items[i].getAsInteger();
}

std::optional<double> DocNode::numberAt(size_t i) const {
  if (kindOf != Kind::Array || i >= size())
    return std::nullopt;
  if (packedMarker)
    return packedElement(packedMarker, text, i).getAsNumber();
  return items[i].getAsNumber();
}

const DocNode *DocNode::at(size_t i) const {
  if (kindOf != Kind::Array || packedMarker || i >= items.size())
    return nullptr;
  return &items[i];
}

const DocNode *DocNode::get(llvm::StringRef key) const {
  for (const auto &[name, value] : llvm::reverse(members))
    if (name == key)
      return &value;
  return nullptr;
}

const DocNode *DocNode::getObject(llvm::StringRef key) const {
  const DocNode *n = get(key);
  return n && n->isObject() ? n : nullptr;
}

const DocNode *DocNode::getArray(llvm::StringRef key) const {
  const DocNode *n = get(key);
  return n && n->isArray() ? n : nullptr;
}

std::optional<llvm::StringRef> DocNode::getString(llvm::StringRef key) const {
  const DocNode *n = get(key);
  return n ? n->getAsString() : std::nullopt;
}

std::optional<int64_t> DocNode::getInteger(llvm::StringRef key) const {
  const DocNode *n = get(key);
  return n ? n->getAsInteger() : std::nullopt;
}
