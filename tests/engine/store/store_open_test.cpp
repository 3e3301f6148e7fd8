// Creating, opening, locking and reopening stores.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "engine/index/keystring.hpp"
#include "engine/store/store_recover.hpp"
#include "engine/store/store_detail.hpp"
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

TEST_CASE("a created store opens empty") {
  fresh_store s;
  CHECK(s->path() == s.path);
  auto cols = s->collections();
  REQUIRE(cols.ok());
  CHECK(cols->empty());
  CHECK(dump_text(*s).empty());
  CHECK(oplog_size(*s) == 0);
  CHECK(fs::exists(fs::path(s.path) / "omgdb.lock"));
}

TEST_CASE("creating a store in an empty directory works, over anything else it fails") {
  temp_dir dir;
  fs::create_directory(dir.sub("empty"));
  CHECK(store::create(dir.sub("empty")).ok());

  std::ofstream(dir.sub("file")) << "x";
  auto over_file = store::create(dir.sub("file"));
  REQUIRE_FALSE(over_file.ok());
  CHECK(over_file.error().message == "`" + dir.sub("file") + "` already exists");

  auto again = store::create(dir.sub("empty"));
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message == "`" + dir.sub("empty") + "` already exists");
}

TEST_CASE("creating a store under a missing directory names that directory") {
  temp_dir dir;
  auto r = store::create(dir.sub("nope/app.omgdb"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "cannot create store `" + dir.sub("nope/app.omgdb") +
                                 "`: directory `" + dir.sub("nope") + "` does not exist");
}

TEST_CASE("opening a missing path names it and suggests omgdb create") {
  temp_dir dir;
  auto r = store::open(dir.sub("app.omgdb"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "no store at `" + dir.sub("app.omgdb") +
                                 "`: create one with `omgdb create " + dir.sub("app.omgdb") + "`");
}

TEST_CASE("opening a directory that is not a store says so and leaves it untouched") {
  temp_dir dir;
  fs::create_directory(dir.sub("plain"));
  auto r = store::open(dir.sub("plain"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("is not an omgdb store") != std::string::npos);
  CHECK(fs::is_empty(dir.sub("plain")));
}

TEST_CASE("a second open in the same process names this process") {
  fresh_store s;
  auto second = store::open(s.path);
  REQUIRE_FALSE(second.ok());
  const auto& m = second.error().message;
  CHECK(m.find("store `" + s.path + "` is in use by process " + std::to_string(getpid()) + " (") == 0);
  CHECK(m.find("); stop it or connect through it") != std::string::npos);
  // The failed attempt must not have released the first holder's lock.
  s.db.reset();
  auto third = store::open(s.path);
  CHECK(third.ok());
}

TEST_CASE("a store held by another process names that process") {
  fresh_store s;
  s.db.reset();
  std::string lock_path = (fs::path(s.path) / "omgdb.lock").string();
  int ready[2], release[2];
  REQUIRE(pipe(ready) == 0);
  REQUIRE(pipe(release) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Only async-signal-safe calls here: the parent has threads (RocksDB's pools).
    close(ready[0]);
    close(release[1]);  // else our own copy keeps the read below from ever seeing EOF
    int fd = open(lock_path.c_str(), O_RDWR);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) _exit(1);
    char text[64];
    int n = 0;
    char digits[24];
    int d = 0;
    for (pid_t p = getpid(); p > 0; p /= 10) digits[d++] = static_cast<char>('0' + p % 10);
    while (d > 0) text[n++] = digits[--d];
    for (const char* c = "\n/usr/bin/holder --flag\n"; *c; ++c) text[n++] = *c;
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, static_cast<size_t>(n), 0) != n) _exit(1);
    char byte = 1;
    if (write(ready[1], &byte, 1) != 1) _exit(1);
    ssize_t got = read(release[0], &byte, 1);  // blocks until the parent closes the pipe
    (void)got;
    _exit(0);
  }
  close(ready[1]);
  close(release[0]);
  char byte = 0;
  REQUIRE(read(ready[0], &byte, 1) == 1);

  auto r = store::open(s.path);
  close(release[1]);
  close(ready[0]);
  int wstatus = 0;
  waitpid(child, &wstatus, 0);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "store `" + s.path + "` is in use by process " +
                                 std::to_string(child) +
                                 " (holder --flag); stop it or connect through it");
  CHECK(WIFEXITED(wstatus));

  // Once the holder is gone the store opens and records this process as the owner.
  auto after = store::open(s.path);
  REQUIRE(after.ok());
  std::ifstream in(lock_path);
  std::string pid_line;
  std::getline(in, pid_line);
  CHECK(pid_line == std::to_string(getpid()));
}

