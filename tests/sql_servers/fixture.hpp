// omgdb tests — the database servers started by tests/sql_servers/run.sh, as adapters.
//
// run.sh exports the ports, users and passwords (OMGDB_TEST_PG_*, OMGDB_TEST_MARIADB_*) and
// the SQLite file (OMGDB_TEST_SQLITE_FILE), each loaded with fixture_<dialect>.sql.
#pragma once

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>
#include <boost/json/serialize.hpp>

#include "common/json.hpp"
#include "sql/adapter.hpp"

namespace omgdb::test {

namespace json = boost::json;
using config::sql_dialect;

inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

inline config::connection connection_for(sql_dialect d, unsigned pool_size = 2) {
  config::connection c;
  c.dialect = d;
  c.pool_size = pool_size;
  c.name = std::string(config::to_string(d));
  if (d == sql_dialect::sqlite) {
    c.file = env("OMGDB_TEST_SQLITE_FILE");
  } else {
    std::string p = d == sql_dialect::postgres ? "OMGDB_TEST_PG_" : "OMGDB_TEST_MARIADB_";
    c.host = "127.0.0.1";
    c.port = static_cast<std::uint16_t>(std::atoi(env((p + "PORT").c_str()).c_str()));
    c.user = env((p + "USER").c_str());
    c.password = env((p + "PASSWORD").c_str());
    c.database = env((p + "DB").c_str());
  }
  return c;
}

// One server reached one way: natively (libpq, libmariadb, sqlite3) or through unixODBC and
// the server's ODBC driver (run.sh --odbc registers them in a private odbcinst.ini under the
// names omgdb-postgres, omgdb-mariadb and omgdb-sqlite), declared as `declared`.
struct target {
  sql_dialect dialect = sql_dialect::sqlite;  // the server
  bool odbc = false;
  sql_dialect declared = sql_dialect::sqlite;  // the SQL the ODBC connection is declared to speak
  std::string name() const {
    std::string n(config::to_string(dialect));
    if (odbc) n += " via ODBC (declared " + std::string(config::to_string(declared)) + ")";
    return n;
  }
};

// The ODBC form of a native connection: the same server, user, password and file.
inline config::connection odbc_connection(const config::connection& native, sql_dialect declared) {
  config::connection c = native;
  c.kind = config::connection_kind::odbc;
  c.dialect = declared;
  c.name = native.name + "-odbc";
  c.host.clear();
  c.port = 0;
  c.database.clear();
  c.file.clear();
  if (native.dialect == sql_dialect::sqlite) {
    c.odbc = "Driver={omgdb-sqlite};Database=" + native.file;
    c.password.clear();
    c.user.clear();
  } else if (native.dialect == sql_dialect::postgres) {
    c.odbc = "Driver={omgdb-postgres};Server=" + native.host + ";Port=" + std::to_string(native.port) +
             ";Database=" + native.database;
  } else {
    c.odbc = "Driver={omgdb-mariadb};Server=" + native.host + ";Port=" + std::to_string(native.port) +
             ";Database=" + native.database;
  }
  return c;
}

inline config::connection connection_for(const target& t, unsigned pool_size = 2) {
  auto c = connection_for(t.dialect, pool_size);
  return t.odbc ? odbc_connection(c, t.declared) : c;
}

// OMGDB_TEST_TARGETS (run.sh): "native" (the default) or "odbc" — the ODBC drivers run.sh
// found are listed in OMGDB_TEST_ODBC_DRIVERS ("postgres mysql sqlite").
inline bool odbc_mode() { return env("OMGDB_TEST_TARGETS") == "odbc"; }

inline std::unique_ptr<sql::adapter> open(const target& t, unsigned pool_size = 2) {
  auto c = connection_for(t, pool_size);
  REQUIRE_MESSAGE((t.dialect == sql_dialect::sqlite ? !env("OMGDB_TEST_SQLITE_FILE").empty()
                                                    : !env(t.dialect == sql_dialect::postgres ? "OMGDB_TEST_PG_PORT"
                                                                                              : "OMGDB_TEST_MARIADB_PORT")
                                                           .empty()),
                  "run this binary through tests/sql_servers/run.sh (no server for ", t.name(), ")");
  auto a = sql::make_adapter(c);
  REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().message));
  return std::move(a).value();
}

