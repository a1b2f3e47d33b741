//===- DocNode.cpp - A JSON-shaped document read in place -----------------===//

#include "perf/Support/DocNode.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include <cmath>
#include <limits>
#include <type_traits>

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

/// A double that is an integer in range, as llvm::json::Value::getAsInteger
/// reads one.
std::optional<int64_t> wholeNumber(double value) {
  double whole;
  if (std::modf(value, &whole) == 0.0 &&
      whole >= double(std::numeric_limits<int64_t>::min()) &&
      whole <= double(std::numeric_limits<int64_t>::max()))
    return int64_t(whole);
  return std::nullopt;
}

/// Calls `fn` with a value of the C++ type of UBJSON's numeric `marker`
/// (one packedElementSize knows).
template <typename Fn> decltype(auto) visitPackedType(char marker, Fn &&fn) {
  switch (marker) {
  case 'i':
    return fn(int8_t());
  case 'U':
    return fn(uint8_t());
  case 'I':
    return fn(int16_t());
  case 'l':
    return fn(int32_t());
  case 'L':
    return fn(int64_t());
  case 'd':
    return fn(float());
  default:
    return fn(double());
  }
}

/// The big-endian T at `p`, a float read through its bits.
template <typename T> T readPacked(const char *p) {
  if constexpr (std::is_same_v<T, float>)
    return llvm::bit_cast<float>(readBig<uint32_t>(p));
  else if constexpr (std::is_same_v<T, double>)
    return llvm::bit_cast<double>(readBig<uint64_t>(p));
  else
    return readBig<T>(p);
}

/// Element `i` of a packed array: an integer or a floating-point number, as
/// the node it would have been read as holds it (decoded in place: a booster
/// has hundreds of thousands).
struct PackedElement {
  bool integral;
  int64_t integer;
  double number;
};
PackedElement packedElement(char marker, llvm::StringRef bytes, size_t i) {
  return visitPackedType(marker, [&](auto type) -> PackedElement {
    using T = decltype(type);
    T value = readPacked<T>(bytes.data() + i * sizeof(T));
    if constexpr (std::is_floating_point_v<T>)
      return {false, 0, double(value)};
    else
      return {true, int64_t(value), 0};
  });
}
} // namespace

std::optional<int64_t> DocNode::getAsInteger() const {
  if (kindOf == Kind::Integer)
    return integerValue;
  if (kindOf == Kind::Number)
    return wholeNumber(numberValue);
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
  if (packedMarker) {
    PackedElement e = packedElement(packedMarker, text, i);
    return e.integral ? std::optional<int64_t>(e.integer)
                      : wholeNumber(e.number);
  }
  return items[i].getAsInteger();
}

std::optional<double> DocNode::numberAt(size_t i) const {
  if (kindOf != Kind::Array || i >= size())
    return std::nullopt;
  if (packedMarker) {
    PackedElement e = packedElement(packedMarker, text, i);
    return e.integral ? double(e.integer) : e.number;
  }
  return items[i].getAsNumber();
}

namespace {
/// Appends `as(value)` for each of `values`; false at the first it rejects.
template <typename Out, typename Range, typename As>
bool appendEach(const Range &values, std::vector<Out> &out, As as) {
  out.reserve(out.size() + llvm::size(values));
  for (const auto &value : values) {
    std::optional<Out> read = as(value);
    if (!read)
      return false;
    out.push_back(*read);
  }
  return true;
}

/// Appends every element of a packed array of type `marker`, each read as
/// an integer by `integer` or a floating-point number by `number`.
template <typename Out, typename Integer, typename Number>
bool appendPackedArray(char marker, llvm::StringRef bytes, uint64_t count,
                       std::vector<Out> &out, Integer integer, Number number) {
  return visitPackedType(marker, [&](auto type) {
    using T = decltype(type);
    return appendEach(llvm::seq<uint64_t>(0, count), out, [&](uint64_t i) {
      T value = readPacked<T>(bytes.data() + i * sizeof(T));
      if constexpr (std::is_floating_point_v<T>)
        return number(double(value));
      else
        return integer(int64_t(value));
    });
  });
}
} // namespace

bool DocNode::appendIntegers(std::vector<int64_t> &out) const {
  if (kindOf != Kind::Array)
    return false;
  if (packedMarker)
    return appendPackedArray(
        packedMarker, text, packedCount, out,
        [](int64_t v) { return std::optional<int64_t>(v); }, wholeNumber);
  return appendEach(items, out,
                    [](const DocNode &item) { return item.getAsInteger(); });
}

bool DocNode::appendNumbers(std::vector<double> &out) const {
  if (kindOf != Kind::Array)
    return false;
  if (packedMarker)
    return appendPackedArray(
        packedMarker, text, packedCount, out,
        [](int64_t v) { return std::optional<double>(double(v)); },
        [](double v) { return std::optional<double>(v); });
  return appendEach(items, out,
                    [](const DocNode &item) { return item.getAsNumber(); });
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
