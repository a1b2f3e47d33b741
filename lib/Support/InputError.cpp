//===- InputError.cpp - Errors in input files and how tools print them ----===//

#include "perf/Support/InputError.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace perf;

char InputError::ID = 0;

void InputError::log(llvm::raw_ostream &os) const {
  if (line == 0) {
    os << message << " (" << path << ")";
    return;
  }
  os << path << ":" << line;
  if (column)
    os << ":" << column;
  os << ": " << message;
}

llvm::Error perf::fileError(llvm::StringRef path, const llvm::Twine &message) {
  return llvm::make_error<InputError>(path, 0, 0, message.str());
}

llvm::Error perf::fileError(llvm::StringRef path, unsigned line,
                            unsigned column, const llvm::Twine &message) {
  return llvm::make_error<InputError>(path, line, column, message.str());
}

int perf::reportError(llvm::StringRef tool, llvm::Error error) {
  llvm::handleAllErrors(
      std::move(error),
      [&](const InputError &e) {
        if (e.line == 0) {
          llvm::WithColor::error(llvm::errs(), tool)
              << e.message << " (" << e.path << ")\n";
          return;
        }
        std::string place = e.path + ":" + std::to_string(e.line);
        if (e.column)
          place += ":" + std::to_string(e.column);
        llvm::WithColor::error(llvm::errs(), place) << e.message << "\n";
      },
      [&](const llvm::ErrorInfoBase &e) {
        llvm::WithColor::error(llvm::errs(), tool) << e.message() << "\n";
      });
  return 1;
}
