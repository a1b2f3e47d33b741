//===- ChakraTraceFile.cpp - Chakra traces on disk ------------------------===//

#include "perf/Comm/ChakraTraceFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace perf;

llvm::Error chakra::writeTraceFile(const Trace &trace, llvm::StringRef path) {
  std::string bytes, error;
  if (!encodeTrace(trace, bytes, error))
    return llvm::createStringError(path + ": " + error);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(path + ": " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return llvm::createStringError(path + ": " + os.error().message());
  return llvm::Error::success();
}

llvm::Expected<chakra::Trace> chakra::readTraceFile(llvm::StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return llvm::createStringError(path + ": " + buf.getError().message());
  Trace trace;
  std::string error;
  if (!decodeTrace((*buf)->getBuffer().str(), trace, error))
    return llvm::createStringError(path + ": " + error);
  return trace;
}
