//===- Database.h - The performance database writer -------------*- C++ -*-===//
//
// Writes the SQLite file of docs/perf-db.md (schema version 1). Results are
// buffered and committed one transaction per batch in WAL mode, so a run that
// is interrupted keeps every committed batch, and a rerun skips the kernels
// the file already holds (existingKeys()).
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_DATABASE_H
#define PERF_BENCH_DATABASE_H

#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

struct sqlite3;

namespace bench {

/// One row of the `kernels` table.
struct KernelRow {
  std::string device;
  std::string dtype;
  std::string kind;
  std::string signature;
  double latencyUs = 0;
  std::optional<double> spreadUs;
  std::optional<int64_t> reps;
  std::optional<std::string> algo;
  std::optional<std::string> kernelName;
  std::optional<std::string> source;
};

class PerfDatabase {
public:
  PerfDatabase() = default;
  ~PerfDatabase();
  PerfDatabase(const PerfDatabase &) = delete;
  PerfDatabase &operator=(const PerfDatabase &) = delete;

  /// Opens (creating if needed) the file and its schema. Fails on a file
  /// whose schema_version is not 1.
  bool open(const std::string &path, std::string &error);
  /// Flushes pending rows and closes.
  bool close(std::string &error);

  /// Adds or updates a device. A null spec keeps the stored one.
  bool putDevice(const std::string &name,
                 const std::optional<std::string> &specJson,
                 std::string &error);
  bool putMeta(const std::string &key, const std::string &value,
               std::string &error);
  std::optional<std::string> meta(const std::string &key);

  /// Kernel::key() strings ("dtype|kind|signature") stored for `device`.
  std::set<std::string> existingKeys(const std::string &device);

  /// Queues a row; commits the queue as one transaction once it holds
  /// `batchSize` rows.
  bool add(const KernelRow &row, std::string &error);
  /// Commits the queued rows in one transaction.
  bool flush(std::string &error);
  void setBatchSize(size_t n) { batchSize = n ? n : 1; }
  size_t pendingRows() const { return pending.size(); }

  /// Rows for `device` (all devices if empty), ordered by device, kind,
  /// dtype, signature.
  std::vector<KernelRow> rows(const std::string &device);
  /// Writes rows() as CSV (RFC 4180 quoting) with a header line.
  bool exportCsv(std::ostream &out, const std::string &device,
                 std::string &error);

private:
  bool exec(const char *sql, std::string &error);

  sqlite3 *db = nullptr;
  std::vector<KernelRow> pending;
  size_t batchSize = 16;
};

/// Quotes a CSV field when it holds a comma, quote or line break.
std::string csvField(const std::string &s);

} // namespace bench

#endif // PERF_BENCH_DATABASE_H