TEST_CASE("data survives close and reopen") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":1,"name":"ana","tags":["a","b"]})")).ok());
  REQUIRE(s->insert("users", doc(R"({"_id":2,"name":"bo"})")).ok());
  REQUIRE(s->create_collection("empty").ok());
  std::string before = dump_text(*s);
  std::size_t log_before = oplog_size(*s);
  s.reopen();
  CHECK(dump_text(*s) == before);
  auto got = s->get("users", val("1"));
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK(to_json(**got) == R"({"_id":1,"name":"ana","tags":["a","b"]})");
  CHECK(s->has_collection("empty"));

  // Sequence numbers and batch ids continue after a reopen.
  REQUIRE(s->insert("users", doc(R"({"_id":3})")).ok());
  auto log = s->oplog();
  REQUIRE(log.ok());
  REQUIRE(log->size() == log_before + 1);
  for (std::size_t i = 0; i < log->size(); ++i) {
    CHECK(find_field((*log)[i], "seq")->as_int64() == static_cast<std::int64_t>(i + 1));
  }
  CHECK(find_field(log->back(), "batch")->as_int64() >
        find_field((*log)[log->size() - 2], "batch")->as_int64());
}

TEST_CASE("a store from a newer format is refused") {
  fresh_store s;
  s.db.reset();
  {
    raw_db raw(s.path);
    raw.put("meta", "format_version", std::string("\0\0\0\x63", 4));
  }
  auto r = store::open(s.path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "store `" + s.path +
                                 "` has format version 99, newer than this omgdb reads (1); "
                                 "upgrade omgdb");
}

TEST_CASE("the registry hands out one store per canonical path") {
  fresh_store s;
  s.db.reset();
  store_registry registry;
  auto a = registry.open(s.path);
  REQUIRE(a.ok());
  auto b = registry.open(s.path + "/.");
  REQUIRE(b.ok());
  CHECK(a->get() == b->get());
  auto missing = registry.open(s.dir.sub("missing.omgdb"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("no store at") == 0);

  registry.close_all();
  a->reset();
  b->reset();
  // Closed for real: the store can be opened directly again.
  CHECK(store::open(s.path).ok());
}

namespace {

// The newest write-ahead log file of the store at `path`.
fs::path newest_wal(const std::string& path) {
  fs::path newest;
  for (const auto& e : fs::directory_iterator(path)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log" && name[0] >= '0' && name[0] <= '9' &&
        (newest.empty() || name > newest.filename().string())) {
      newest = e.path();
    }
  }
  return newest;
}

// What a crash right now would leave: a copy of the open store's directory (every write is
// fsynced into the write-ahead log before it returns; a clean close would flush the memtables
// and leave no log to replay). `s` then works on the copy, and the original is closed.
void crash_into_copy(fresh_store& s) {
  const std::string image = s.dir.sub("crashed.omgdb");
  fs::copy(s.path, image, fs::copy_options::recursive);
  s.db.reset();
  s.path = image;
}

}  // namespace

