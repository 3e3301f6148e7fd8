// import_jsonl: atomic batches, blank lines, per-line errors with line numbers, progress,
// resuming, bounded reading of regular files only (line_reader).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "engine/store/line_reader.hpp"

#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

namespace {

std::string write_file(const temp_dir& dir, std::string_view name, std::string_view text) {
  std::string path = dir.sub(name);
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

// The error of importing `text` (as file `name`) that must fail.
std::string import_error(fresh_store& s, std::string_view name, std::string_view text, std::uint64_t batch) {
  auto r = s->import_jsonl("items", write_file(s.dir, name, text), batch);
  REQUIRE_FALSE(r.ok());
  return r.error().message;
}

}  // namespace

TEST_CASE("import_jsonl inserts every line in batches and skips blank lines") {
  fresh_store s;
  std::string file = write_file(s.dir, "in.jsonl",
                                "{\"_id\":1,\"a\":\"x\"}\n\n{\"_id\":2}\r\n   \n{\"_id\":3,\"d\":{\"$date\":\"2024-01-02T00:00:00Z\"}}\n"
                                "{\"_id\":4}\n{\"_id\":5}");
  auto r = s->import_jsonl("items", file, 2);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->imported == 5);
  CHECK(r->batches == 3);
  CHECK(r->lines == 7);
  auto n = s->count("items", {});
  REQUIRE(n.ok());
  CHECK(*n == 5);
  CHECK(find_all(*s, "items", find_options{doc(R"({"_id":3})")}) ==
        "{\"_id\":3,\"d\":{\"$date\":\"2024-01-02T00:00:00.000Z\"}}\n");
}

TEST_CASE("a bad line fails its batch and the import stops, naming lines and what was committed") {
  fresh_store s;
  std::string file = write_file(s.dir, "bad.jsonl",
                                "{\"_id\":1}\n{\"_id\":2}\n{\"_id\":3}\n{\"_id\":4,}\n[1]\n{\"_id\":6}\n{\"_id\":7}\n");
  auto r = s->import_jsonl("items", file, 3);
  REQUIRE_FALSE(r.ok());
  const std::string& m = r.error().message;
  CHECK(m.rfind("batch 2 (lines 4–6) was not imported: line 4: ", 0) == 0);
  CHECK(m.find("; line 5: document must be an object") != std::string::npos);
  CHECK(m.find(". 3 documents in 1 batch were imported before it") != std::string::npos);
  CHECK(find_all(*s, "items") == "{\"_id\":1}\n{\"_id\":2}\n{\"_id\":3}\n");
}

TEST_CASE("a duplicate _id fails its batch with the line number and writes nothing of it") {
  fresh_store s;
  REQUIRE(s->insert("items", doc(R"({"_id":2})")).ok());
  const std::string before = dump_text(*s);
  const std::size_t log_before = oplog_size(*s);
  std::string file = write_file(s.dir, "dup.jsonl", "{\"_id\":1}\n{\"_id\":2}\n{\"_id\":9}\n{\"_id\":9}\n");
  auto r = s->import_jsonl("items", file, 0);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message ==
        "batch 1 (lines 1–4) was not imported: line 2: duplicate _id 2 in collection `items`; line 4: duplicate "
        "_id 9 in collection `items`. 0 documents in 0 batches were imported before it");
  CHECK(dump_text(*s) == before);
  CHECK(oplog_size(*s) == log_before);
}

TEST_CASE("duplicates are found below, at and above the collection's last stored _id, across batches") {
  // The duplicate check reads the store only for keys up to the collection's last stored key;
  // every position relative to it must still be checked.
  fresh_store s;
  REQUIRE(s->insert("items", doc(R"({"_id":1})")).ok());
  REQUIRE(s->insert("items", doc(R"({"_id":5})")).ok());
  std::string ok_file = write_file(s.dir, "ok.jsonl", "{\"_id\":3}\n{\"_id\":7}\n{\"_id\":8}\n{\"_id\":0}\n");
  auto ok = s->import_jsonl("items", ok_file, 2);
  REQUIRE(ok.ok());
  CHECK(ok->imported == 4);
  for (const char* line : {"{\"_id\":1}", "{\"_id\":5}", "{\"_id\":8}", "{\"_id\":3.0}"}) {
    CAPTURE(line);
    auto r = s->import_jsonl("items", write_file(s.dir, "dup.jsonl", std::string("{\"_id\":9}\n") + line + "\n"), 0);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("line 2: duplicate _id") != std::string::npos);
  }
  const std::string later_file = write_file(s.dir, "later.jsonl", "{\"_id\":20}\n{\"_id\":21}\n{\"_id\":20}\n");
  auto later = s->import_jsonl("items", later_file, 2);
  REQUIRE_FALSE(later.ok());
  CHECK(later.error().message.rfind("batch 2 (lines 3–3) was not imported: line 3: duplicate _id 20", 0) == 0);
  CHECK(find_all(*s, "items") ==
        "{\"_id\":0}\n{\"_id\":1}\n{\"_id\":3}\n{\"_id\":5}\n{\"_id\":7}\n{\"_id\":8}\n{\"_id\":20}\n{\"_id\":21}\n");
}

