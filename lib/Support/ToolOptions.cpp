//===- ToolOptions.cpp - What --help of a perf tool lists -----------------===//

#include "perf/Support/ToolOptions.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

perf::LibraryOptions::LibraryOptions() {
  for (const auto &[name, option] : cl::getRegisteredOptions())
    names.insert(name);
}

void perf::LibraryOptions::hide(
    ArrayRef<const cl::OptionCategory *> own) const {
  auto &options = cl::getRegisteredOptions();
  // LLVM's generic category (--help, --version) is not exported: it is the
  // one --help is in.
  SmallVector<const cl::OptionCategory *> listed(own.begin(), own.end());
  if (cl::Option *help = options.lookup("help"))
    listed.append(help->Categories.begin(), help->Categories.end());
  for (const auto &[name, option] : options) {
    if (!names.contains(name))
      continue;
    if (!llvm::any_of(option->Categories, [&](cl::OptionCategory *category) {
          return llvm::is_contained(listed, category);
        }))
      option->setHiddenFlag(cl::ReallyHidden);
  }
}
