// `[[connections]]` of the ODBC kinds (issue 35): `dialect = "mssql"` (SQL Server through ODBC)
// and `dialect = "odbc"` with `odbc_dialect` and a connection string that holds no secret.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/config.hpp"

using namespace omgdb;
using namespace omgdb::config;

namespace {

std::string error_of(std::string_view toml) {
  auto r = load_string(toml, "c.toml");
  return r ? std::string() : r.error().message;
}

bool contains(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("an mssql connection goes through ODBC with the T-SQL dialect and FreeTDS by default") {
  auto s = load_string(R"toml(
[[connections]]
name = "warehouse"
dialect = "mssql"
host = "sql.internal"
user = "reader"
database = "sales"
password = "pw"
[[connections]]
name = "legacy"
dialect = "odbc"
odbc_dialect = "postgres"
odbc = "Driver={PostgreSQL Unicode};Server=db;Port=5432;Database=app"
user = "agent"
[[connections]]
name = "snow"
dialect = "odbc"
odbc_dialect = "ansi"
odbc = "DSN=snowflake"
)toml", "c.toml");
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  REQUIRE(s->connections.size() == 3);
  const auto& ms = s->connections[0];
  CHECK(ms.kind == connection_kind::odbc);
  CHECK(ms.dialect == sql_dialect::mssql);
  CHECK(kind_name(ms) == "mssql");
  CHECK(text_check_only(ms));
  const auto& pg = s->connections[1];
  CHECK(pg.kind == connection_kind::odbc);
  CHECK(pg.dialect == sql_dialect::postgres);
  CHECK(kind_name(pg) == "odbc");
  CHECK(s->connections[2].dialect == sql_dialect::ansi);
}

TEST_CASE("native connections are not text-check-only") {
  auto s = load_string("[[connections]]\nname = \"n\"\ndialect = \"sqlite\"\nfile = \"/tmp/x.db\"\n", "c.toml");
  REQUIRE(s);
  CHECK(s->connections[0].kind == connection_kind::native);
  CHECK_FALSE(text_check_only(s->connections[0]));
}

TEST_CASE("an odbc connection needs its declared dialect and a connection string without the password") {
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"odbc\"\nodbc = \"DSN=x\"\n"), "needs `odbc_dialect`"));
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"odbc\"\nodbc_dialect = \"oracle\"\nodbc = \"DSN=x\"\n"),
                 "postgres, mysql, sqlite, mssql or ansi"));
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"odbc\"\nodbc_dialect = \"ansi\"\n"), "needs `odbc`"));
  const std::string pwd = error_of(
      "[[connections]]\nname = \"x\"\ndialect = \"odbc\"\nodbc_dialect = \"ansi\"\nodbc = \"DSN=x;PWD=hunter2\"\n");
  CHECK(contains(pwd, "must not hold the password"));
  CHECK_FALSE(contains(pwd, "hunter2"));
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"odbc\"\nodbc_dialect = \"ansi\"\n"
                          "odbc = \"DSN=x;Password={a;b}\"\n"),
                 "must not hold the password"));
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"odbc\"\nodbc_dialect = \"ansi\"\nodbc = \"Server=x\"\n"),
                 "must name a Driver"));
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"odbc\"\nodbc_dialect = \"ansi\"\n"
                          "odbc = \"DSN=x\"\nhost = \"h\"\n"),
                 "inside the connection string"));
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"mssql\"\nuser = \"u\"\n"), "needs `host`"));
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"postgres\"\nhost = \"h\"\nuser = \"u\"\n"
                          "odbc = \"DSN=x\"\n"),
                 "connects natively"));
  CHECK(contains(error_of("[[connections]]\nname = \"x\"\ndialect = \"ansi\"\n"), "must be postgres"));
}

TEST_CASE("password_file reads the secret from a file and never shows it") {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("omgdb-pw-" + std::to_string(::getpid()));
  {
    std::ofstream out(file);
    out << "s3cret-from-file\n";
  }
  auto s = load_string("[[connections]]\nname = \"w\"\ndialect = \"mssql\"\nhost = \"h\"\nuser = \"u\"\npassword_file = \"" +
                           file.string() + "\"\n",
                       "c.toml");
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  CHECK(s->connections[0].password == "s3cret-from-file");
  const std::string both = error_of("[[connections]]\nname = \"w\"\ndialect = \"mssql\"\nhost = \"h\"\nuser = \"u\"\n"
                                    "password = \"p\"\npassword_file = \"" +
                                    file.string() + "\"\n");
  CHECK(contains(both, "not both"));
  fs::remove(file);
  const std::string missing = error_of("[[connections]]\nname = \"w\"\ndialect = \"mssql\"\nhost = \"h\"\nuser = \"u\"\n"
                                       "password_file = \"" +
                                       file.string() + "\"\n");
  CHECK(contains(missing, "is not a readable file"));
  CHECK(contains(error_of("[[connections]]\nname = \"w\"\ndialect = \"mssql\"\nhost = \"h\"\nuser = \"u\"\n"
                          "password_file = \"relative\"\n"),
                 "absolute path"));
}