TEST_CASE("import_jsonl refuses a missing file, a directory and a huge batchSize") {
  fresh_store s;
  auto missing = s->import_jsonl("items", s.dir.sub("nope.jsonl"), 10);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.rfind("cannot open `", 0) == 0);
  auto dir = s->import_jsonl("items", s.dir.path().string(), 10);
  REQUIRE_FALSE(dir.ok());
  auto big = s->import_jsonl("items", write_file(s.dir, "x.jsonl", "{}\n"), 1000000);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message == "batchSize 1000000 is too large (at most 100000)");
  CHECK_FALSE(s->has_collection("items"));
}

TEST_CASE("import_jsonl reports increasing progress in bytes of the file") {
  fresh_store s;
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "{\"_id\":" + std::to_string(i) + "}\n";
  std::string file = write_file(s.dir, "many.jsonl", text);
  std::vector<std::uint64_t> seen;
  scan_control control;
  control.progress = [&](std::uint64_t done, std::uint64_t total) {
    CHECK(total == text.size());
    seen.push_back(done);
  };
  auto r = s->import_jsonl("items", file, 300, control);
  REQUIRE(r.ok());
  CHECK(r->batches == 4);
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.back() == text.size());
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] >= seen[i - 1]);
}

TEST_CASE("an import that stops after committed batches says how far it got and the line to resume from") {
  fresh_store s;
  CHECK(import_error(s, "stop.jsonl", "{\"_id\":1}\n{\"_id\":2}\n\n{\"_id\":3}\n{\"_id\":4,}\n{\"_id\":5}\n", 3) ==
        "batch 2 (lines 5–6) was not imported: line 5: invalid JSON at byte 9: syntax error. 3 documents in 1 batch "
        "were imported before it (lines 1–4); they stay. To resume, import from line 5 (on the command line: "
        "`omgdb import … --from-line 5`): importing the whole file again fails on the committed _ids");
  std::string fixed = write_file(s.dir, "stop.jsonl", "{\"_id\":1}\n{\"_id\":2}\n\n{\"_id\":3}\n{\"_id\":4}\n{\"_id\":5}\n");
  auto again = s->import_jsonl("items", fixed, 3, {}, 5);
  REQUIRE_MESSAGE(again.ok(), (again.ok() ? "" : again.error().message));
  CHECK(again->imported == 2);
  CHECK(again->lines == 6);
  CHECK(find_all(*s, "items") == "{\"_id\":1}\n{\"_id\":2}\n{\"_id\":3}\n{\"_id\":4}\n{\"_id\":5}\n");
}

TEST_CASE("a line resumed past is named by its line in the file") {
  fresh_store s;
  std::string file = write_file(s.dir, "r.jsonl", "{\"_id\":1}\n{\"_id\":2}\nnope\n");
  auto r = s->import_jsonl("items", file, 10, {}, 2);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.rfind("batch 1 (lines 2–3) was not imported: line 3: ", 0) == 0);
  CHECK_FALSE(s->has_collection("items"));
}

TEST_CASE("a UTF-8 byte order mark at the start of the file is skipped") {
  fresh_store s;
  std::string file = write_file(s.dir, "bom.jsonl", "\xEF\xBB\xBF{\"_id\":1}\n{\"_id\":2}\n");
  auto r = s->import_jsonl("items", file, 10);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->imported == 2);
  // Only the file's first bytes may be a byte order mark.
  CHECK(import_error(s, "bom2.jsonl", "{\"_id\":3}\n\xEF\xBB\xBF{\"_id\":4}\n", 10).find("line 2: ") != std::string::npos);
}

