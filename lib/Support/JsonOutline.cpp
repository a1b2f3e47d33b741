//===- JsonOutline.cpp - The large arrays of a JSON text, in slices -------===//

#include "perf/Support/JsonOutline.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/Limits.h"
#include "llvm/Support/JSON.h"
#include <algorithm>
#include <cstring>

using namespace perf;

size_t JsonOutline::textOffsetOfSkeleton(size_t offset) const {
  auto after = std::upper_bound(
      pieces.begin(), pieces.end(), offset,
      [](size_t o, const std::pair<size_t, size_t> &p) { return o < p.first; });
  if (after == pieces.begin())
    return offset;
  const auto &[skeletonStart, textStart] = *std::prev(after);
  return textStart + (offset - skeletonStart);
}

std::vector<std::pair<size_t, size_t>> JsonOutline::slices(const Array &array) {
  std::vector<std::pair<size_t, size_t>> result;
  size_t start = array.begin;
  for (size_t cut : array.cuts) {
    result.push_back({start, cut});
    start = cut;
  }
  result.push_back({start, array.end - 1});
  return result;
}

/// The closing quote of the string whose opening quote is at `open`, or
/// npos. A quote preceded by an odd run of backslashes is escaped.
static size_t closingQuote(llvm::StringRef text, size_t open) {
  const char *data = text.data();
  size_t from = open + 1;
  while (from < text.size()) {
    const void *found = std::memchr(data + from, '"', text.size() - from);
    if (!found)
      return llvm::StringRef::npos;
    size_t quote = static_cast<const char *>(found) - data;
    size_t backslashes = 0;
    while (quote - backslashes > open + 1 &&
           data[quote - backslashes - 1] == '\\')
      ++backslashes;
    if (backslashes % 2 == 0)
      return quote;
    from = quote + 1;
  }
  return llvm::StringRef::npos;
}

llvm::Expected<JsonOutline> perf::outlineJson(llvm::StringRef text,
                                              llvm::StringRef path,
                                              llvm::StringRef key,
                                              size_t sliceBytes) {
  JsonOutline outline;
  int64_t depth = 0;
  bool rootIsObject = false, seenRoot = false;
  // Within the root object: the last string at depth 1 (a key when a ':'
  // follows), and whether the value being started belongs to `key`.
  llvm::StringRef lastString;
  bool valueOfKey = false;
  // The array being cut: the depth of its elements' separators, 0 if none.
  int64_t arrayDepth = 0;
  JsonOutline::Array array;
  size_t lastCut = 0;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    switch (c) {
    case '"': {
      size_t close = closingQuote(text, i);
      if (close == llvm::StringRef::npos)
        return fileErrorAt(text, i, path, "invalid JSON: unterminated string");
      if (depth == 1 && rootIsObject)
        lastString = text.slice(i + 1, close);
      i = close;
      break;
    }
    case ':':
      if (depth == 1 && rootIsObject) {
        valueOfKey = lastString == key;
        lastString = {};
      }
      break;
    case ',':
      if (depth == arrayDepth && i - lastCut >= sliceBytes) {
        array.cuts.push_back(i);
        lastCut = i;
      }
      if (depth == 1)
        valueOfKey = false;
      break;
    case '[':
    case '{': {
      if (!seenRoot) {
        seenRoot = true;
        rootIsObject = c == '{';
      }
      bool startsArray =
          c == '[' && ((depth == 0) || (depth == 1 && valueOfKey));
      if (depth == 1)
        valueOfKey = false;
      if (++depth > kMaxJsonDepth.max)
        return jsonTooDeepError(text, i, path);
      if (startsArray && arrayDepth == 0) {
        arrayDepth = depth;
        array = {};
        array.begin = lastCut = i;
      }
      break;
    }
    case ']':
    case '}':
      if (depth == arrayDepth) {
        // The slices are parsed with a ']' of their own: this one must be.
        if (c != ']')
          return fileErrorAt(text, i, path,
                             "invalid JSON: '}' closes an array");
        array.end = i + 1;
        outline.arrays.push_back(std::move(array));
        arrayDepth = 0;
      }
      if (--depth < 0)
        return fileErrorAt(text, i, path,
                           llvm::Twine("invalid JSON: unbalanced '") +
                               llvm::Twine(c) + "'");
      break;
    default:
      break;
    }
  }
  if (depth > 0)
    return fileErrorAt(text, text.size(), path,
                       "invalid JSON: the text ends inside " +
                           llvm::Twine(depth) + " unclosed brackets");

  size_t from = 0;
  for (const JsonOutline::Array &a : outline.arrays) {
    outline.pieces.push_back({outline.skeleton.size(), from});
    outline.skeleton.append(text.data() + from, a.begin - from);
    outline.pieces.push_back({outline.skeleton.size(), a.begin});
    outline.skeleton += "[]";
    from = a.end;
  }
  outline.pieces.push_back({outline.skeleton.size(), from});
  outline.skeleton.append(text.data() + from, text.size() - from);
  return outline;
}

llvm::Error perf::locateJsonError(llvm::Error error,
                                  llvm::function_ref<size_t(size_t)> toWhole,
                                  llvm::StringRef whole, llvm::StringRef path) {
  std::string message = llvm::toString(std::move(error));
  std::optional<JsonParseMessage> split = splitJsonParseMessage(message);
  size_t at = std::min(toWhole(split ? split->byte : 0), whole.size());
  return fileErrorAt(whole, at, path,
                     "invalid JSON: " + (split ? split->what : message));
}

llvm::Error perf::jsonErrorInPart(llvm::StringRef part,
                                  llvm::function_ref<size_t(size_t)> toWhole,
                                  llvm::StringRef whole, llvm::StringRef path,
                                  llvm::StringRef fallback) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(part);
  if (json)
    return fileErrorAt(whole, std::min(toWhole(0), whole.size()), path,
                       "invalid JSON: " + fallback);
  return locateJsonError(json.takeError(), toWhole, whole, path);
}

llvm::Error perf::forEachSlice(
    llvm::StringRef text, const JsonOutline::Array &array, llvm::StringRef path,
    std::string &buffer, size_t padding,
    llvm::function_ref<llvm::Expected<size_t>(llvm::StringRef, size_t)> read) {
  std::vector<std::pair<size_t, size_t>> slices = JsonOutline::slices(array);
  for (auto [begin, end] : slices) {
    // The slice's '[' or cut ',' opens it; a ']' closes it.
    buffer.reserve(end - begin + 1 + padding);
    buffer.assign(1, '[');
    buffer.append(text.data() + begin + 1, end - begin - 1);
    buffer += ']';
    llvm::Expected<size_t> elements = read(buffer, begin);
    if (!elements)
      return elements.takeError();
    if (*elements == 0 && slices.size() > 1) {
      bool first = begin == array.begin;
      return fileErrorAt(text, first ? slices[1].first : begin, path,
                         first ? "invalid JSON: a ',' with no value before it"
                               : "invalid JSON: a ',' with no value after it");
    }
  }
  return llvm::Error::success();
}
