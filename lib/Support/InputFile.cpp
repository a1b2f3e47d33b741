//===- InputFile.cpp - Reading input files within the limits -------------===//

#include "perf/Support/InputFile.h"
#include "perf/Support/InputError.h"
#include "perf/Support/Limits.h"
#include "llvm/Support/FileSystem.h"
#include <cmath>
#include <zlib.h>

using namespace perf;

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
perf::readInputFile(llvm::StringRef path) {
  if (path != "-") {
    uint64_t size = 0;
    if (std::error_code ec = llvm::sys::fs::file_size(path, size))
      return fileError(path, "cannot read: " + ec.message());
    if (size > uint64_t(kMaxInputBytes.max))
      return fileError(
          path, limitExceeded("the file size", int64_t(size), kMaxInputBytes));
  }
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false,
                                                   /*RequiresNullTerminator=*/
                                                   false);
  if (!buffer)
    return fileError(path, "cannot read: " + buffer.getError().message());
  if ((*buffer)->getBufferSize() > uint64_t(kMaxInputBytes.max))
    return fileError(path,
                     limitExceeded("the input size", (*buffer)->getBufferSize(),
                                   kMaxInputBytes));
  return std::move(*buffer);
}

/// Inflates gzip (or zlib) `bytes`, members one after another, stopping at
/// max-input-bytes of output.
static llvm::Expected<std::string> inflate(llvm::StringRef bytes,
                                           llvm::StringRef path) {
  z_stream stream{};
  // 15 window bits + 32: a gzip or zlib header, detected.
  if (inflateInit2(&stream, 15 + 32) != Z_OK)
    return fileError(path, "cannot initialize zlib");
  stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char chunk[1 << 16];
  while (true) {
    stream.next_out = reinterpret_cast<Bytef *>(chunk);
    stream.avail_out = sizeof(chunk);
    int status = ::inflate(&stream, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - stream.avail_out);
    if (out.size() > uint64_t(kMaxInputBytes.max)) {
      inflateEnd(&stream);
      return fileError(
          path, limitExceeded("the inflated size", out.size(), kMaxInputBytes));
    }
    if (status == Z_STREAM_END) {
      if (stream.avail_in == 0)
        break;
      // Another gzip member follows.
      if (inflateReset(&stream) != Z_OK)
        break;
      continue;
    }
    if (status != Z_OK && status != Z_BUF_ERROR) {
      std::string reason = stream.msg ? stream.msg : "error";
      inflateEnd(&stream);
      return fileError(path, "corrupt gzip data (zlib: " + reason + ")");
    }
    if (stream.avail_in == 0 && stream.avail_out != 0) {
      inflateEnd(&stream);
      return fileError(path, "truncated gzip data");
    }
  }
  inflateEnd(&stream);
  return out;
}

static bool isGzip(llvm::StringRef bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

llvm::Expected<std::string> perf::inflateIfGzipped(llvm::StringRef bytes,
                                                   llvm::StringRef path) {
  if (isGzip(bytes))
    return inflate(bytes, path);
  return bytes.str();
}

llvm::Expected<std::string> perf::readMaybeGzipFile(llvm::StringRef path) {
  auto buffer = readInputFile(path);
  if (!buffer)
    return buffer.takeError();
  return inflateIfGzipped((*buffer)->getBuffer(), path);
}

llvm::Expected<InputText> InputText::of(llvm::StringRef bytes,
                                        llvm::StringRef path) {
  InputText result;
  if (!isGzip(bytes)) {
    result.view = bytes;
    return result;
  }
  llvm::Expected<std::string> text = inflate(bytes, path);
  if (!text)
    return text.takeError();
  result.inflated = std::move(*text);
  return result;
}

llvm::Expected<InputText> InputText::read(llvm::StringRef path) {
  auto buffer = readInputFile(path);
  if (!buffer)
    return buffer.takeError();
  llvm::Expected<InputText> result = of((*buffer)->getBuffer(), path);
  if (result && !result->inflated)
    result->file = std::move(*buffer);
  return result;
}

/// The 1-based line and column of byte `offset` of `text`.
static std::pair<unsigned, unsigned> lineAndColumn(llvm::StringRef text,
                                                   size_t offset) {
  llvm::StringRef before = text.take_front(offset);
  unsigned line = 1 + before.count('\n');
  size_t lineStart = before.rfind('\n');
  unsigned column =
      offset - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
  return {line, column};
}

/// The first bracket nested deeper than max-json-depth, or npos. Strings are
/// skipped; anything else malformed is left to the parser.
static size_t tooDeep(llvm::StringRef text) {
  int64_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth.max)
        return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return llvm::StringRef::npos;
}

llvm::Error perf::fileErrorAt(llvm::StringRef text, size_t offset,
                              llvm::StringRef path,
                              const llvm::Twine &message) {
  auto [line, column] = lineAndColumn(text, offset);
  return fileError(path, line, column, message);
}

llvm::Error perf::jsonTooDeepError(llvm::StringRef text, size_t offset,
                                   llvm::StringRef path) {
  return fileErrorAt(text, offset, path,
                     "JSON nested deeper than the limit " + kMaxJsonDepth.name +
                         " (" + llvm::Twine(kMaxJsonDepth.max) + ")");
}

std::optional<JsonParseMessage>
perf::splitJsonParseMessage(llvm::StringRef message) {
  llvm::StringRef rest = message;
  if (!rest.consume_front("["))
    return std::nullopt;
  auto [where, what] = rest.split("]: ");
  auto [lineColumn, byteText] = where.split(", byte=");
  auto [lineText, columnText] = lineColumn.split(':');
  JsonParseMessage split;
  if (what.empty() || lineText.getAsInteger(10, split.line) ||
      columnText.getAsInteger(10, split.column) ||
      byteText.getAsInteger(10, split.byte))
    return std::nullopt;
  split.what = what.str();
  return split;
}

llvm::Expected<llvm::json::Value> perf::parseJsonInput(llvm::StringRef text,
                                                       llvm::StringRef path) {
  size_t deep = tooDeep(text);
  if (deep != llvm::StringRef::npos)
    return jsonTooDeepError(text, deep, path);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (json)
    return json;
  std::string message = llvm::toString(json.takeError());
  if (std::optional<JsonParseMessage> split = splitJsonParseMessage(message))
    return fileError(path, split->line, split->column,
                     "invalid JSON: " + split->what);
  return fileError(path, "invalid JSON: " + message);
}

llvm::Expected<llvm::json::Value> perf::readJsonFile(llvm::StringRef path) {
  llvm::Expected<std::string> text = readMaybeGzipFile(path);
  if (!text)
    return text.takeError();
  return parseJsonInput(*text, path);
}

llvm::Expected<llvm::json::Value>
perf::readVersionedJsonFile(llvm::StringRef path, llvm::StringRef what,
                            int64_t version, llvm::StringRef remedy) {
  llvm::Expected<llvm::json::Value> value = readJsonFile(path);
  if (!value)
    return value.takeError();
  const llvm::json::Object *root = value->getAsObject();
  if (!root)
    return llvm::createStringError(path + ": expected a JSON object");
  std::optional<int64_t> found = root->getInteger("version");
  if (!found || *found != version)
    return llvm::createStringError(
        path + ": " + what + " version " +
        (found ? std::to_string(*found) : std::string("missing")) +
        ", this build reads version " + std::to_string(version) + " (" +
        remedy + ")");
  return value;
}

bool perf::isFiniteAtLeast(double value, double min) {
  return std::isfinite(value) && value >= min;
}
