//===- Ubjson.cpp - Universal Binary JSON within the limits --------------===//
//
// XGBoost stores boosters as UBJSON (https://ubjson.org): JSON's values with
// big-endian binary numbers, length-prefixed strings and containers that may
// declare their element type and count up front. The reader recurses once
// per container, so nesting is bounded by max-json-depth, and every length
// or count is checked against the bytes left before anything is allocated:
// a damaged file is an error at its byte offset, never a crash or a huge
// allocation. Strings point into the bytes and packed numeric arrays stay
// packed (DocNode), so a booster of a million numbers is read without a
// value per number.
//
//===----------------------------------------------------------------------===//

#include "perf/Support/DocNode.h"
#include "perf/Support/InputError.h"
#include "perf/Support/Limits.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

using namespace perf;

namespace {
/// "'x'" for a printable marker, "0x1f" for another byte.
std::string markerName(char m) {
  if (llvm::isPrint(m))
    return std::string("'") + m + "'";
  return llvm::formatv("{0:x2}", unsigned(uint8_t(m))).str();
}

class UbjsonReader {
public:
  UbjsonReader(llvm::StringRef bytes, llvm::StringRef path)
      : bytes(bytes), path(path) {}

  llvm::Expected<DocNode> document() {
    auto value = readValue(/*depth=*/0);
    if (value && pos != bytes.size())
      return bad("trailing bytes after the document");
    return value;
  }

private:
  llvm::Error bad(const llvm::Twine &message) const {
    return fileError(path,
                     "UBJSON at byte " + llvm::Twine(pos) + ": " + message);
  }

  /// 'N' is a no-op marker that may stand anywhere a value may.
  void skipNoOps() {
    while (pos < bytes.size() && bytes[pos] == 'N')
      ++pos;
  }

  llvm::Expected<char> marker() {
    skipNoOps();
    if (pos >= bytes.size())
      return bad("the document ends early");
    return bytes[pos++];
  }

  /// `n` raw bytes, or an error when fewer are left.
  llvm::Expected<llvm::StringRef> take(uint64_t n) {
    if (n > bytes.size() - pos)
      return bad(
          llvm::formatv("{0} bytes needed, {1} left", n, bytes.size() - pos)
              .str());
    llvm::StringRef out = bytes.substr(pos, n);
    pos += n;
    return out;
  }

  template <typename T> llvm::Expected<T> bigEndian() {
    auto raw = take(sizeof(T));
    if (!raw)
      return raw.takeError();
    return llvm::support::endian::read<T, llvm::endianness::big>(raw->data());
  }

  /// A big-endian IEEE number of type FloatT.
  template <typename FloatT, typename BitsT> llvm::Expected<DocNode> number() {
    auto bits = bigEndian<BitsT>();
    if (!bits)
      return bits.takeError();
    return DocNode::number(double(llvm::bit_cast<FloatT>(*bits)));
  }

  /// An integer after the marker `m`; nullopt (no error) when `m` is not an
  /// integer marker.
  llvm::Expected<std::optional<int64_t>> integerOf(char m) {
    switch (m) {
    case 'i':
      return wrap(bigEndian<int8_t>());
    case 'U':
      return wrap(bigEndian<uint8_t>());
    case 'I':
      return wrap(bigEndian<int16_t>());
    case 'l':
      return wrap(bigEndian<int32_t>());
    case 'L':
      return wrap(bigEndian<int64_t>());
    default:
      return std::optional<int64_t>();
    }
  }
  template <typename T>
  static llvm::Expected<std::optional<int64_t>> wrap(llvm::Expected<T> v) {
    if (!v)
      return v.takeError();
    return std::optional<int64_t>(int64_t(*v));
  }

  /// A length or count: a non-negative integer of any integer type.
  llvm::Expected<uint64_t> length() {
    auto m = marker();
    if (!m)
      return m.takeError();
    auto n = integerOf(*m);
    if (!n)
      return n.takeError();
    if (!*n)
      return bad("a length must be an integer, got marker " + markerName(*m));
    if (**n < 0)
      return bad("negative length " + llvm::Twine(**n));
    return uint64_t(**n);
  }

  /// A length-prefixed string, its bytes as they are.
  llvm::Expected<llvm::StringRef> string() {
    auto n = length();
    if (!n)
      return n.takeError();
    return take(*n);
  }

