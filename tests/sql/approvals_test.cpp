// sql/approvals and sql/admin: the lifecycle of a pending approval and the admin channel.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <random>
#include <thread>

#include "sql/admin.hpp"
#include "sql/approvals.hpp"

using namespace omgdb;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

sql::approval_request sample(std::string sql_text = "DELETE FROM t") {
  sql::approval_request r;
  r.connection = "local";
  r.label = "Local";
  r.dialect = "sqlite";
  r.session = "mcp-1-1";
  r.request = "7";
  r.sql = std::move(sql_text);
  r.keyword = "DELETE";
  r.write = true;
  r.limit = 100;
  return r;
}

// Waits in another thread and returns the outcome as a future.
std::future<sql::approval_outcome> wait_async(sql::approval_queue& q, const std::string& id,
                                              sql::wait_hooks hooks = {}) {
  hooks.poll = 10ms;
  return std::async(std::launch::async, [&q, id, hooks] { return q.wait(id, hooks); });
}

struct temp_dir {
  fs::path path;
  temp_dir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("omgdb-approvals-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("an approved request returns approved and is then forgotten") {
  sql::approval_queue q(120s, 4);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  CHECK(id->size() == 12);
  auto f = wait_async(q, *id);
  CHECK(q.list().size() == 1);
  REQUIRE(q.decide(*id, true).ok());
  CHECK(f.get() == sql::approval_outcome::approved);
  CHECK(q.list().empty());
  CHECK_FALSE(q.show(*id).has_value());
}

TEST_CASE("a decision counts once: a replayed approval is refused") {
  sql::approval_queue q(120s, 4);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  auto f = wait_async(q, *id);
  REQUIRE(q.decide(*id, true).ok());
  CHECK(f.get() == sql::approval_outcome::approved);
  auto again = q.decide(*id, true);
  CHECK_FALSE(again.ok());
  CHECK(again.error().message.find("no pending approval") != std::string::npos);
}

TEST_CASE("a second decision before the waiting call wakes is refused too") {
  sql::approval_queue q(120s, 4);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  REQUIRE(q.decide(*id, false).ok());
  auto second = q.decide(*id, true);
  CHECK_FALSE(second.ok());
  CHECK(second.error().message.find("already rejected") != std::string::npos);
  sql::wait_hooks h;
  CHECK(q.wait(*id, h) == sql::approval_outcome::rejected);
}

TEST_CASE("a rejected request says rejected") {
  sql::approval_queue q(120s, 4);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  auto f = wait_async(q, *id);
  REQUIRE(q.decide(*id, false).ok());
  CHECK(f.get() == sql::approval_outcome::rejected);
}

TEST_CASE("an undecided request expires and cannot be approved afterwards") {
  sql::approval_queue q(1s, 4);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  auto started = std::chrono::steady_clock::now();
  auto f = wait_async(q, *id);
  CHECK(f.get() == sql::approval_outcome::expired);
  CHECK(std::chrono::steady_clock::now() - started >= 900ms);
  CHECK_FALSE(q.decide(*id, true).ok());
}

TEST_CASE("cancellation, a departed client and a switched connection each end the wait") {
  sql::approval_queue q(120s, 4);
  std::atomic<bool> cancelled{false}, gone{false}, valid{true};
  sql::wait_hooks h;
  h.cancelled = &cancelled;
  h.client_gone = &gone;
  h.still_valid = [&] { return valid.load(); };

  auto a = q.submit(sample());
  REQUIRE(a.ok());
  auto fa = wait_async(q, *a, h);
  cancelled = true;
  CHECK(fa.get() == sql::approval_outcome::cancelled);
  cancelled = false;

  auto b = q.submit(sample());
  REQUIRE(b.ok());
  auto fb = wait_async(q, *b, h);
  gone = true;
  CHECK(fb.get() == sql::approval_outcome::client_gone);
  gone = false;

  auto c = q.submit(sample());
  REQUIRE(c.ok());
  auto fc = wait_async(q, *c, h);
  valid = false;
  CHECK(fc.get() == sql::approval_outcome::connection_switched);
  CHECK(q.list().empty());
}

TEST_CASE("a cancellation wins over an approval given at the same moment") {
  sql::approval_queue q(120s, 4);
  std::atomic<bool> cancelled{true};
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  REQUIRE(q.decide(*id, true).ok());
  sql::wait_hooks h;
  h.cancelled = &cancelled;
  CHECK(q.wait(*id, h) == sql::approval_outcome::cancelled);
}

TEST_CASE("no more than max_pending approvals wait at once") {
  sql::approval_queue q(120s, 2);
  auto a = q.submit(sample());
  auto b = q.submit(sample());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  auto c = q.submit(sample());
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("already waiting") != std::string::npos);
  REQUIRE(q.decide(*a, false).ok());
  sql::wait_hooks h;
  CHECK(q.wait(*a, h) == sql::approval_outcome::rejected);
  CHECK(q.submit(sample()).ok());
}