TEST_CASE("a store whose write-ahead log is damaged mid-way refuses to open, and recover_store drops and counts the rest") {
  fresh_store s;
  for (int i = 0; i < 50; ++i) {
    REQUIRE(s->insert("docs", doc("{\"_id\":" + std::to_string(i) + ",\"pad\":\"" + std::string(100, 'x') + "\"}")).ok());
  }
  crash_into_copy(s);  // the writes are in the log only: memtables are not flushed
  fs::path wal = newest_wal(s.path);
  REQUIRE_FALSE(wal.empty());
  const auto size = fs::file_size(wal);
  REQUIRE(size > 2000);
  {
    std::fstream f(wal, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(size / 2));
    char c = 0;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(size / 2));
    c = static_cast<char>(c ^ 0x5A);
    f.write(&c, 1);
  }
  auto refused = store::open(s.path);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.rfind("store `" + s.path + "` cannot be opened: its write-ahead log is damaged before its end", 0) == 0);
  CHECK(refused.error().message.find("run `omgdb recover " + s.path + "`") != std::string::npos);

  auto r = recover_store(s.path);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  REQUIRE(r->damage.has_value());
  CHECK(fs::is_directory(r->backup_dir));
  s.reopen();
  auto n = s->count("docs", {});
  REQUIRE(n.ok());
  CHECK(*n + r->damage->lost_batches() == 50);
  CHECK(r->damage->lost_batches() > 0);
  CHECK(r->damage->lost_records() == r->damage->lost_batches());  // one insert, one record

  s.db.reset();
  auto again = recover_store(s.path);
  REQUIRE(again.ok());
  CHECK_FALSE(again->damage.has_value());
}

TEST_CASE("a clean close flushes the memtables, so the next open replays no write-ahead log") {
  fresh_store s;
  for (int i = 0; i < 50; ++i) REQUIRE(s->insert("docs", doc("{\"_id\":" + std::to_string(i) + "}")).ok());
  s.db.reset();
  for (const auto& e : fs::directory_iterator(s.path)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log" && name[0] >= '0' && name[0] <= '9') {
      CHECK_MESSAGE(fs::file_size(e.path()) == 0, name);
    }
  }
  s.reopen();
  auto n = s->count("docs", {});
  REQUIRE(n.ok());
  CHECK(*n == 50);
}

TEST_CASE("a commit larger than the flush threshold leaves nothing for the next open to replay, even after a crash") {
  fresh_store s;
  detail::store_access::of(*s).flush_after_bytes = 1 << 20;  // 64 MiB in use; 1 MiB here
  std::vector<document> many;
  for (int i = 0; i < 2000; ++i) many.push_back(doc("{\"_id\":" + std::to_string(i) + ",\"pad\":\"" + std::string(1000, 'y') + "\"}"));
  REQUIRE(s->insert_many("docs", std::move(many)).ok());
  crash_into_copy(s);
  std::uintmax_t log_bytes = 0;
  for (const auto& e : fs::directory_iterator(s.path)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log" && name[0] >= '0' && name[0] <= '9') {
      log_bytes += fs::file_size(e.path());
    }
  }
  CHECK(log_bytes < (64u << 10));  // the 2 MB batch is in table files, not in the log
  s.reopen();
  auto n = s->count("docs", {});
  REQUIRE(n.ok());
  CHECK(*n == 2000);
}

TEST_CASE("a write-ahead log cut inside its last record still opens, without that write") {
  fresh_store s;
  for (int i = 0; i < 20; ++i) REQUIRE(s->insert("docs", doc("{\"_id\":" + std::to_string(i) + "}")).ok());
  crash_into_copy(s);
  fs::path wal = newest_wal(s.path);
  REQUIRE_FALSE(wal.empty());
  fs::resize_file(wal, fs::file_size(wal) - 3);
  s.reopen();
  auto n = s->count("docs", {});
  REQUIRE(n.ok());
  CHECK(*n == 19);
}
