#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "transports/http_sessions.hpp"

using namespace omgdb;
using namespace omgdb::transports::http;

namespace {

request_view post(std::optional<std::string> session = std::nullopt, const std::string& token = "") {
  request_view r;
  r.token_name = token;
  r.method = "POST";
  r.target = "/mcp";
  r.host = "127.0.0.1:41922";
  r.accept = "application/json, text/event-stream";
  r.content_type = "application/json";
  r.session_id = std::move(session);
  r.protocol_version = "2025-11-25";
  return r;
}

constexpr std::string_view init_body =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";

std::vector<mcp::tool> tools(std::thread::id& ran_on) {
  mcp::tool quick{"quick", "Quick.", {}, {true, true, false}, auth::scope::read,
                  [&ran_on](const boost::json::object&, mcp::call_context&) {
                    ran_on = std::this_thread::get_id();
                    return mcp::tool_result::text("quick");
                  }};
  quick.quick = true;
  return {quick};
}

// A table on a fake clock whose loop runs everything at once.
struct fixture {
  mcp::server srv{{}, {}};
  std::int64_t now_ms = 1'000'000;
  std::unique_ptr<session_table> table;

  explicit fixture(table_options o) {
    table = std::make_unique<session_table>(srv, auth::scope::read, std::move(o),
                                            [](std::function<void()> fn) { fn(); }, [this] { return now_ms; });
    table->set_on_loop([] { return true; });
  }
  // A new session's id, or "" when initialize was refused (then `status` tells how).
  std::string start(const std::string& token, unsigned* status = nullptr) {
    auto ex = table->handle_post(post(std::nullopt, token), init_body);
    if (status) *status = ex.reply.status;
    return ex.session ? ex.session->id() : std::string();
  }
  unsigned ping(const std::string& token, const std::string& sid) {
    auto ex = table->handle_post(post(sid, token), R"({"jsonrpc":"2.0","id":9,"method":"ping"})");
    return ex.session ? 200 : ex.reply.status;
  }
};

table_options limited(std::size_t max_sessions, std::size_t per_token) {
  table_options o;
  o.max_sessions = max_sessions;
  o.max_sessions_per_token = per_token;
  return o;
}

std::string temp_dir() {
  std::string t = (std::filesystem::temp_directory_path() / "omgdb-seam-XXXXXX").string();
  REQUIRE(::mkdtemp(t.data()) != nullptr);
  return t;
}

}  // namespace

TEST_CASE("on the event loop a quick tool's reply is in the POST's outlet when handle_post returns") {
  std::thread::id ran_on;
  mcp::server srv({}, tools(ran_on));
  std::vector<std::function<void()>> posted;
  session_table table(srv, auth::scope::read, {}, [&](std::function<void()> fn) { posted.push_back(std::move(fn)); });
  table.set_on_loop([] { return true; });
  auto init = table.handle_post(post(), init_body);
  REQUIRE(init.out);
  CHECK(init.out->out.size() == 1);  // initialize's reply, routed at once
  auto sid = init.session->id();
  auto call = table.handle_post(
      post(sid), R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"quick","arguments":{}}})");
  REQUIRE(call.out);
  CHECK(ran_on == std::this_thread::get_id());
  REQUIRE(call.out->out.size() == 1);
  CHECK(call.out->out[0].find(R"("text":"quick")") != std::string::npos);
  CHECK(call.out->finished);
  CHECK(posted.empty());
  table.close_all();
}

TEST_CASE("without the loop check a session's messages are posted to the loop, not routed in place") {
  std::thread::id ran_on;
  mcp::server srv({}, tools(ran_on));
  std::vector<std::function<void()>> posted;
  session_table table(srv, auth::scope::read, {}, [&](std::function<void()> fn) { posted.push_back(std::move(fn)); });
  auto init = table.handle_post(post(), init_body);
  REQUIRE(init.out);
  CHECK(init.out->out.empty());
  REQUIRE(posted.size() == 1);
  posted[0]();
  CHECK(init.out->out.size() == 1);
  table.close_all();
}

// Limits and the seam: per-token quotas, eviction of the longest-idle session, restoring
// state as data, bounded and coalesced state files.

TEST_CASE("one token cannot hold more sessions than its quota while the others still get theirs") {
  fixture f(limited(10, 3));
  for (int i = 0; i < 3; ++i) CHECK_FALSE(f.start("greedy").empty());
  unsigned status = 0;
  CHECK(f.start("greedy", &status).empty());  // none idle for a minute: refused, not evicted
  CHECK(status == 503);
  CHECK_FALSE(f.start("other").empty());
  CHECK(f.table->live_count() == 4);
}

TEST_CASE("a token at its quota gives up its own longest-idle session, with its state, for a new one") {
  fixture f(limited(10, 2));
  std::string oldest = f.start("t");
  f.now_ms += 1000;
  std::string newer = f.start("t");
  std::string others = f.start("u");
  f.now_ms += 2 * 60 * 1000;  // both idle past the eviction threshold
  CHECK(f.ping("t", newer) == 200);
  std::string third = f.start("t");
  CHECK_FALSE(third.empty());
  CHECK(f.ping("t", oldest) == 404);  // the longest idle went
  CHECK(f.ping("t", newer) == 200);
  CHECK(f.ping("u", others) == 200);  // another token's session is never the price
}

