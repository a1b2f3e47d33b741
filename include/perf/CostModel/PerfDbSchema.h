//===- PerfDbSchema.h - The performance database's tables -------*- C++ -*-===//
//
// The one definition of the SQLite schema of docs/perf-db.md, shared by the
// db cost model and runtime/bench's writer. Dependency-free on purpose:
// runtime/bench includes it without LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_COSTMODEL_PERFDBSCHEMA_H
#define PERF_COSTMODEL_PERFDBSCHEMA_H

namespace perf {

/// Creates the tables of schema version 1 if they are missing and records
/// the version in a new database (an existing version is left as it is).
inline constexpr const char *kPerfDbSchemaSql = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '1');
CREATE TABLE IF NOT EXISTS devices (
  name TEXT PRIMARY KEY,
  spec_json TEXT
);
CREATE TABLE IF NOT EXISTS kernels (
  device     TEXT NOT NULL,
  dtype      TEXT NOT NULL,
  kind       TEXT NOT NULL,
  signature  TEXT NOT NULL,
  latency_us REAL NOT NULL,
  spread_us  REAL,
  reps       INTEGER,
  algo       TEXT,
  kernel_name TEXT,
  source     TEXT,
  created    TEXT DEFAULT (datetime('now')),
  PRIMARY KEY (device, dtype, kind, signature)
);
)sql";

} // namespace perf

#endif // PERF_COSTMODEL_PERFDBSCHEMA_H
