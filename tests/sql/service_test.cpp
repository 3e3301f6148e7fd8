// sql/service: access policy, worksheets, approvals in the execution path, history.
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "common/json.hpp"
#include "tests/sql/sql_fixture.hpp"

using namespace omgdb;
using namespace std::chrono_literals;
using test::sql_bench;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

std::string all_history(const std::filesystem::path& state) {
  std::string out;
  for (const auto& e : std::filesystem::directory_iterator(state / "history")) out += slurp(e.path());
  return out;
}

bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// executeSql answers with its JSON text; the checks read it back strictly.
boost::json::object object_of(const result<std::string>& r) {
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  auto v = json::parse_strict(*r);
  REQUIRE_MESSAGE(v.ok(), "not JSON: ", *r);
  REQUIRE(v->is_object());
  return v->as_object();
}

}  // namespace

TEST_CASE("an off connection and an unknown one are refused alike, even for getActiveSql") {
  sql_bench b;
  auto off = b.svc->active_sql("off", b.who());
  auto unknown = b.svc->active_sql("nope", b.who());
  REQUIRE_FALSE(off.ok());
  REQUIRE_FALSE(unknown.ok());
  CHECK(has(off.error().message, "is not available to MCP"));
  CHECK(has(unknown.error().message, "is not available to MCP"));
  REQUIRE(b.svc->worksheets().set_active("off").ok());
  auto active_off = b.svc->active_sql("", b.who());
  REQUIRE_FALSE(active_off.ok());
  CHECK(has(active_off.error().message, "is not available to MCP"));
}

TEST_CASE("with several connections and none chosen, a call must name one") {
  sql_bench b;
  auto r = b.svc->active_sql("", b.who());
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "omgdb sql use"));
}

TEST_CASE("the active connection and worksheet written by the CLI apply from the next call") {
  sql_bench b;
  REQUIRE(b.svc->worksheets().set_active("ro").ok());
  REQUIRE(b.svc->worksheets().set_sheet("ro", "SELECT name FROM people").ok());
  auto r = b.svc->active_sql("", b.who());
  REQUIRE(r.ok());
  CHECK(r->at("connection").as_string() == "ro");
  CHECK(r->at("sql").as_string() == "SELECT name FROM people");
  CHECK(r->at("dialect").as_string() == "sqlite");
  REQUIRE(b.svc->worksheets().set_active("rw").ok());
  CHECK(b.svc->active_sql("", b.who())->at("connection").as_string() == "rw");
}

TEST_CASE("state files are private to their owner") {
  sql_bench b;
  REQUIRE(b.svc->worksheets().set_active("ro").ok());
  REQUIRE(b.svc->worksheets().set_sheet("ro", "SELECT 1").ok());
  struct stat st{};
  REQUIRE(::stat((b.svc->state_dir() / "active").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat((b.svc->state_dir() / "worksheets" / "ro.sql").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat((b.svc->state_dir() / "worksheets").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
}

TEST_CASE("a read session gets read-only access on a read-write connection") {
  sql_bench b;
  auto t = b.svc->resolve("rw", false);
  REQUIRE(t.ok());
  CHECK(t->access == config::mcp_access::read_only);
  b.open_admin();
  auto r = b.svc->execute("rw", "DELETE FROM people", 100, 1 << 20, b.who(false));
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "scope is `read`"));
  CHECK(b.svc->approvals().list().empty());
  CHECK(b.count() == 5);
}

TEST_CASE("a write on a read-only connection is refused before anyone is asked") {
  sql_bench b;
  b.open_admin();
  auto r = b.svc->execute("ro", "INSERT INTO people VALUES (9,'zed',NULL)", 100, 1 << 20, b.who());
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "read-only"));
  CHECK(b.svc->approvals().list().empty());
  CHECK(b.count() == 5);
}

TEST_CASE("refused SQL never runs at any access level") {
  sql_bench b;
  b.open_admin();
  auto r = b.svc->execute("rw", "SELECT 1; DELETE FROM people", 100, 1 << 20, b.who());
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "refused"));
  CHECK(b.svc->approvals().list().empty());
  CHECK(b.count() == 5);
}

