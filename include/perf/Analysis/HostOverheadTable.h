//===- HostOverheadTable.h - T1-T5 lookup -----------------------*- C++ -*-===//
//
// The JSON table of host overheads (docs/host-overheads.md) with the lookup
// order op entry -> table default -> built-in default.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_ANALYSIS_HOSTOVERHEADTABLE_H
#define PERF_ANALYSIS_HOSTOVERHEADTABLE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <optional>

namespace perf {

enum class Overhead { T1 = 0, T2, T3, T4, T5 };

class HostOverheadTable {
public:
  /// Built-in defaults (Lin et al., V100): T1 8, T2 10, T3 5, T4 10, T5 5 us.
  HostOverheadTable();

  static llvm::Expected<HostOverheadTable> parse(const llvm::json::Value &v);
  static llvm::Expected<HostOverheadTable> load(llvm::StringRef path);

  /// Overhead of type `type` for framework op `op` in microseconds.
  double get(llvm::StringRef op, Overhead type) const;
  /// T4 of a runtime call ("cudaLaunchKernel", "cudaMemcpyAsync").
  double runtimeCall(llvm::StringRef function) const;
  /// A synchronizing call's own cost beyond its wait ("cudaFree",
  /// "cudaStreamSynchronize"): its runtime entry, else 0 (a launch's T4
  /// says nothing of it).
  double syncCall(llvm::StringRef function) const;

private:
  using Entry = std::array<std::optional<double>, 5>;
  std::array<double, 5> defaults;
  llvm::StringMap<Entry> ops;
  llvm::StringMap<double> runtime;
};

} // namespace perf

#endif // PERF_ANALYSIS_HOSTOVERHEADTABLE_H
