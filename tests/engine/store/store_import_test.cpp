// import_jsonl: atomic batches, blank lines, per-line errors with line numbers, progress.
#include <fstream>

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
