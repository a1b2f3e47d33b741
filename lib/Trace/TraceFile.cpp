//===- TraceFile.cpp - Trace JSON values ---------------------------------===//

#include "perf/Trace/TraceFile.h"
#include <cmath>
#include <cstdint>

using namespace llvm;

namespace perf {
namespace trace {

int64_t saturatingInt64(double value) {
  // 2^63, exactly representable; every double below it converts.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (std::isnan(value))
    return 0;
  if (value >= kTwo63)
    return INT64_MAX;
  if (value <= -kTwo63)
    return INT64_MIN;
  return static_cast<int64_t>(value);
}

int64_t asLooseInteger(const json::Value *value, int64_t fallback) {
  if (!value)
    return fallback;
  if (std::optional<int64_t> i = value->getAsInteger())
    return *i;
  if (std::optional<double> d = value->getAsNumber())
    return saturatingInt64(*d);
  if (std::optional<StringRef> s = value->getAsString())
    return looseIntegerOfString(*s, fallback);
  return fallback;
}

int64_t looseIntegerOfString(StringRef text, int64_t fallback) {
  size_t end = text.size();
  size_t begin = end;
  while (begin > 0 && isdigit(static_cast<unsigned char>(text[begin - 1])))
    --begin;
  int64_t result;
  if (begin < end && !text.substr(begin).getAsInteger(10, result))
    return result;
  return fallback;
}

} // namespace trace
} // namespace perf