TEST_CASE("without a way to reach a person, executeSql fails closed and says how to enable approvals") {
  sql_bench b;  // no admin channel
  auto r = b.svc->execute("rw", "SELECT * FROM people", 100, 1 << 20, b.who());
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "no person can be reached"));
  CHECK(has(r.error().message, "[approvals] enabled = true"));
  auto w = b.svc->execute("auto", "DELETE FROM people", 100, 1 << 20, b.who());
  REQUIRE_FALSE(w.ok());
  CHECK(b.count() == 5);
}

TEST_CASE("approve = writes runs a read-only statement without a person") {
  sql_bench b;
  auto text = b.svc->execute("auto", "SELECT id, name, secret FROM people ORDER BY id", 2, 1 << 20, b.who());
  auto obj = object_of(text);
  auto* r = &obj;
  CHECK(r->at("rows").as_array().size() == 2);
  CHECK(r->at("rowsMoreAvailable").as_bool());
  CHECK(r->at("truncated").as_bool() == false);
  CHECK(r->at("readOnly").as_bool());
  const auto& cols = r->at("columns").as_array();
  REQUIRE(cols.size() == 3);
  CHECK(cols[1].at("name").as_string() == "name");
  CHECK(r->at("elapsedMs").is_number());
}

TEST_CASE("executeSql's text keeps its fields in order, values exact and typed, written once") {
  sql_bench b;
  auto r = b.svc->execute("auto",
                          "SELECT id, name, secret, 1.0 AS f, x'00ff' AS b, 'tab\there \"q\"' AS t FROM people "
                          "WHERE id = 3",
                          100, 1 << 20, b.who());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  std::string text = *r;
  auto at = text.find(R"("elapsedMs":)");
  REQUIRE(at != std::string::npos);
  auto end = text.find(',', at);
  text.replace(at, end - at, R"("elapsedMs":0)");
  CHECK(text ==
        R"({"connection":"auto","statement":"SELECT","readOnly":true,"columns":[)"
        R"({"name":"id","dataType":"INTEGER","nullable":true},{"name":"name","dataType":"TEXT","nullable":false},)"
        R"({"name":"secret","dataType":"TEXT","nullable":true},{"name":"f","dataType":"REAL","nullable":null},)"
        R"({"name":"b","dataType":"BLOB","nullable":null},{"name":"t","dataType":"TEXT","nullable":null}],)"
        R"("rows":[[3,"cy",null,1.0,{"$binary":{"base64":"AP8=","subType":"00"}},"tab\there \"q\""]],)"
        R"("rowsMoreAvailable":false,"truncated":false,"elapsedMs":0,"committed":false,)"
        R"x("approval":"not required (approve = \"writes\", read-only statement)"})x");
}

TEST_CASE("an approved write runs and commits; the history keeps a digest, never the rows or the text") {
  sql_bench b;
  b.open_admin();
  auto f = std::async(std::launch::async, [&] {
    return b.svc->execute("rw", "INSERT INTO people VALUES (9,'zed','row-secret-zed')", 100, 1 << 20, b.who());
  });
  std::string id = b.pending_id();
  auto shown = b.svc->approvals().show(id);
  REQUIRE(shown.has_value());
  CHECK(shown->at("sql").as_string() == "INSERT INTO people VALUES (9,'zed','row-secret-zed')");
  CHECK(shown->at("session").as_string() == "mcp-test-1");
  REQUIRE(b.svc->approvals().decide(id, true).ok());
  auto obj = object_of(f.get());
  auto* r = &obj;
  CHECK(r->at("readOnly").as_bool() == false);
  CHECK(r->at("approval").as_string() == id);
  CHECK(b.count() == 6);
  CHECK_FALSE(b.svc->approvals().decide(id, true).ok());  // single use

  auto read = std::async(std::launch::async, [&] {
    return b.svc->execute("rw", "SELECT * FROM people WHERE id = 1", 100, 1 << 20, b.who());
  });
  REQUIRE(b.svc->approvals().decide(b.pending_id(), true).ok());
  REQUIRE(read.get().ok());
  std::string h = all_history(b.svc->state_dir());
  CHECK(has(h, sql::statement_digest("INSERT INTO people VALUES (9,'zed','row-secret-zed')")));
  CHECK_FALSE(has(h, "row-secret-zed"));
  CHECK_FALSE(has(h, "s3cr3t-ana"));
  CHECK_FALSE(has(h, "INSERT INTO"));
  auto entries = b.svc->history().read("rw", 10);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].at("outcome").as_string() == "ok");
  CHECK(entries[0].at("tool").as_string() == "executeSql");
}

