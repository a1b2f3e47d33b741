//===- Database.cpp - The performance database writer ---------------------===//

#include "bench/Database.h"
#include "perf/CostModel/PerfDbSchema.h"

#include <cstdio>
#include <sqlite3.h>

using namespace bench;

namespace {
/// A prepared statement finalized on scope exit.
class Statement {
public:
  Statement(sqlite3 *db, const char *sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
      stmt = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt); }
  sqlite3_stmt *get() const { return stmt; }
  explicit operator bool() const { return stmt != nullptr; }

  void text(int i, const std::string &s) {
    sqlite3_bind_text(stmt, i, s.c_str(), -1, SQLITE_TRANSIENT);
  }
  void text(int i, const std::optional<std::string> &s) {
    if (s)
      text(i, *s);
    else
      sqlite3_bind_null(stmt, i);
  }
  void real(int i, const std::optional<double> &d) {
    if (d)
      sqlite3_bind_double(stmt, i, *d);
    else
      sqlite3_bind_null(stmt, i);
  }
  void integer(int i, const std::optional<int64_t> &v) {
    if (v)
      sqlite3_bind_int64(stmt, i, *v);
    else
      sqlite3_bind_null(stmt, i);
  }
  std::optional<std::string> column(int i) {
    const unsigned char *s = sqlite3_column_text(stmt, i);
    if (!s)
      return std::nullopt;
    return std::string(reinterpret_cast<const char *>(s));
  }

private:
  sqlite3_stmt *stmt = nullptr;
};
} // namespace

PerfDatabase::~PerfDatabase() {
  std::string ignored;
  close(ignored);
}

bool PerfDatabase::exec(const char *sql, std::string &error) {
  char *message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    error = std::string("sqlite: ") + (message ? message : "error");
    sqlite3_free(message);
    return false;
  }
  return true;
}

bool PerfDatabase::open(const std::string &path, std::string &error) {
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    error = path + ": " + sqlite3_errmsg(db);
    sqlite3_close(db);
    db = nullptr;
    return false;
  }
  sqlite3_busy_timeout(db, 5000);
  std::string sqlError;
  if (!exec("PRAGMA journal_mode = WAL;", sqlError) ||
      !exec(perf::kPerfDbSchemaSql, sqlError)) {
    error = path + ": " + sqlError;
    sqlite3_close(db);
    db = nullptr;
    return false;
  }
  std::optional<std::string> version = meta("schema_version");
  if (version && *version != "1") {
    error = path + ": schema_version is " + *version +
            ", perf-bench writes version 1";
    sqlite3_close(db);
    db = nullptr;
    return false;
  }
  if (!version && !putMeta("schema_version", "1", sqlError)) {
    error = path + ": " + sqlError;
    return false;
  }
  return true;
}

bool PerfDatabase::close(std::string &error) {
  if (!db)
    return true;
  bool ok = flush(error);
  sqlite3_close(db);
  db = nullptr;
  return ok;
}

bool PerfDatabase::putMeta(const std::string &key, const std::string &value,
                           std::string &error) {
  Statement st(db, "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)");
  if (!st) {
    error = std::string("sqlite: ") + sqlite3_errmsg(db);
    return false;
  }
  st.text(1, key);
  st.text(2, value);
  if (sqlite3_step(st.get()) != SQLITE_DONE) {
    error = std::string("sqlite: ") + sqlite3_errmsg(db);
    return false;
  }
  return true;
}

std::optional<std::string> PerfDatabase::meta(const std::string &key) {
  Statement st(db, "SELECT value FROM meta WHERE key = ?1");
  if (!st)
    return std::nullopt;
  st.text(1, key);
  if (sqlite3_step(st.get()) != SQLITE_ROW)
    return std::nullopt;
  return st.column(0);
}

bool PerfDatabase::putDevice(const std::string &name,
                             const std::optional<std::string> &specJson,
                             std::string &error) {
  const char *sql =
      specJson
          ? "INSERT INTO devices(name, spec_json) VALUES (?1, ?2) "
            "ON CONFLICT(name) DO UPDATE SET spec_json = excluded.spec_json"
          : "INSERT OR IGNORE INTO devices(name, spec_json) VALUES (?1, ?2)";
  Statement st(db, sql);
  if (!st) {
    error = std::string("sqlite: ") + sqlite3_errmsg(db);
    return false;
  }
  st.text(1, name);
  st.text(2, specJson);
  if (sqlite3_step(st.get()) != SQLITE_DONE) {
    error = std::string("sqlite: ") + sqlite3_errmsg(db);
    return false;
  }
  return true;
}

