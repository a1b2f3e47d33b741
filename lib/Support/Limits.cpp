//===- Limits.cpp - Upper bounds on sizes, counts and iterations ----------===//

#include "perf/Support/Limits.h"
#include "llvm/ADT/STLExtras.h"

using namespace perf;

std::string perf::limitExceeded(const llvm::Twine &what, int64_t value,
                                const Limit &limit) {
  return (what + " is " + llvm::Twine(value) + ", above the limit " +
          limit.name + " (" + llvm::Twine(limit.max) + ")")
      .str();
}

std::optional<std::string>
perf::checkTensorShape(llvm::ArrayRef<int64_t> dims) {
  int64_t elements = 1;
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d > kMaxExtent.max)
      return limitExceeded("dimension " + llvm::Twine(i), d, kMaxExtent);
    // Saturates one past the limit instead of overflowing.
    if (d > 0)
      elements = elements > kMaxTensorElements.max / d
                     ? kMaxTensorElements.max + 1
                     : elements * d;
  }
  if (elements > kMaxTensorElements.max)
    return "the tensor has more elements than the limit " +
           kMaxTensorElements.name.str() + " (" +
           std::to_string(kMaxTensorElements.max) + ")";
  return std::nullopt;
}
