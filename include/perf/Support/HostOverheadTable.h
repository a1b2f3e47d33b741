//===- HostOverheadTable.h - The T1-T5 host overhead table ------*- C++ -*-===//
//
// The one table of host overheads (docs/host-overheads.md): what
// `perf-trace overheads` extracts from a trace and writes, and what
// --perf-host-overhead and trace replay read. Per framework op, per runtime
// function and by default, each overhead's statistics; lookups fall back
// from the op's entry to the table's default to the built-in figures of Lin
// et al. MLIR-free, like the rest of PerfSupport.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_SUPPORT_HOSTOVERHEADTABLE_H
#define PERF_SUPPORT_HOSTOVERHEADTABLE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perf {

/// The five host overheads of Lin et al.: T1 between framework ops, T2 from
/// an op's start to its first launch, T3 from its last launch to its end,
/// T4 a runtime call, T5 between the launches of one op.
enum class Overhead { T1 = 0, T2, T3, T4, T5 };
inline constexpr unsigned kNumOverheads = 5;

/// Summary statistics of one overhead's samples (microseconds).
struct OverheadStats {
  double mean = 0;
  /// Population standard deviation (numpy's default) of the kept samples.
  double std = 0;
  /// Samples kept after outlier removal.
  unsigned count = 0;
  /// Samples removed as outliers.
  unsigned removed = 0;
};

struct HostOverheadTable {
  /// One statistic per overhead, T1 first; unset where the table has none.
  using Entry = std::array<std::optional<OverheadStats>, kNumOverheads>;

  /// Where the figures come from (a trace's name), written and read back.
  std::string source;
  Entry defaults;
  /// T4 per runtime function ("cudaLaunchKernel", "cudaFree").
  llvm::StringMap<OverheadStats> runtime;
  llvm::StringMap<Entry> ops;
  /// T1 of the op that enters an annotated region, per region name
  /// ("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
  /// "Optimizer.step#SGD.step"): the host time before a region's first op
  /// belongs to the region (a data loader waiting for its batch, the Python
  /// of an optimizer step), not to whichever op happens to come first.
  llvm::StringMap<OverheadStats> regions;
  /// The region every iteration of a trace is: its entry T1 is the host time
  /// from the iteration's start to its first op (the data loader, the
  /// training loop's Python). No annotation is named so.
  static constexpr llvm::StringLiteral kIterationRegion = "#iteration";
  /// The host time from an iteration's last op to its end (the training
  /// loop's Python after the optimizer step, the profiler's step call), one
  /// sample per iteration ("iteration_tail" in the JSON).
  std::optional<OverheadStats> iterationTail;
  /// The driver's launch queue where the trace showed it full: a launch
  /// blocks while this many device events are launched and not finished
  /// (0: never). Measured with the overheads, whose T4 leaves out the
  /// launches that waited for a slot ("launch_queue_depth" in the JSON).
  unsigned launchQueueDepth = 0;
  /// Host time per transformer block beyond its ops' own ("layer_us"): the
  /// framework's module calls and the Python between the ops (a HuggingFace
  /// block spends more there than in its ATen ops). A step built from a
  /// model config pays it before each block's first op (perf.layer).
  double layerUs = 0;
  /// How a trace's figures were extracted ("extraction" in the JSON): the
  /// profiler's cost subtracted per CPU event and per runtime call (for
  /// predicting unprofiled steps), and whether samples outside 1.5 IQR were
  /// left out. Replaying a profiled trace reproduces its time only from a
  /// table extracted with neither.
  struct Extraction {
    double profilerCpuUs = 0, profilerRuntimeUs = 0;
    bool outliersRemoved = false;
    bool forProfiledReplay() const {
      return profilerCpuUs == 0 && profilerRuntimeUs == 0 && !outliersRemoved;
    }
  };
  std::optional<Extraction> extraction;

  /// The paper's V100 figures where a table has no entry: T1 8, T2 10, T3 5,
  /// T4 10, T5 5 us.
  static double builtin(Overhead type);

  /// Overhead `type` of framework op `op`: its entry, the table's default,
  /// the built-in figure.
  double get(llvm::StringRef op, Overhead type) const;
  /// T1 of op `op` where it enters region `region`: the region's entry,
  /// else the op's T1 (get).
  double entryT1(llvm::StringRef region, llvm::StringRef op) const;
  /// The mean iteration tail, 0 where the table has none.
  double iterationTailUs() const {
    return iterationTail ? iterationTail->mean : 0;
  }
  /// T4 of a runtime call: its function's entry, the default T4, built-in.
  double runtimeCall(llvm::StringRef function) const;
  /// A synchronizing call's own cost beyond its wait ("cudaFree",
  /// "cudaStreamSynchronize"): its function's entry, else 0 (a launch's T4
  /// says nothing of it).
  double syncCall(llvm::StringRef function) const;

  /// The JSON of docs/host-overheads.md (version 1).
  llvm::json::Value toJson() const;
  /// Reads that JSON. A figure is a number (the mean) or an object with a
  /// "mean" and optionally "std" and "count"; durations, so finite and
  /// non-negative. Errors name the entry ("ops.aten::mm.t1").
  static llvm::Expected<HostOverheadTable> parse(const llvm::json::Value &v);
  /// readJsonFile then parse; errors name the file.
  static llvm::Expected<HostOverheadTable> load(llvm::StringRef path);
  /// A table file, or a host of the catalog by name (hostCatalogDir's
  /// NAME.json); errors list the catalog's names.
  static llvm::Expected<HostOverheadTable> resolve(llvm::StringRef nameOrPath);
};

/// The folder of the host catalog (data/hosts): $PERF_HOST_DIR, else the
/// installed share/perf/hosts, else the source tree's; empty when none is.
std::string hostCatalogDir();

/// A host of the catalog: its name (its file's stem) and its table, or why
/// the file could not be read.
struct CatalogHost {
  std::string name;
  std::optional<HostOverheadTable> table;
  std::string error;
};

/// The catalog's hosts, by name.
std::vector<CatalogHost> hostCatalog();

} // namespace perf

#endif // PERF_SUPPORT_HOSTOVERHEADTABLE_H
