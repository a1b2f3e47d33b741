//===- InputFile.h - Reading input files within the limits ------*- C++ -*-===//
//
// Every reader of a file perf did not write goes through these: the size is
// checked before the file is read, JSON nesting before it is parsed (the
// parsers recurse), and errors are InputErrors naming the file and, for
// JSON syntax, the line and column.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_INPUTFILE_H
#define PERF_SUPPORT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <optional>
#include <string>

namespace perf {

/// The bytes of `path` ("-": stdin), refused above max-input-bytes.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readInputFile(llvm::StringRef path);

/// `bytes` (read from `path`, which errors name), inflated when they start
/// with the gzip magic, within max-input-bytes.
llvm::Expected<std::string> inflateIfGzipped(llvm::StringRef bytes,
                                             llvm::StringRef path);

/// The bytes of `path`, inflated when it is gzip-compressed (by its magic
/// bytes, whatever its name); the inflated size is bounded by
/// max-input-bytes too.
llvm::Expected<std::string> readMaybeGzipFile(llvm::StringRef path);

/// A file's text without a copy: the bytes as read (or as given), or their
/// inflation when they are gzip. A reader of a large file holds it once.
class InputText {
public:
  /// The text of `bytes` (read from `path`), which must outlive it.
  static llvm::Expected<InputText> of(llvm::StringRef bytes,
                                      llvm::StringRef path);
  /// The text of the file at `path` ("-": stdin).
  static llvm::Expected<InputText> read(llvm::StringRef path);

  llvm::StringRef text() const {
    return inflated ? llvm::StringRef(*inflated) : view;
  }

private:
  std::unique_ptr<llvm::MemoryBuffer> file;
  std::optional<std::string> inflated;
  llvm::StringRef view;
};

/// An error at byte `offset` of `text` (read from `path`), named by its
/// 1-based line and column.
llvm::Error fileErrorAt(llvm::StringRef text, size_t offset,
                        llvm::StringRef path, const llvm::Twine &message);

/// The error for JSON `text` (read from `path`) whose bracket at byte
/// `offset` is nested deeper than max-json-depth.
llvm::Error jsonTooDeepError(llvm::StringRef text, size_t offset,
                             llvm::StringRef path);

/// What llvm::json's parse error says: "[line:col, byte=N]: what" (its
/// column counts from 0).
struct JsonParseMessage {
  unsigned line = 0, column = 0;
  size_t byte = 0;
  std::string what;
};
/// Splits llvm::json's parse error `message`; nullopt if it is not in that
/// form.
std::optional<JsonParseMessage> splitJsonParseMessage(llvm::StringRef message);

/// Parses JSON `text` read from `path`: nesting deeper than max-json-depth
/// is refused before parsing, and every error names the file, line and
/// column.
llvm::Expected<llvm::json::Value> parseJsonInput(llvm::StringRef text,
                                                 llvm::StringRef path);

/// readMaybeGzipFile then parseJsonInput.
llvm::Expected<llvm::json::Value> readJsonFile(llvm::StringRef path);

/// readJsonFile, then checks that the file is an object whose integer
/// "version" is `version`: a file of another version is an error naming the
/// file, `what` it is, both versions and `remedy` (how to make a new one).
/// Gives the file's top-level object.
llvm::Expected<llvm::json::Value> readVersionedJsonFile(llvm::StringRef path,
                                                        llvm::StringRef what,
                                                        int64_t version,
                                                        llvm::StringRef remedy);

/// Whether `value` is a finite number of at least `min` (NaN and infinities
/// never are): what every latency, duration and figure read from a file
/// must be.
bool isFiniteAtLeast(double value, double min);

} // namespace perf

#endif // PERF_SUPPORT_INPUTFILE_H