TEST_CASE("a rejected write runs nothing and says so") {
  sql_bench b;
  b.open_admin();
  auto f = std::async(std::launch::async, [&] { return b.svc->execute("rw", "DELETE FROM people", 100, 1 << 20, b.who()); });
  REQUIRE(b.svc->approvals().decide(b.pending_id(), false).ok());
  auto r = f.get();
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "rejected"));
  CHECK(has(r.error().message, "nothing ran"));
  CHECK(b.count() == 5);
  CHECK(b.svc->history().read("rw", 1).at(0).at("outcome").as_string() == "rejected");
}

TEST_CASE("an approval nobody gives expires and nothing runs") {
  sql_bench b(1s);
  b.open_admin();
  auto r = b.svc->execute("rw", "DELETE FROM people", 100, 1 << 20, b.who());
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "expired"));
  CHECK(b.count() == 5);
}

TEST_CASE("switching the active connection before the approval runs nothing") {
  sql_bench b;
  b.open_admin();
  REQUIRE(b.svc->worksheets().set_active("rw").ok());
  auto f = std::async(std::launch::async, [&] { return b.svc->execute("", "DELETE FROM people", 100, 1 << 20, b.who()); });
  std::string id = b.pending_id();
  REQUIRE(b.svc->worksheets().set_active("ro").ok());
  auto r = f.get();
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "active connection changed"));
  CHECK_FALSE(b.svc->approvals().decide(id, true).ok());
  CHECK(b.count() == 5);
}

TEST_CASE("cancelling the request or losing the client before the approval runs nothing") {
  sql_bench b;
  b.open_admin();
  auto f = std::async(std::launch::async, [&] { return b.svc->execute("rw", "DELETE FROM people", 100, 1 << 20, b.who()); });
  b.pending_id();
  b.cancelled = true;
  auto r = f.get();
  REQUIRE_FALSE(r.ok());
  CHECK(has(r.error().message, "cancelled"));
  b.cancelled = false;
  auto g = std::async(std::launch::async, [&] { return b.svc->execute("rw", "DELETE FROM people", 100, 1 << 20, b.who()); });
  b.pending_id();
  b.gone = true;
  auto r2 = g.get();
  REQUIRE_FALSE(r2.ok());
  CHECK(has(r2.error().message, "disconnected"));
  CHECK(b.count() == 5);
}

TEST_CASE("a failed execution is the latest error until a success clears it") {
  sql_bench b;
  auto none = b.svc->latest_error("auto", b.who());
  REQUIRE(none.ok());
  CHECK(none->at("error").is_null());
  auto bad = b.svc->execute("auto", "SELECT no_such_column FROM people", 100, 1 << 20, b.who());
  REQUIRE_FALSE(bad.ok());
  auto e = b.svc->latest_error("auto", b.who());
  REQUIRE(e.ok());
  REQUIRE(e->at("error").is_object());
  CHECK(has(std::string(e->at("error").at("message").as_string()), "no_such_column"));
  REQUIRE(b.svc->execute("auto", "SELECT 1", 100, 1 << 20, b.who()).ok());
  CHECK(b.svc->latest_error("auto", b.who())->at("error").is_null());
}

TEST_CASE("the connection context names no password, user, host or file") {
  sql_bench b;
  auto r = b.svc->connection_context("rw", b.who(false));
  REQUIRE(r.ok());
  std::string text = json::serialize(*r);
  CHECK_FALSE(has(text, "never-show-this-password"));
  CHECK_FALSE(has(text, "never-show-this-user"));
  CHECK_FALSE(has(text, "app.db"));
  CHECK(r->at("access").as_string() == "read-only");  // capped by the read session
  CHECK(r->at("configuredAccess").as_string() == "read-write");
  CHECK(r->at("available").as_array().size() == 3);  // `off` is not listed
}

TEST_CASE("schema summaries page over relations and indexes name their columns") {
  sql_bench b;
  auto s = b.svc->schema_summary("ro", "", "", 0, 50, b.who(false));
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  CHECK(s->at("connection").as_string() == "ro");
  CHECK(has(json::serialize(*s), "people"));
  auto i = b.svc->table_indexes("ro", "", "people", b.who(false));
  REQUIRE_MESSAGE(i.ok(), (i.ok() ? "" : i.error().message));
  CHECK(has(json::serialize(*i), "people_name"));
}