  /// The value after the marker `m`.
  llvm::Expected<DocNode> valueOf(char m, unsigned depth) {
    auto integer = integerOf(m);
    if (!integer)
      return integer.takeError();
    if (*integer)
      return DocNode::integer(**integer);
    switch (m) {
    case 'Z':
      return DocNode::null();
    case 'T':
      return DocNode::boolean(true);
    case 'F':
      return DocNode::boolean(false);
    case 'd':
      return number<float, uint32_t>();
    case 'D':
      return number<double, uint64_t>();
    case 'C': {
      auto c = take(1);
      if (!c)
        return c.takeError();
      return DocNode::string(*c);
    }
    case 'S':
    case 'H': {
      // 'H' is a number kept as its decimal text.
      auto s = string();
      if (!s)
        return s.takeError();
      return DocNode::string(*s);
    }
    case '[':
    case '{':
      if (depth + 1 > unsigned(kMaxJsonDepth.max))
        return bad(limitExceeded("nesting", depth + 1, kMaxJsonDepth));
      return m == '[' ? array(depth + 1) : object(depth + 1);
    default:
      return bad("unknown marker " + markerName(m));
    }
  }

  llvm::Expected<DocNode> readValue(unsigned depth) {
    auto m = marker();
    if (!m)
      return m.takeError();
    return valueOf(*m, depth);
  }

  /// A container's optional '$' type and '#' count. Without a count the
  /// container ends with `close`.
  struct Header {
    std::optional<char> type;
    std::optional<uint64_t> count;
  };
  llvm::Expected<Header> header() {
    Header h;
    if (pos < bytes.size() && bytes[pos] == '$') {
      ++pos;
      auto t = take(1);
      if (!t)
        return t.takeError();
      h.type = (*t)[0];
      if (pos >= bytes.size() || bytes[pos] != '#')
        return bad("a typed container needs a count ('#')");
    }
    if (pos < bytes.size() && bytes[pos] == '#') {
      ++pos;
      auto n = length();
      if (!n)
        return n.takeError();
      // Every element takes a byte at least, except the payload-free
      // markers, which are refused as a container type.
      if (h.type && llvm::StringRef("ZTFN").contains(*h.type))
        return bad("container of type " + markerName(*h.type) +
                   " holds no data");
      if (*n > bytes.size() - pos)
        return bad(llvm::formatv("count {0} exceeds the {1} bytes left", *n,
                                 bytes.size() - pos)
                       .str());
      h.count = *n;
    }
    return h;
  }

  llvm::Expected<DocNode> element(const Header &h, unsigned depth) {
    return h.type ? valueOf(*h.type, depth) : readValue(depth);
  }

  llvm::Expected<DocNode> array(unsigned depth) {
    auto h = header();
    if (!h)
      return h.takeError();
    // A counted array of one numeric type stays as its bytes.
    if (h->type)
      if (unsigned size = DocNode::packedElementSize(*h->type)) {
        if (*h->count > (bytes.size() - pos) / size)
          return bad(llvm::formatv("{0} elements of {1} bytes need more than "
                                   "the {2} bytes left",
                                   *h->count, size, bytes.size() - pos)
                         .str());
        auto raw = take(*h->count * size);
        if (!raw)
          return raw.takeError();
        return DocNode::packedArray(*h->type, *h->count, *raw);
      }
    std::vector<DocNode> out;
    if (h->count)
      out.reserve(*h->count);
    for (uint64_t i = 0;; ++i) {
      if (h->count ? i == *h->count : closes(']'))
        return DocNode::array(std::move(out));
      auto v = element(*h, depth);
      if (!v)
        return v.takeError();
      out.push_back(std::move(*v));
    }
  }

  llvm::Expected<DocNode> object(unsigned depth) {
    auto h = header();
    if (!h)
      return h.takeError();
    std::vector<std::pair<llvm::StringRef, DocNode>> out;
    if (h->count)
      out.reserve(*h->count);
    for (uint64_t i = 0;; ++i) {
      if (h->count ? i == *h->count : closes('}'))
        return DocNode::object(std::move(out));
      // Keys are strings without their 'S' marker.
      auto key = string();
      if (!key)
        return key.takeError();
      auto v = element(*h, depth);
      if (!v)
        return v.takeError();
      out.emplace_back(*key, std::move(*v));
    }
  }

  /// Consumes `close` (after no-ops) when it comes next.
  bool closes(char close) {
    skipNoOps();
    if (pos < bytes.size() && bytes[pos] == close) {
      ++pos;
      return true;
    }
    return false;
  }

  llvm::StringRef bytes;
  llvm::StringRef path;
  size_t pos = 0;
};
} // namespace

llvm::Expected<DocNode> perf::parseUbjsonInput(llvm::StringRef bytes,
                                               llvm::StringRef path) {
  return UbjsonReader(bytes, path).document();
}
