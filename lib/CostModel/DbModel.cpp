//===- DbModel.cpp - Measured latencies from the perf database ------------===//

#include "perf/CostModel/DbModel.h"
#include "perf/CostModel/PerfDbSchema.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/KernelSignature.h"
#include <sqlite3.h>

using namespace perf;

static llvm::Error sqlError(sqlite3 *db, llvm::StringRef path,
                            llvm::StringRef what) {
  return llvm::createStringError(path + ": " + what + ": " +
                                 (db ? sqlite3_errmsg(db) : "out of memory"));
}

PerfDatabase::~PerfDatabase() {
  sqlite3_finalize(lookupStmt);
  sqlite3_finalize(insertStmt);
  sqlite3_close(db);
}

llvm::Error PerfDatabase::exec(llvm::StringRef sql) {
  char *msg = nullptr;
  if (sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &msg) !=
      SQLITE_OK) {
    std::string text = msg ? msg : "unknown error";
    sqlite3_free(msg);
    return llvm::createStringError(path + ": " + text);
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<PerfDatabase>>
PerfDatabase::openReadOnly(llvm::StringRef path) {
  std::unique_ptr<PerfDatabase> d(new PerfDatabase());
  d->path = path.str();
  if (sqlite3_open_v2(d->path.c_str(), &d->db, SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK)
    return sqlError(d->db, path, "cannot open the perf database");
  const char *sql = "SELECT latency_us FROM kernels WHERE device = ?1 AND "
                    "dtype = ?2 AND kind = ?3 AND signature = ?4";
  if (sqlite3_prepare_v2(d->db, sql, -1, &d->lookupStmt, nullptr) != SQLITE_OK)
    return sqlError(d->db, path, "not a perf database (docs/perf-db.md)");
  if (llvm::Error e = d->checkContents())
    return std::move(e);
  return d;
}

/// The first row of `sql` as text ("" when there is none), or an error.
static llvm::Expected<std::vector<std::string>>
firstRow(sqlite3 *db, llvm::StringRef path, const char *sql) {
  sqlite3_stmt *stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
    return sqlError(db, path, "not a perf database (docs/perf-db.md)");
  std::vector<std::string> row;
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW)
    for (int i = 0, n = sqlite3_column_count(stmt); i < n; ++i) {
      const unsigned char *t = sqlite3_column_text(stmt, i);
      row.push_back(t ? reinterpret_cast<const char *>(t) : "NULL");
    }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return sqlError(db, path, "malformed perf database");
  return row;
}

llvm::Error PerfDatabase::checkContents() const {
  // A damaged file otherwise reads as a database without the damaged rows:
  // every kernel in them silently falls to the next model.
  auto check = firstRow(db, path, "PRAGMA quick_check");
  if (!check)
    return check.takeError();
  if (check->empty() || (*check)[0] != "ok")
    return llvm::createStringError(
        path + ": malformed perf database: " +
        (check->empty() ? std::string("no integrity result") : (*check)[0]));
  auto version =
      firstRow(db, path, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version)
    return version.takeError();
  if (version->empty() || (*version)[0] != "1")
    return llvm::createStringError(
        path + ": perf database schema version " +
        (version->empty() ? std::string("missing") : (*version)[0]) +
        ", this build reads version 1 (docs/perf-db.md)");
  // Latencies are checked where they enter: the first row whose latency is
  // not a finite positive number of microseconds is named by its key.
  auto bad = firstRow(
      db, path,
      "SELECT device, dtype, kind, signature, quote(latency_us) FROM kernels "
      "WHERE NOT (typeof(latency_us) IN ('real', 'integer') AND "
      "latency_us > 0 AND latency_us < 1e300) LIMIT 1");
  if (!bad)
    return bad.takeError();
  if (!bad->empty())
    return llvm::createStringError(
        path + ": kernel '" + (*bad)[2] + " " + (*bad)[3] + "' (" + (*bad)[1] +
        " on " + (*bad)[0] +
        "): latency_us must be a finite positive number, got " + (*bad)[4]);
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<PerfDatabase>>
PerfDatabase::openForWriting(llvm::StringRef path) {
  std::unique_ptr<PerfDatabase> d(new PerfDatabase());
  d->path = path.str();
  if (sqlite3_open_v2(d->path.c_str(), &d->db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK)
    return sqlError(d->db, path, "cannot create the perf database");
  if (auto e = d->exec("PRAGMA journal_mode = WAL;"))
    return std::move(e);
  if (auto e = d->exec(perf::kPerfDbSchemaSql))
    return std::move(e);
  const char *lookup = "SELECT latency_us FROM kernels WHERE device = ?1 AND "
                       "dtype = ?2 AND kind = ?3 AND signature = ?4";
  if (sqlite3_prepare_v2(d->db, lookup, -1, &d->lookupStmt, nullptr) !=
      SQLITE_OK)
    return sqlError(d->db, path, "preparing the lookup");
  const char *insert =
      "INSERT OR REPLACE INTO kernels (device, dtype, kind, signature, "
      "latency_us, spread_us, reps, algo, kernel_name, source) VALUES "
      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
  if (sqlite3_prepare_v2(d->db, insert, -1, &d->insertStmt, nullptr) !=
      SQLITE_OK)
    return sqlError(d->db, path, "preparing the insert");
  return d;
}

llvm::Error PerfDatabase::begin() { return exec("BEGIN;"); }
llvm::Error PerfDatabase::commit() { return exec("COMMIT;"); }

llvm::Error PerfDatabase::addDevice(llvm::StringRef name,
                                    llvm::StringRef specJson) {
  sqlite3_stmt *stmt = nullptr;
  const char *sql =
      "INSERT OR REPLACE INTO devices (name, spec_json) VALUES (?1, ?2)";
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
    return sqlError(db, path, "preparing the device insert");
  sqlite3_bind_text(stmt, 1, name.data(), name.size(), SQLITE_TRANSIENT);
  if (specJson.empty())
    sqlite3_bind_null(stmt, 2);
  else
    sqlite3_bind_text(stmt, 2, specJson.data(), specJson.size(),
                      SQLITE_TRANSIENT);
  int rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE)
    return sqlError(db, path, "adding device '" + name.str() + "'");
  return llvm::Error::success();
}

static void bindText(sqlite3_stmt *stmt, int index, llvm::StringRef text) {
  if (text.empty())
    sqlite3_bind_null(stmt, index);
  else
    sqlite3_bind_text(stmt, index, text.data(), text.size(), SQLITE_TRANSIENT);
}

llvm::Error PerfDatabase::addKernel(const PerfDbEntry &e) {
  if (!insertStmt)
    return llvm::createStringError(path + ": opened read-only");
  if (!isFiniteAtLeast(e.latencyUs, 0) || e.latencyUs == 0)
    return llvm::createStringError(
        path + ": kernel '" + e.kind + " " + e.signature +
        "': latency_us must be a finite positive number");
  sqlite3_reset(insertStmt);
  sqlite3_clear_bindings(insertStmt);
  sqlite3_bind_text(insertStmt, 1, e.device.data(), e.device.size(),
                    SQLITE_TRANSIENT);
  sqlite3_bind_text(insertStmt, 2, e.dtype.data(), e.dtype.size(),
                    SQLITE_TRANSIENT);
  sqlite3_bind_text(insertStmt, 3, e.kind.data(), e.kind.size(),
                    SQLITE_TRANSIENT);
  sqlite3_bind_text(insertStmt, 4, e.signature.data(), e.signature.size(),
                    SQLITE_TRANSIENT);
  sqlite3_bind_double(insertStmt, 5, e.latencyUs);
  if (e.spreadUs)
    sqlite3_bind_double(insertStmt, 6, *e.spreadUs);
  if (e.reps)
    sqlite3_bind_int64(insertStmt, 7, *e.reps);
  bindText(insertStmt, 8, e.algo);
  bindText(insertStmt, 9, e.kernelName);
  bindText(insertStmt, 10, e.source);
  if (sqlite3_step(insertStmt) != SQLITE_DONE)
    return sqlError(db, path, "inserting '" + e.kind + " " + e.signature + "'");
  return llvm::Error::success();
}

std::optional<double> PerfDatabase::lookup(llvm::StringRef device,
                                           llvm::StringRef dtype,
                                           llvm::StringRef kind,
                                           llvm::StringRef signature) const {
  sqlite3_reset(lookupStmt);
  sqlite3_bind_text(lookupStmt, 1, device.data(), device.size(),
                    SQLITE_TRANSIENT);
  sqlite3_bind_text(lookupStmt, 2, dtype.data(), dtype.size(),
                    SQLITE_TRANSIENT);
  sqlite3_bind_text(lookupStmt, 3, kind.data(), kind.size(), SQLITE_TRANSIENT);
  sqlite3_bind_text(lookupStmt, 4, signature.data(), signature.size(),
                    SQLITE_TRANSIENT);
  std::optional<double> latency;
  if (sqlite3_step(lookupStmt) == SQLITE_ROW)
    latency = sqlite3_column_double(lookupStmt, 0);
  sqlite3_reset(lookupStmt);
  return latency;
}

static std::string columnText(sqlite3_stmt *stmt, int i) {
  const unsigned char *t = sqlite3_column_text(stmt, i);
  return t ? reinterpret_cast<const char *>(t) : "";
}

llvm::Expected<std::string>
PerfDatabase::deviceSpecJson(llvm::StringRef name) const {
  sqlite3_stmt *stmt = nullptr;
  const char *sql = "SELECT spec_json FROM devices WHERE name = ?1";
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
    return sqlError(db, path, "reading devices");
  sqlite3_bind_text(stmt, 1, name.data(), name.size(), SQLITE_TRANSIENT);
  std::string json;
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW)
    json = columnText(stmt, 0);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return sqlError(db, path, "reading device '" + name.str() + "'");
  return json;
}

llvm::Expected<std::vector<PerfDbEntry>>
PerfDatabase::entries(llvm::StringRef kind) const {
  sqlite3_stmt *stmt = nullptr;
  std::string sql =
      "SELECT device, dtype, kind, signature, latency_us, spread_us, reps, "
      "algo, kernel_name, source, rowid FROM kernels";
  if (!kind.empty())
    sql += " WHERE kind = ?1";
  sql += " ORDER BY device, kind, signature, dtype";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
    return sqlError(db, path, "reading kernels");
  if (!kind.empty())
    sqlite3_bind_text(stmt, 1, kind.data(), kind.size(), SQLITE_TRANSIENT);
  std::vector<PerfDbEntry> out;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    PerfDbEntry e;
    e.device = columnText(stmt, 0);
    e.dtype = columnText(stmt, 1);
    e.kind = columnText(stmt, 2);
    e.signature = columnText(stmt, 3);
    e.latencyUs = sqlite3_column_double(stmt, 4);
    if (sqlite3_column_type(stmt, 5) != SQLITE_NULL)
      e.spreadUs = sqlite3_column_double(stmt, 5);
    if (sqlite3_column_type(stmt, 6) != SQLITE_NULL)
      e.reps = sqlite3_column_int64(stmt, 6);
    e.algo = columnText(stmt, 7);
    e.kernelName = columnText(stmt, 8);
    e.source = columnText(stmt, 9);
    e.rowid = sqlite3_column_int64(stmt, 10);
    out.push_back(std::move(e));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE)
    return sqlError(db, path, "reading kernels");
  return out;
}

std::optional<KernelCost> DbModel::estimate(const KernelDesc &k,
                                            const GpuSpec &gpu) const {
  std::string signature = kernelSignature(k);
  llvm::StringRef dtype = dtypeName(k.dtype);
  llvm::StringRef kind = kernelKindName(k.kind);
  std::lock_guard<std::mutex> lock(mutex);
  if (std::optional<double> latency =
          db->lookup(gpu.name, dtype, kind, signature)) {
    KernelCost cost;
    cost.latencyUs = *latency;
    cost.model = "db";
    return cost;
  }
  std::string key =
      gpu.name + "|" + dtype.str() + "|" + kind.str() + "|" + signature;
  if (missKeys.insert(key).second)
    missList.push_back({gpu.name, dtype.str(), kind.str(), signature});
  return std::nullopt;
}

std::vector<KernelCostMiss> DbModel::misses() const {
  std::lock_guard<std::mutex> lock(mutex);
  return missList;
}