TEST_CASE("explainSql gives a plan for a read and refuses a write on a read-only connection") {
  sql_bench b;
  auto p = b.svc->explain("ro", "SELECT * FROM people WHERE name = 'ana'", b.who(false));
  REQUIRE_MESSAGE(p.ok(), (p.ok() ? "" : p.error().message));
  CHECK(p->contains("plan"));
  auto w = b.svc->explain("ro", "DELETE FROM people", b.who());
  REQUIRE_FALSE(w.ok());
  CHECK(has(w.error().message, "read-only"));
  CHECK(b.count() == 5);
}

TEST_CASE("an approved proposal replaces the worksheet; a changed worksheet makes it stale") {
  sql_bench b;
  b.open_admin();
  REQUIRE(b.svc->worksheets().set_sheet("ro", "SELECT 1").ok());
  auto f = std::async(std::launch::async, [&] {
    return b.svc->propose_edit("ro", "SELECT name FROM people", "name the columns", b.who(false, "proposeSqlEdit"));
  });
  std::string id = b.pending_id();
  auto shown = b.svc->approvals().show(id);
  REQUIRE(shown.has_value());
  CHECK(shown->at("before").as_string() == "SELECT 1");
  CHECK(shown->at("rationale").as_string() == "name the columns");
  REQUIRE(b.svc->approvals().decide(id, true).ok());
  auto r = f.get();
  REQUIRE(r.ok());
  CHECK(r->at("approved").as_bool());
  CHECK(b.svc->worksheets().sheet("ro") == "SELECT name FROM people");

  auto g = std::async(std::launch::async, [&] {
    return b.svc->propose_edit("ro", "SELECT 2", "why not", b.who(false, "proposeSqlEdit"));
  });
  b.pending_id();
  REQUIRE(b.svc->worksheets().set_sheet("ro", "SELECT 3 -- edited by the person").ok());
  auto stale = g.get();
  REQUIRE(stale.ok());
  CHECK(stale->at("approved").as_bool() == false);
  CHECK(stale->at("outcome").as_string() == "stale");
  CHECK(b.svc->worksheets().sheet("ro") == "SELECT 3 -- edited by the person");
}

TEST_CASE("a reloaded config applies from the next call") {
  sql_bench b;
  REQUIRE(b.svc->active_sql("ro", b.who()).ok());
  config::connection only;
  only.name = "other";
  only.dialect = config::sql_dialect::sqlite;
  only.file = (b.dir() / "other.db").string();
  b.svc->replace_connections({only});
  CHECK_FALSE(b.svc->active_sql("ro", b.who()).ok());
  CHECK(b.svc->active_sql("other", b.who()).ok());
}

TEST_CASE("the history keeps one older generation past 1 MiB and reads the newest entries") {
  sql_bench b;
  sql::history_log log(b.dir() / "hist");
  sql::history_entry e;
  e.connection = "rw";
  e.tool = "executeSql";
  e.outcome = "ok";
  e.detail = std::string(180, 'd');
  for (int i = 0; i < 5000; ++i) log.append(e);  // ~1.5 MiB of lines
  CHECK(std::filesystem::exists(b.dir() / "hist" / "history" / "rw.jsonl.1"));
  CHECK(std::filesystem::file_size(b.dir() / "hist" / "history" / "rw.jsonl") < sql::max_history_file_bytes);
  auto newest = log.read("rw", 10);
  CHECK(newest.size() == 10);
  CHECK(log.read("", 100000).size() == 5000);
}

TEST_CASE("under systemd the state lives in $STATE_DIRECTORY") {
  const char* old = std::getenv("STATE_DIRECTORY");
  std::string saved = old ? old : "";
  ::setenv("STATE_DIRECTORY", "/var/lib/omgdb:/var/lib/other", 1);
  CHECK(sql::default_state_dir() == std::filesystem::path("/var/lib/omgdb/sql"));
  if (old) ::setenv("STATE_DIRECTORY", saved.c_str(), 1);
  else ::unsetenv("STATE_DIRECTORY");
}
