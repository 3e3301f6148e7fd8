#include <doctest/doctest.h>

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

TEST_CASE("connections of every dialect are read with their defaults") {
  auto s = load_string(R"toml(
[[connections]]
name = "app"
dialect = "postgresql"
host = "/run/postgresql"
user = "agent"
database = "app"
mcp_access = "read-write"
approve = "writes"
statement_timeout = "1500ms"
pool_size = 4
[[connections]]
name = "shop"
label = "Shop (MariaDB)"
dialect = "mariadb"
host = "db.internal"
port = 3307
user = "ro"
[[connections]]
name = "notes"
dialect = "sqlite"
file = "/var/lib/omgdb/notes.sqlite"
)toml", "c.toml");
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  REQUIRE(s->connections.size() == 3);
  const auto& pg = s->connections[0];
  CHECK(pg.dialect == sql_dialect::postgres);
  CHECK(pg.label == "app");
  CHECK(pg.port == 0);
  CHECK(pg.access == mcp_access::read_write);
  CHECK(pg.approve == approve_mode::writes);
  CHECK(pg.statement_timeout == std::chrono::milliseconds(1500));
  CHECK(pg.pool_size == 4);
  const auto& my = s->connections[1];
  CHECK(my.dialect == sql_dialect::mysql);
  CHECK(my.label == "Shop (MariaDB)");
  CHECK(my.port == 3307);
  CHECK(my.access == mcp_access::read_only);
  CHECK(my.approve == approve_mode::all);
  CHECK(my.statement_timeout == std::chrono::milliseconds(30000));
  CHECK(my.pool_size == 2);
  CHECK(s->connections[2].file == "/var/lib/omgdb/notes.sqlite");
}

TEST_CASE("a connection needs a valid name, unique among connections") {
  CHECK(contains(error_of("[[connections]]\ndialect = \"sqlite\"\nfile = \"/x\"\n"), "`connections[0].name` is required"));
  CHECK(contains(error_of("[[connections]]\nname = \"\"\ndialect = \"sqlite\"\nfile = \"/x\"\n"), "must match"));
  CHECK(contains(error_of("[[connections]]\nname = \"x/y\"\ndialect = \"sqlite\"\nfile = \"/x\"\n"), "must match"));
  CHECK(contains(error_of("[[connections]]\nname = \"a\"\ndialect = \"sqlite\"\nfile = \"/x\"\n"
                          "[[connections]]\nname = \"a\"\ndialect = \"sqlite\"\nfile = \"/y\"\n"),
                 "c.toml:6:8: a second connection is named `a`"));
}

TEST_CASE("a connection needs a known dialect") {
  CHECK(contains(error_of("[[connections]]\nname = \"a\"\nfile = \"/x\"\n"), "needs `dialect`"));
  CHECK(contains(error_of("[[connections]]\nname = \"a\"\ndialect = \"oracle\"\n"), "`connections[0].dialect` must be postgres"));
}

TEST_CASE("each dialect has its required fields and refuses the other dialect's") {
  CHECK(contains(error_of("[[connections]]\nname = \"a\"\ndialect = \"sqlite\"\n"), "(sqlite) needs `file`"));
  CHECK(contains(error_of("[[connections]]\nname = \"a\"\ndialect = \"sqlite\"\nfile = \"/x\"\nhost = \"h\"\n"),
                 "(sqlite) takes `file`, not `host`"));
  CHECK(contains(error_of("[[connections]]\nname = \"a\"\ndialect = \"postgres\"\nuser = \"u\"\n"), "(postgres) needs `host`"));
  CHECK(contains(error_of("[[connections]]\nname = \"a\"\ndialect = \"mysql\"\nhost = \"h\"\n"), "(mysql) needs `user`"));
  CHECK(contains(error_of("[[connections]]\nname = \"a\"\ndialect = \"mysql\"\nhost = \"h\"\nuser = \"u\"\nfile = \"/x\"\n"),
                 "not `file`"));
}

TEST_CASE("connection values out of range are errors") {
  std::string base = "[[connections]]\nname = \"a\"\ndialect = \"postgres\"\nhost = \"h\"\nuser = \"u\"\n";
  CHECK(contains(error_of(base + "port = 70000\n"), "`connections[0].port` must be between 1 and 65535"));
  CHECK(contains(error_of(base + "pool_size = 0\n"), "`connections[0].pool_size` must be between 1 and 16"));
  CHECK(contains(error_of(base + "pool_size = 17\n"), "between 1 and 16"));
  CHECK(contains(error_of(base + "mcp_access = \"yes\"\n"), "must be off, read-only or read-write"));
  CHECK(contains(error_of(base + "approve = \"some\"\n"), "must be all or writes"));
  CHECK(contains(error_of(base + "statement_timeout = \"forever\"\n"), "is not a duration"));
  CHECK(contains(error_of(base + "statement_timeout = \"2h\"\n"), "must be between"));
  CHECK(contains(error_of(base + "passwd = \"x\"\n"), "unknown key `connections[0].passwd`"));
}