TEST_CASE("invalid UTF-8 in a line is reported as invalid UTF-8 with its line and byte offset") {
  fresh_store s;
  CHECK(import_error(s, "utf.jsonl", "{\"_id\":1}\n{\"_id\":2,\"s\":\"ab\xC3\x28\"}\n{\"_id\":3,\"s\":\"\xED\xA0\x80\"}\n", 10) ==
        "batch 1 (lines 1–3) was not imported: line 2: invalid UTF-8 at byte 16 of the line (0xc3); line 3: invalid "
        "UTF-8 at byte 14 of the line (0xed). 0 documents in 0 batches were imported before it");
}

TEST_CASE("import_jsonl refuses a FIFO, a device and a directory without blocking") {
  fresh_store s;
  std::string fifo = s.dir.sub("pipe.jsonl");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Should the import block on the FIFO, a writer unblocks it after 3 s (the test then fails).
  std::thread unblock([&] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  });
  auto start = std::chrono::steady_clock::now();
  auto r = s->import_jsonl("items", fifo, 10);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  unblock.join();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message ==
        "`" + fifo + "` is a FIFO (named pipe), not a regular file: import_jsonl reads regular files only");
  auto dev = s->import_jsonl("items", "/dev/zero", 10);
  REQUIRE_FALSE(dev.ok());
  CHECK(dev.error().message == "`/dev/zero` is a character device, not a regular file: import_jsonl reads regular files only");
  auto dir = s->import_jsonl("items", s.dir.path().string(), 10);
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().message == "`" + s.dir.path().string() + "` is a directory, not a JSON Lines file");
  CHECK_FALSE(s->has_collection("items"));
}

TEST_CASE("a line past the limit is refused while reading, without holding it") {
  temp_dir dir;
  std::string text(10000, 'x');
  text += "\n{\"a\":1}\n" + std::string(3000, 'y');
  std::string file = write_file(dir, "long.jsonl", text);
  auto reader = line_reader::open(file, 1024, nullptr);
  REQUIRE(reader.ok());
  std::string line;
  auto got = reader->next(line);
  REQUIRE(got.ok());
  CHECK(*got == line_reader::got::too_long);
  CHECK(line.empty());
  CHECK(line.capacity() < 4096);  // never grew toward the 10,000 bytes of the line
  got = reader->next(line);
  REQUIRE(got.ok());
  CHECK(*got == line_reader::got::line);
  CHECK(line == "{\"a\":1}");
  CHECK(*reader->next(line) == line_reader::got::too_long);
  CHECK(*reader->next(line) == line_reader::got::end);
  CHECK(reader->bytes_read() == text.size());
}

TEST_CASE("a long line of a sparse file is refused with bounded memory, and cancellation is seen while reading") {
  fresh_store s;
  std::string file = s.dir.sub("zeros.jsonl");
  {
    std::ofstream out(file, std::ios::binary);
  }
  std::filesystem::resize_file(file, 64u << 20);  // one 64 MiB line of NUL bytes
  struct rusage before {};
  ::getrusage(RUSAGE_SELF, &before);
  auto r = s->import_jsonl("items", file, 10);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("line 1: longer than 16842752 bytes") != std::string::npos);
  struct rusage after {};
  ::getrusage(RUSAGE_SELF, &after);
  // KiB: less than the 64 MiB line. AddressSanitizer's shadow memory and quarantine add
  // about a third to what the reader touches, so its build gets a looser bound that is still
  // below the line's size.
#if defined(__SANITIZE_ADDRESS__)
  constexpr long k_max_growth_kib = 60 * 1024;
#else
  constexpr long k_max_growth_kib = 40 * 1024;
#endif
  CHECK(after.ru_maxrss - before.ru_maxrss < k_max_growth_kib);

  std::atomic<bool> cancelled{true};
  scan_control control;
  control.cancelled = &cancelled;
  auto c = s->import_jsonl("items", file, 10, control);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message == "cancelled");
}

TEST_CASE("import_jsonl reports progress at most every 200 ms, and always at the end") {
  fresh_store s;
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "{\"_id\":" + std::to_string(i) + "}\n";
  std::string file = write_file(s.dir, "rate.jsonl", text);
  std::size_t calls = 0;
  std::uint64_t last = 0;
  scan_control control;
  control.progress = [&](std::uint64_t done, std::uint64_t) {
    ++calls;
    last = done;
  };
  auto start = std::chrono::steady_clock::now();
  auto r = s->import_jsonl("items", file, 1000, control);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(r.ok());
  CHECK(last == text.size());
  CHECK(calls <= static_cast<std::size_t>(2 + ms / 200));
}