TEST_CASE("shutdown ends every wait and refuses new requests") {
  sql::approval_queue q(120s, 4);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  auto f = wait_async(q, *id);
  q.shutdown();
  CHECK(f.get() == sql::approval_outcome::shutdown);
  CHECK_FALSE(q.submit(sample()).ok());
}

TEST_CASE("the listing shows the exact SQL, the connection and who asked") {
  sql::approval_queue q(120s, 4);
  auto id = q.submit(sample("UPDATE t SET a = 'x;y' -- why"));
  REQUIRE(id.ok());
  auto shown = q.show(*id);
  REQUIRE(shown.has_value());
  CHECK(shown->at("sql").as_string() == "UPDATE t SET a = 'x;y' -- why");
  CHECK(shown->at("connection").as_string() == "local");
  CHECK(shown->at("session").as_string() == "mcp-1-1");
  CHECK(shown->at("request").as_string() == "7");
  CHECK(shown->at("expiresInMs").as_int64() > 100000);
}

TEST_CASE("an approval over the admin channel carries only the id") {
  sql::approval_queue q(120s, 4);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  auto smuggled = sql::admin_answer(q, boost::json::object{{"op", "approve"}, {"id", *id}, {"sql", "DROP TABLE t"}});
  CHECK(smuggled.at("ok").as_bool() == false);
  CHECK(q.show(*id).has_value());  // still pending
  auto plain = sql::admin_answer(q, boost::json::object{{"op", "approve"}, {"id", *id}});
  CHECK(plain.at("ok").as_bool());
  auto replay = sql::admin_answer(q, boost::json::object{{"op", "approve"}, {"id", *id}});
  CHECK(replay.at("ok").as_bool() == false);
}

TEST_CASE("the admin socket is private to its user and answers list, show and approve") {
  temp_dir dir;
  sql::approval_queue q(120s, 4);
  auto srv = sql::admin_server::start(dir.path / "admin", q);
  REQUIRE(srv.ok());
  struct stat st{};
  REQUIRE(::stat((dir.path / "admin").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(::stat((*srv)->socket_path().c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  auto sockets = sql::admin_sockets(dir.path / "admin");
  REQUIRE(sockets.size() == 1);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  auto f = wait_async(q, *id);
  auto listed = sql::admin_request(sockets[0], boost::json::object{{"op", "list"}});
  REQUIRE(listed.ok());
  REQUIRE(listed->at("pending").as_array().size() == 1);
  CHECK(listed->at("pending").as_array()[0].at("id").as_string() == *id);
  auto approved = sql::admin_request(sockets[0], boost::json::object{{"op", "approve"}, {"id", *id}});
  REQUIRE(approved.ok());
  CHECK(approved->at("ok").as_bool());
  CHECK(f.get() == sql::approval_outcome::approved);
  auto again = sql::admin_request(sockets[0], boost::json::object{{"op", "approve"}, {"id", *id}});
  REQUIRE(again.ok());
  CHECK(again->at("ok").as_bool() == false);
}

TEST_CASE("a watch sees a new approval appear") {
  temp_dir dir;
  sql::approval_queue q(120s, 4);
  auto srv = sql::admin_server::start(dir.path / "admin", q);
  REQUIRE(srv.ok());
  std::atomic<int> updates{0};
  std::atomic<bool> saw_one{false};
  auto watcher = std::async(std::launch::async, [&] {
    return sql::admin_watch((*srv)->socket_path(), [&](const boost::json::object& o) {
      ++updates;
      if (o.at("pending").as_array().size() == 1) {
        saw_one = true;
        return false;
      }
      return true;
    });
  });
  while (updates.load() == 0) std::this_thread::sleep_for(5ms);
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  CHECK(watcher.wait_for(5s) == std::future_status::ready);
  CHECK(saw_one.load());
}

TEST_CASE("a dead process's socket is cleaned up, not listed") {
  temp_dir dir;
  sql::approval_queue q(120s, 4);
  fs::path sock;
  {
    auto srv = sql::admin_server::start(dir.path / "admin", q);
    REQUIRE(srv.ok());
    sock = (*srv)->socket_path();
  }
  CHECK_FALSE(fs::exists(sock));
  CHECK(sql::admin_sockets(dir.path / "admin").empty());
}

TEST_CASE("another user's process gets no answer from the admin socket, even when it can reach it") {
  if (::geteuid() != 0) return;  // needs root to become another user in a child process
  temp_dir dir;
  sql::approval_queue q(120s, 4);
  auto srv = sql::admin_server::start(dir.path / "admin", q);
  REQUIRE(srv.ok());
  auto id = q.submit(sample());
  REQUIRE(id.ok());
  // Open the directory and the socket to everyone, so that only SO_PEERCRED stands in the way.
  ::chmod(dir.path.c_str(), 0755);
  ::chmod((dir.path / "admin").c_str(), 0755);
  ::chmod((*srv)->socket_path().c_str(), 0666);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    auto r = sql::admin_request((*srv)->socket_path(), boost::json::object{{"op", "approve"}, {"id", *id}});
    ::_exit(r.ok() ? 1 : 0);  // no answer is the expected outcome
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(q.show(*id).has_value());  // still pending: the stranger decided nothing
}