inline std::unique_ptr<sql::adapter> open(sql_dialect d, unsigned pool_size = 2) {
  return open(target{d, false, d}, pool_size);
}

// The dialects whose server run.sh started (all three there; a developer may run the binary
// with only OMGDB_TEST_SQLITE_FILE set, and common_test.cpp fails unless
// OMGDB_TEST_ALLOW_MISSING=1 says that is intended).
inline std::vector<sql_dialect> all_dialects() {
  std::vector<sql_dialect> v;
  if (!env("OMGDB_TEST_SQLITE_FILE").empty()) v.push_back(sql_dialect::sqlite);
  if (!env("OMGDB_TEST_PG_PORT").empty()) v.push_back(sql_dialect::postgres);
  if (!env("OMGDB_TEST_MARIADB_PORT").empty()) v.push_back(sql_dialect::mysql);
  return v;
}

// What the shared suite (common_test.cpp) runs against: every server natively, or — in ODBC
// mode — every server whose ODBC driver run.sh registered, declared as its own dialect.
inline std::vector<target> all_targets() {
  std::vector<target> v;
  const std::string drivers = env("OMGDB_TEST_ODBC_DRIVERS");
  for (auto d : all_dialects()) {
    if (!odbc_mode()) v.push_back(target{d, false, d});
    else if (drivers.find(std::string(config::to_string(d))) != std::string::npos) v.push_back(target{d, true, d});
  }
  return v;
}

inline sql::exec_options ro(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  sql::exec_options o;
  o.read_only = true;
  o.timeout = timeout;
  return o;
}

inline sql::exec_options rw(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  auto o = ro(timeout);
  o.read_only = false;
  return o;
}

// The rows an execution wrote as text, parsed (strictly: the text must be valid JSON).
inline json::array parsed_rows(const sql::exec_outcome& out) {
  auto v = omgdb::json::parse_strict(out.rows_json());
  REQUIRE_MESSAGE(v.ok(), "rows are not valid JSON: ", out.rows_json());
  REQUIRE(v->is_array());
  CHECK(v->as_array().size() == out.row_count);
  return v->as_array();
}

// Runs and requires success.
inline sql::exec_outcome run(sql::adapter& a, std::string_view sql, const sql::exec_options& o) {
  auto r = a.execute(sql, o);
  INFO("sql: ", sql);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(r).value();
}

// Runs and requires failure; returns the message.
inline std::string refuse(sql::adapter& a, std::string_view sql, const sql::exec_options& o) {
  auto r = a.execute(sql, o);
  INFO("sql: ", sql);
  if (r.ok()) {
    FAIL_CHECK("expected an error, got rows ", r->rows_json(), " committed=", r->committed);
    return "";
  }
  return r.error().message;
}

inline std::string scalar(sql::adapter& a, std::string_view sql) {
  auto out = run(a, sql, ro());
  auto rows = parsed_rows(out);
  REQUIRE(rows.size() == 1);
  return json::serialize(rows[0].as_array().at(0));
}

// Everything a bypass could change: the schema of every relation, the items and scratch
// contents (as aggregates).
inline std::string fingerprint(sql::adapter& a) {
  auto schema = a.schema_summary("", "", 0, 100, ro());
  REQUIRE_MESSAGE(schema.ok(), (schema.ok() ? "" : schema.error().message));
  std::string fp = json::serialize(schema.value());
  fp += scalar(a, "SELECT COUNT(*) FROM items");
  fp += scalar(a, "SELECT SUM(id) FROM items");
  fp += scalar(a, "SELECT COUNT(*) FROM scratch");
  return fp;
}

inline bool contains(std::string_view hay, std::string_view needle) {
  return hay.find(needle) != std::string_view::npos;
}

}  // namespace omgdb::test
