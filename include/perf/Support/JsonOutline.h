//===- JsonOutline.h - The large arrays of a JSON text, in slices -*- C++
//-*-===//
//
// A parser that indexes its whole input (simdjson keeps four bytes per
// structural character, and its string buffer besides) needs memory in
// proportion to the text. A trace is one large array of small events, so it
// is read one slice of whole elements at a time: one pass over the bytes,
// tracking only strings and brackets, finds the arrays the reader wants and
// where to cut them, and checks the nesting limit on the way. The parser
// then validates every byte: the skeleton (the text with those arrays
// emptied) and each slice, in order.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_JSONOUTLINE_H
#define PERF_SUPPORT_JSONOUTLINE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace perf {

struct JsonOutline {
  /// One array of the text: its bytes [begin, end), '[' to ']', and the
  /// element-separating commas where a slice starts after the first.
  struct Array {
    size_t begin = 0, end = 0;
    std::vector<size_t> cuts;
  };
  /// The root array, or each member of the root object named with the key
  /// asked for whose value is an array, in text order.
  std::vector<Array> arrays;

  /// The text with each array of `arrays` replaced by `[]`: the rest of the
  /// document, to parse whole.
  std::string skeleton;
  /// Where the skeleton's bytes come from: pieces (skeleton offset, text
  /// offset), ascending; a skeleton offset maps to the text offset of its
  /// piece plus the distance into it.
  std::vector<std::pair<size_t, size_t>> pieces;

  /// The text offset of skeleton offset `offset`.
  size_t textOffsetOfSkeleton(size_t offset) const;

  /// The slices of `array`: ranges [begin, end) of the text, each starting
  /// at its '[' or a cut ',' and ending before the next cut or the ']'.
  static std::vector<std::pair<size_t, size_t>> slices(const Array &array);
};

/// Outlines JSON `text` (read from `path`, which errors name): the root
/// array, or the root object's members keyed `key` whose values are arrays,
/// cut after roughly every `sliceBytes` bytes at an element boundary. Refuses
/// nesting past max-json-depth, an unterminated string and unbalanced
/// brackets, with the line and column; everything else is left for the
/// parser to validate.
llvm::Expected<JsonOutline> outlineJson(llvm::StringRef text,
                                        llvm::StringRef path,
                                        llvm::StringRef key, size_t sliceBytes);

/// Calls `read` on each slice of `array` (a part of `text`, read from
/// `path`) made a JSON array of its own: '[', the slice's elements, ']',
/// in `buffer` (reused from slice to slice, with `padding` bytes reserved
/// past the end for a parser that reads ahead). `read` gives the number of
/// elements it read, or an error whose place in the slice (byte k of the
/// slice is byte begin + k of `text`) it has located itself. A slice with
/// no element, of an array cut in several, is a ',' with no value next to
/// it: an error at that comma, as the array read whole would give.
llvm::Error
forEachSlice(llvm::StringRef text, const JsonOutline::Array &array,
             llvm::StringRef path, std::string &buffer, size_t padding,
             llvm::function_ref<llvm::Expected<size_t>(llvm::StringRef slice,
                                                       size_t begin)>
                 read);

/// An "invalid JSON" error for llvm::json's parse `error` of text made from
/// `whole` (byte k of it is byte toWhole(k) of `whole`), located in `whole`.
llvm::Error locateJsonError(llvm::Error error,
                            llvm::function_ref<size_t(size_t)> toWhole,
                            llvm::StringRef whole, llvm::StringRef path);

/// An "invalid JSON" error for `part`, text made from `whole` (byte k of
/// `part` is byte toWhole(k) of `whole`), located where llvm::json finds
/// the first error in `part` (another parser refused it); `fallback` says
/// what is wrong (at the part's start) if llvm::json accepts it.
llvm::Error jsonErrorInPart(llvm::StringRef part,
                            llvm::function_ref<size_t(size_t)> toWhole,
                            llvm::StringRef whole, llvm::StringRef path,
                            llvm::StringRef fallback);

} // namespace perf

#endif // PERF_SUPPORT_JSONOUTLINE_H
