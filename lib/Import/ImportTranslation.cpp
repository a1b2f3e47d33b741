//===- ImportTranslation.cpp - perf-translate's importers ----------------===//

#include "perf/Import/ImportTranslation.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "perf/Dialect/PerfDialect.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

/// Registered on first use: only perf-translate registers importers, and
/// perf-opt, which links them too, has an --emit-bytecode of its own.
static llvm::cl::opt<bool> &emitBytecodeOption() {
  static llvm::cl::opt<bool> option(
      "emit-bytecode",
      llvm::cl::desc("Write the imported step as MLIR bytecode instead of "
                     "text (perf-opt reads it about twice as fast)"),
      llvm::cl::init(false));
  return option;
}

void perf::registerImportTranslation(llvm::StringRef name,
                                     llvm::StringRef description,
                                     TranslateSourceMgrToMLIRFunction import) {
  llvm::cl::opt<bool> &emitBytecode = emitBytecodeOption();
  TranslateRegistration(
      name, description,
      [import = std::move(import), &emitBytecode](
          const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
          llvm::raw_ostream &output, MLIRContext *context) -> LogicalResult {
        DialectRegistry registry;
        registry.insert<PerfDialect>();
        context->appendDialectRegistry(registry);
        OwningOpRef<Operation *> module = import(sourceMgr, context);
        if (!module || failed(verify(*module)))
          return failure();
        if (emitBytecode)
          return writeBytecodeToFile(module.get(), output);
        module->print(output);
        return success();
      });
}