TEST_CASE("a full table evicts the longest-idle session of any token before refusing initialize") {
  fixture f(limited(2, 0));
  std::string a = f.start("a");
  f.now_ms += 10;
  std::string b = f.start("b");
  unsigned status = 0;
  CHECK(f.start("c", &status).empty());  // nothing idle for a minute yet
  CHECK(status == 503);
  f.now_ms += 61 * 1000;
  CHECK(f.ping("b", b) == 200);
  CHECK_FALSE(f.start("c").empty());
  CHECK(f.ping("a", a) == 404);
  CHECK(f.ping("b", b) == 200);
}

TEST_CASE("an initialize whose envelope is refused creates no session") {
  fixture f(table_options{});
  auto ex = f.table->handle_post(post(),
                                 R"({"jsonrpc":"1.0","id":1,"method":"initialize","params":{}})");
  CHECK(ex.reply.status == 400);
  CHECK(ex.reply.body.find("-32600") != std::string::npos);
  CHECK(ex.reply.body.find(R"("id":1)") != std::string::npos);
  CHECK(f.table->live_count() == 0);
}

TEST_CASE("a restored session imports its recorded state, and a bogus log level is never persisted") {
  std::string dir = temp_dir();
  std::string sid;
  {
    table_options o;
    o.state_dir = dir;
    fixture f(o);
    sid = f.start("t");
    REQUIRE_FALSE(sid.empty());
    auto n = f.table->handle_post(post(sid, "t"), R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    CHECK(n.reply.status == 202);
    f.table->handle_post(post(sid, "t"),
                         R"({"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}})");
    auto bogus = f.table->handle_post(post(sid, "t"), R"({"jsonrpc":"2.0","id":3,"method":"logging/setLevel",)"
                                                         R"("params":{"level":")" +
                                                             std::string(4u << 20, 'x') + R"("}})");
    REQUIRE(bogus.out);
    CHECK(bogus.out->out.at(0).find("-32602") != std::string::npos);
    f.table->close_all();
  }
  CHECK(std::filesystem::file_size(dir + "/http-sessions.json") < 4096);
  auto records = load_records(dir);
  REQUIRE(records.ok());
  REQUIRE(records->size() == 1);
  CHECK((*records)[0].state == mcp::session_state{"2025-11-25", true, "info"});

  table_options o;
  o.state_dir = dir;
  fixture f(o);
  auto ex = f.table->handle_post(post(sid, "t"), R"({"jsonrpc":"2.0","id":4,"method":"ping"})");
  REQUIRE(ex.session);
  CHECK(ex.session->mcp().export_state() == mcp::session_state{"2025-11-25", true, "info"});
  REQUIRE(ex.out);
  REQUIRE(ex.out->out.size() == 1);  // only the ping's answer: nothing was replayed
  CHECK(ex.out->out[0].find(R"("id":4)") != std::string::npos);
  f.table->close_all();
  std::filesystem::remove_all(dir);
}

TEST_CASE("records whose fields break their bounds are dropped when the state file is loaded") {
  std::string dir = temp_dir();
  std::string good(32, 'a');
  std::string text = R"({"format":1,"sessions":[)"
                     R"({"id":")" + good + R"(","version":"2025-11-25","log_level":"debug","scope":"read"},)"
                     R"({"id":")" + std::string(32, 'b') + R"(","log_level":")" + std::string(5000, 'x') + R"("},)"
                     R"({"id":")" + std::string(32, 'c') + R"(","version":"9999-99-99"},)"
                     R"({"id":")" + std::string(32, 'd') + R"(","token":")" + std::string(300, 't') + R"("},)"
                     R"({"id":")" + std::string(32, 'Z') + R"("}]})";
  std::ofstream(dir + "/http-sessions.json") << text;
  auto records = load_records(dir);
  REQUIRE(records.ok());
  REQUIRE(records->size() == 1);
  CHECK((*records)[0].id == good);
  std::filesystem::remove_all(dir);
}

TEST_CASE("the state writer coalesces a burst of snapshots and writes the newest off the caller's thread") {
  std::string dir = temp_dir();
  std::size_t written = 0;
  {
    state_writer w(dir);
    for (int i = 1; i <= 200; ++i) {
      std::vector<session_record> snapshot(static_cast<std::size_t>(i));
      for (int k = 0; k < i; ++k) snapshot[static_cast<std::size_t>(k)].id = std::string(31, 'a') + char('a' + k % 6);
      w.submit(std::move(snapshot));
    }
    w.flush();
    written = w.files_written();
  }
  CHECK(written >= 1);
  CHECK(written < 200);
  auto records = load_records(dir);
  REQUIRE(records.ok());
  CHECK(records->size() == 200);
  std::filesystem::remove_all(dir);
}
