//===- InputError.h - Input errors and how tools print them ---*- C++ -*-===//
//
// The one error format of every perf tool: `file:line:col: error: message`
// where the error has a place in a file (MLIR's own diagnostic format), and
// `tool: error: message (path)` where it concerns a whole file or nothing in
// particular. Readers return an InputError; tools print any llvm::Error with
// reportError.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_INPUTERROR_H
#define PERF_SUPPORT_INPUTERROR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include <string>

namespace perf {

/// Something wrong in the input file `path`, at `line` and `column` when they
/// are known (1-based; 0 when not).
class InputError : public llvm::ErrorInfo<InputError> {
public:
  static char ID;
  InputError(llvm::StringRef path, unsigned line, unsigned column,
             llvm::StringRef message)
      : path(path.str()), line(line), column(column), message(message.str()) {}

  /// "path:line:col: message" with a line, else "message (path)".
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

  std::string path;
  unsigned line, column;
  std::string message;
};

/// An error about the whole file at `path`.
llvm::Error fileError(llvm::StringRef path, const llvm::Twine &message);
/// An error at a place of the file at `path`.
llvm::Error fileError(llvm::StringRef path, unsigned line, unsigned column,
                      const llvm::Twine &message);

/// Prints every error in `error` in the one format (see above) on stderr,
/// naming `tool` where there is no place, and returns the exit status 1.
int reportError(llvm::StringRef tool, llvm::Error error);

} // namespace perf

#endif // PERF_SUPPORT_INPUTERROR_H
