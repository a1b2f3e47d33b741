//===- TraceFile.cpp - Reading (gzipped) JSON trace files -----------------===//

#include "perf/Trace/TraceFile.h"

#include "llvm/Support/MemoryBuffer.h"
#include <zlib.h>

using namespace llvm;

namespace perf {
namespace trace {

static Error fileError(StringRef path, const Twine &message) {
  return createStringError(inconvertibleErrorCode(), path + ": " + message);
}

Expected<std::string> readMaybeGzipped(StringRef path) {
  auto bufferOr = MemoryBuffer::getFile(path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
  if (!bufferOr)
    return fileError(path, bufferOr.getError().message());
  return inflateIfGzipped((*bufferOr)->getBuffer(), path);
}

Expected<std::string> inflateIfGzipped(StringRef bytes, StringRef path) {
  if (bytes.size() < 2 || (unsigned char)bytes[0] != 0x1f ||
      (unsigned char)bytes[1] != 0x8b)
    return bytes.str();

  // Inflate with zlib's streaming API; gzip members may be concatenated.
  std::string out;
  z_stream stream{};
  // 15 window bits + 32: detect gzip or zlib headers automatically.
  if (inflateInit2(&stream, 15 + 32) != Z_OK)
    return fileError(path, "cannot initialize zlib");
  stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  char chunk[1 << 16];
  int status = Z_OK;
  while (true) {
    stream.next_out = reinterpret_cast<Bytef *>(chunk);
    stream.avail_out = sizeof(chunk);
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk, sizeof(chunk) - stream.avail_out);
    if (status == Z_STREAM_END) {
      if (stream.avail_in == 0)
        break;
      // Another gzip member follows.
      if (inflateReset(&stream) != Z_OK)
        break;
      continue;
    }
    if (status != Z_OK) {
      inflateEnd(&stream);
      return fileError(path, Twine("corrupt or truncated gzip data (zlib ") +
                                 (stream.msg ? stream.msg : "error") + ")");
    }
    if (stream.avail_in == 0 && stream.avail_out != 0) {
      inflateEnd(&stream);
      return fileError(path, "truncated gzip data");
    }
  }
  inflateEnd(&stream);
  return out;
}

Expected<json::Value> readJsonFile(StringRef path) {
  Expected<std::string> text = readMaybeGzipped(path);
  if (!text)
    return text.takeError();
  Expected<json::Value> value = json::parse(*text);
  if (!value) {
    // llvm::json says "[7:43, byte=400]: Unterminated string"; name the line
    // the way compilers do.
    std::string message = toString(value.takeError());
    StringRef rest(message);
    unsigned line, column;
    if (rest.consume_front("[")) {
      auto [position, tail] = rest.split("]: ");
      auto [lineText, columnText] = position.split(',').first.split(':');
      if (!lineText.getAsInteger(10, line) &&
          !columnText.getAsInteger(10, column) && !tail.empty())
        return fileError(path, "invalid JSON at line " + Twine(line) +
                                   ", column " + Twine(column) + ": " + tail);
    }
    return fileError(path, "invalid JSON: " + message);
  }
  return std::move(*value);
}

int64_t asLooseInteger(const json::Value *value, int64_t fallback) {
  if (!value)
    return fallback;
  if (std::optional<int64_t> i = value->getAsInteger())
    return *i;
  if (std::optional<double> d = value->getAsNumber())
    return static_cast<int64_t>(*d);
  if (std::optional<StringRef> s = value->getAsString()) {
    size_t end = s->size();
    size_t begin = end;
    while (begin > 0 && isdigit(static_cast<unsigned char>((*s)[begin - 1])))
      --begin;
    int64_t result;
    if (begin < end && !s->substr(begin).getAsInteger(10, result))
      return result;
  }
  return fallback;
}

} // namespace trace
} // namespace perf