std::set<std::string> PerfDatabase::existingKeys(const std::string &device) {
  std::set<std::string> keys;
  Statement st(db,
               "SELECT dtype, kind, signature FROM kernels WHERE device = ?1");
  if (!st)
    return keys;
  st.text(1, device);
  while (sqlite3_step(st.get()) == SQLITE_ROW)
    keys.insert(st.column(0).value_or("") + "|" + st.column(1).value_or("") +
                "|" + st.column(2).value_or(""));
  return keys;
}

bool PerfDatabase::add(const KernelRow &row, std::string &error) {
  pending.push_back(row);
  if (pending.size() >= batchSize)
    return flush(error);
  return true;
}

bool PerfDatabase::flush(std::string &error) {
  if (pending.empty() || !db)
    return true;
  if (!exec("BEGIN IMMEDIATE", error))
    return false;
  {
    Statement st(db, "INSERT OR REPLACE INTO kernels(device, dtype, kind, "
                     "signature, latency_us, spread_us, reps, algo, "
                     "kernel_name, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                     "?7, ?8, ?9, ?10)");
    if (!st) {
      error = std::string("sqlite: ") + sqlite3_errmsg(db);
      std::string ignored;
      exec("ROLLBACK", ignored);
      return false;
    }
    for (const KernelRow &r : pending) {
      sqlite3_reset(st.get());
      st.text(1, r.device);
      st.text(2, r.dtype);
      st.text(3, r.kind);
      st.text(4, r.signature);
      st.real(5, r.latencyUs);
      st.real(6, r.spreadUs);
      st.integer(7, r.reps);
      st.text(8, r.algo);
      st.text(9, r.kernelName);
      st.text(10, r.source);
      if (sqlite3_step(st.get()) != SQLITE_DONE) {
        error = std::string("sqlite: ") + sqlite3_errmsg(db);
        std::string ignored;
        exec("ROLLBACK", ignored);
        return false;
      }
    }
  }
  if (!exec("COMMIT", error))
    return false;
  pending.clear();
  return true;
}

std::vector<KernelRow> PerfDatabase::rows(const std::string &device) {
  std::vector<KernelRow> out;
  Statement st(db, "SELECT device, dtype, kind, signature, latency_us, "
                   "spread_us, reps, algo, kernel_name, source FROM kernels "
                   "WHERE ?1 = '' OR device = ?1 "
                   "ORDER BY device, kind, dtype, signature");
  if (!st)
    return out;
  st.text(1, device);
  while (sqlite3_step(st.get()) == SQLITE_ROW) {
    KernelRow r;
    r.device = st.column(0).value_or("");
    r.dtype = st.column(1).value_or("");
    r.kind = st.column(2).value_or("");
    r.signature = st.column(3).value_or("");
    r.latencyUs = sqlite3_column_double(st.get(), 4);
    if (sqlite3_column_type(st.get(), 5) != SQLITE_NULL)
      r.spreadUs = sqlite3_column_double(st.get(), 5);
    if (sqlite3_column_type(st.get(), 6) != SQLITE_NULL)
      r.reps = sqlite3_column_int64(st.get(), 6);
    r.algo = st.column(7);
    r.kernelName = st.column(8);
    r.source = st.column(9);
    out.push_back(std::move(r));
  }
  return out;
}

std::string bench::csvField(const std::string &s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

static std::string formatReal(double d) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", d);
  return buf;
}

bool PerfDatabase::exportCsv(std::ostream &out, const std::string &device,
                             std::string &error) {
  if (!db) {
    error = "database not open";
    return false;
  }
  out << "device,dtype,kind,signature,latency_us,spread_us,reps,algo,"
         "kernel_name,source\n";
  for (const KernelRow &r : rows(device)) {
    out << csvField(r.device) << ',' << csvField(r.dtype) << ','
        << csvField(r.kind) << ',' << csvField(r.signature) << ','
        << formatReal(r.latencyUs) << ','
        << (r.spreadUs ? formatReal(*r.spreadUs) : "") << ','
        << (r.reps ? std::to_string(*r.reps) : "") << ','
        << csvField(r.algo.value_or("")) << ','
        << csvField(r.kernelName.value_or("")) << ','
        << csvField(r.source.value_or("")) << '\n';
  }
  if (!out) {
    error = "write failed";
    return false;
  }
  return true;
}
