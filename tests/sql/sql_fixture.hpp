// A temporary state directory, real SQLite database files and an sql::service over them, for
// the service and SQL tool tests. The classifier is a small stand-in (the real one is tested
// in tests/sql/classifier/classifier_test.cpp and end to end in tests/sql_e2e), so these tests exercise
// the service's policy whatever the classifier's progress; the databases are real.
#pragma once

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "sql/service.hpp"

namespace omgdb::test {

namespace fs = std::filesystem;

// SELECT/WITH/VALUES read; INSERT/UPDATE/DELETE/CREATE/DROP write; `;` before the end or
// anything else: refused.
inline sql::classification stand_in_classifier(std::string_view s, config::sql_dialect) {
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  std::string word;
  while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) word += static_cast<char>(std::toupper(s[i++]));
  auto semi = s.find(';');
  if (semi != std::string_view::npos && s.find_first_not_of(" \n\t;", semi) != std::string_view::npos) {
    return {sql::verdict::refused, "more than one statement: only one statement may run per call", word};
  }
  if (word == "SELECT" || word == "WITH" || word == "VALUES") return {sql::verdict::read_only, "", word};
  if (word == "INSERT" || word == "UPDATE" || word == "DELETE" || word == "CREATE" || word == "DROP") {
    return {sql::verdict::write, "a " + word + " statement writes", word};
  }
  return {sql::verdict::refused, "not understood", word};
}

class sql_bench {
 public:
  explicit sql_bench(std::chrono::seconds approval_timeout = std::chrono::seconds(30)) {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("omgdb-sql-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(dir_);
    db_ = (dir_ / "app.db").string();
    exec_sqlite("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, secret TEXT);"
                "INSERT INTO people VALUES (1,'ana','s3cr3t-ana'),(2,'bo','s3cr3t-bo'),(3,'cy',NULL),"
                "(4,'di','x'),(5,'ed','y');"
                "CREATE INDEX people_name ON people(name);");
    auto conn = [&](std::string name, config::mcp_access access, config::approve_mode approve) {
      config::connection c;
      c.name = std::move(name);
      c.label = "Label of " + c.name;
      c.dialect = config::sql_dialect::sqlite;
      c.file = db_;
      c.password = "never-show-this-password";
      c.user = "never-show-this-user";
      c.access = access;
      c.approve = approve;
      c.statement_timeout = std::chrono::milliseconds(5000);
      return c;
    };
    connections_ = {conn("rw", config::mcp_access::read_write, config::approve_mode::all),
                    conn("ro", config::mcp_access::read_only, config::approve_mode::all),
                    conn("auto", config::mcp_access::read_write, config::approve_mode::writes),
                    conn("off", config::mcp_access::off, config::approve_mode::all)};
    options_.state_dir = dir_ / "state";
    options_.approval_timeout = approval_timeout;
    options_.classify = stand_in_classifier;
    svc = std::make_shared<sql::service>(connections_, options_);
  }
  ~sql_bench() {
    svc.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  sql_bench(const sql_bench&) = delete;
  sql_bench& operator=(const sql_bench&) = delete;

  void open_admin() { REQUIRE(svc->open_admin_channel(dir_ / "admin").ok()); }
  const fs::path& dir() const { return dir_; }
  fs::path admin_dir() const { return dir_ / "admin"; }

  // Runs SQL on the database file directly (setup and checks, not through omgdb).
  void exec_sqlite(const std::string& sql) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(db_.c_str(), &db) == SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    std::string msg = err ? err : "";
    sqlite3_free(err);
    sqlite3_close(db);
    REQUIRE_MESSAGE(rc == SQLITE_OK, msg);
  }
  long long count(const std::string& where = "1=1") {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(db_.c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    std::string q = "SELECT count(*) FROM people WHERE " + where;
    REQUIRE(sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    long long n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
  }

  sql::caller who(bool may_write = true, std::string tool = "executeSql") {
    sql::caller c;
    c.may_write = may_write;
    c.tool = std::move(tool);
    c.session = "mcp-test-1";
    c.request = "42";
    c.cancelled = &cancelled;
    c.client_gone = &gone;
    return c;
  }

  // The id of the one approval that is waiting, once it appears (5 s at most).
  std::string pending_id() {
    for (int i = 0; i < 500; ++i) {
      auto l = svc->approvals().list();
      if (!l.empty()) return std::string(l.front().at("id").as_string());
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("no approval appeared");
    return {};
  }

  std::shared_ptr<sql::service> svc;
  std::atomic<bool> cancelled{false};
  std::atomic<bool> gone{false};

 private:
  fs::path dir_;
  std::string db_;
  std::vector<config::connection> connections_;
  sql::service_options options_;
};

}  // namespace omgdb::test
