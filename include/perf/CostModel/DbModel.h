//===- DbModel.h - Measured latencies from the perf database ----*- C++ -*-===//
//
// Benanza's performance database (seed 004): measured latencies keyed by
// device, dtype, kind and the canonical shape signature, in the SQLite file
// docs/perf-db.md specifies. The `db` model answers only exact matches and
// records every miss so the report can list what to measure next.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_DBMODEL_H
#define PERF_COSTMODEL_DBMODEL_H

#include "perf/CostModel/KernelCostModel.h"
#include "llvm/ADT/StringSet.h"
#include <mutex>

struct sqlite3;
struct sqlite3_stmt;

namespace perf {

/// One row of the `kernels` table.
struct PerfDbEntry {
  std::string device, dtype, kind, signature;
  double latencyUs = 0;
  std::optional<double> spreadUs;
  std::optional<int64_t> reps;
  std::string algo, kernelName, source;
  /// The row's SQLite rowid: a key other readers of the file can join on
  /// (perf-eval reports a database row as <file>:<rowid>).
  int64_t rowid = 0;
};

/// The SQLite perf database (schema version 1). Not copyable.
class PerfDatabase {
public:
  /// Opens an existing database read-only.
  static llvm::Expected<std::unique_ptr<PerfDatabase>>
  openReadOnly(llvm::StringRef path);
  /// Opens or creates a database and its tables for writing.
  static llvm::Expected<std::unique_ptr<PerfDatabase>>
  openForWriting(llvm::StringRef path);
  ~PerfDatabase();

  llvm::Error addDevice(llvm::StringRef name, llvm::StringRef specJson);
  /// Inserts or replaces one measurement.
  llvm::Error addKernel(const PerfDbEntry &entry);
  /// Wraps many inserts in one transaction.
  llvm::Error begin();
  llvm::Error commit();

  /// The latency of an exact match, or std::nullopt.
  std::optional<double> lookup(llvm::StringRef device, llvm::StringRef dtype,
                               llvm::StringRef kind,
                               llvm::StringRef signature) const;
  /// Every row (for perf-train), optionally of one kind.
  llvm::Expected<std::vector<PerfDbEntry>>
  entries(llvm::StringRef kind = "") const;
  /// The device JSON stored for `name` (perf-bench --probe writes it), or
  /// "" when the database has none.
  llvm::Expected<std::string> deviceSpecJson(llvm::StringRef name) const;

private:
  PerfDatabase() = default;
  llvm::Error exec(llvm::StringRef sql);
  /// Integrity, schema version and latencies of a database opened to read.
  llvm::Error checkContents() const;
  sqlite3 *db = nullptr;
  sqlite3_stmt *lookupStmt = nullptr;
  sqlite3_stmt *insertStmt = nullptr;
  std::string path;
};

class DbModel : public KernelCostModel {
public:
  explicit DbModel(std::unique_ptr<PerfDatabase> db) : db(std::move(db)) {}
  llvm::StringRef name() const override { return "db"; }
  std::optional<KernelCost> estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const override;
  std::vector<KernelCostMiss> misses() const override;

private:
  std::unique_ptr<PerfDatabase> db;
  mutable std::mutex mutex;
  mutable std::vector<KernelCostMiss> missList;
  mutable llvm::StringSet<> missKeys;
};

} // namespace perf

#endif // PERF_COSTMODEL_DBMODEL_H
