// Fuzz target 10: the search query syntax (engine/search/query.cpp) and the FTS5 MATCH
// expression it produces, run by the real search (search::manager::run) over a real store.
//
// Input: the query text, as an agent's `search` call carries it. The store (on tmpfs, see
// scratch_dir.hpp) holds a few documents under two search indexes of the same fields, one
// stemmed (english) and one not (language none); the input's hash picks the index. Checks:
//  - a query the parser refuses gives `invalid_argument` with a "query syntax" message; a
//    query it accepts runs: nothing may come back from SQLite/FTS5 (a raw "fts5: syntax
//    error", an io or internal failure) and nothing may crash;
//  - the second path: the same query said another way must find the same documents —
//    `(q)`, `(q) AND (q)`, `(q) OR (q)` find what q finds, and `omgdb NOT (q)` (every document
//    says "omgdb") finds exactly the others. These run through the same parser into different
//    FTS5 expressions, so a grouping, precedence or quoting mistake shows as a difference.
#include <algorithm>
#include <set>

#include "common/log.hpp"
#include "engine/search/query.hpp"
#include "engine/search/search.hpp"
#include "engine/store/store.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"
#include "fuzz/scratch_dir.hpp"

using namespace omgdb;
using namespace omgdb::engine;
namespace es = omgdb::engine::search;

namespace {

constexpr const char* k_name = "search_query";

const std::vector<std::string> k_fields = {"title", "body", "meta.tags"};

constexpr const char* k_docs[] = {
    R"({"_id":1,"title":"Opening files","body":"omgdb: open(2) opens the file named by pathname","meta":{"tags":["io","posix"]}})",
    R"({"_id":2,"title":"Sockets and ports","body":"omgdb socket creates an endpoint; bind names it","meta":{"tags":["net"]}})",
    R"({"_id":3,"title":"Café au lait","body":"omgdb — a drink, not a system call: café, CAFE, naïve","meta":{"tags":[]}})",
    R"({"_id":4,"title":"Reading","body":"omgdb read from a file descriptor; reads bytes, reading is running","meta":{"tags":"io"}})",
    R"({"_id":5,"title":"AND OR NOT","body":"omgdb operators \"quoted\" words and * stars (parens) title:body","meta":{"tags":["syntax","and"]}})",
    R"({"_id":6,"title":"日本語のテキスト","body":"omgdb 東京 Straße ΣΊΣΥΦΟΣ émigré","meta":{"tags":["unicode"]}})",
    R"({"_id":7,"title":"Connect connection connected","body":"omgdb connecting connects; std::move Note:see error: not found","meta":{"tags":["stem"]}})",
    R"({"_id":8,"body":"omgdb the quick brown fox jumps over the lazy dog","meta":{"tags":["pangram","fox"]}})",
};

struct fixture {
  fuzz::scratch_dir dir{"search"};
  std::shared_ptr<store> db;
  std::shared_ptr<es::manager> search;
  std::set<std::string> all;

  fixture() {
    log::set_threshold(log::level::off);
    const std::string path = (dir.path() / "s.omgdb").string();
    if (!store::create(path).ok()) std::abort();
    auto s = store::open(path);
    if (!s) std::abort();
    db = *s;
    std::vector<document> docs;
    for (const char* d : k_docs) docs.push_back(*fuzz::document_of(d));
    if (!db->insert_many("pages", std::move(docs)).ok()) std::abort();
    search = es::manager::of(*db);
    for (const char* spec : {R"({"collection":"pages","name":"en","fields":[{"path":"title","weight":3},"body","meta.tags"]})",
                             R"({"collection":"pages","name":"plain","fields":["title","body","meta.tags"],"language":"none"})"}) {
      if (!search->define(*fuzz::document_of(spec)).ok()) std::abort();
    }
    for (int i = 1; i <= static_cast<int>(std::size(k_docs)); ++i) all.insert(std::to_string(i));
  }
};

fixture& the_fixture() {
  static fixture f;
  return f;
}

std::string ids_text(const std::set<std::string>& s) {
  std::string out = "[";
  for (const auto& id : s) out += (out.size() > 1 ? "," : "") + id;
  return out + "]";
}

// The ids the query finds, or the failure. Every failure must be a syntax error.
std::optional<std::set<std::string>> found(fixture& f, const std::string& index, const std::string& q, bool decorate) {
  es::search_request r;
  r.collection = "pages";
  r.index = index;
  r.query = q;
  r.limit = 100;
  r.highlight = decorate;
  r.explain = decorate;
  r.timeout_ms = 60000;
  auto out = f.search->run(r, nullptr);
  if (!out) {
    const auto& e = out.error();
    OMGDB_FUZZ_CHECK(k_name, e.kind == failure_kind::invalid_argument && e.message.rfind("query syntax: ", 0) == 0,
                     std::string(to_string(e.kind)) + ": " + e.message + "\n  query: " + q);
    return std::nullopt;
  }
  std::set<std::string> ids;
  for (const auto& h : out->hits) {
    OMGDB_FUZZ_CHECK(k_name, h.id.is_int32() || h.id.is_int64(), "a hit without a known _id for " + q);
    ids.insert(std::to_string(h.id.is_int32() ? h.id.as_int32() : h.id.as_int64()));
  }
  return ids;
}

void same(fixture& f, const std::string& index, const std::string& q, const std::string& variant,
          const std::set<std::string>& want) {
  auto got = found(f, index, variant, false);
  OMGDB_FUZZ_CHECK(k_name, got.has_value(), "`" + q + "` runs but `" + variant + "` is refused");
  OMGDB_FUZZ_CHECK(k_name, *got == want,
                   "`" + variant + "` finds " + ids_text(*got) + " but `" + q + "` finds " + ids_text(want) +
                       " (index " + index + ")");
}

}  // namespace

#if defined(OMGDB_LIBFUZZER)
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  the_fixture();
  return 0;
}
#endif

OMGDB_FUZZ_TARGET(search_query) {
  fixture& f = the_fixture();
  const std::string q(fuzz::text_of(data, size));
  const std::string index = fuzz::seed_of(q) & 1 ? "plain" : "en";

  auto parsed = es::parse_query(q, k_fields);
  auto hits = found(f, index, q, true);
  OMGDB_FUZZ_CHECK(k_name, parsed.ok() == hits.has_value(), "the parser and the search disagree on " + q);
  if (!hits) return 0;
  OMGDB_FUZZ_CHECK(k_name, std::includes(f.all.begin(), f.all.end(), hits->begin(), hits->end()), q);

  const std::size_t terms = parsed->terms.size();
  if (q.size() + 2 <= es::k_max_query_bytes) same(f, index, q, "(" + q + ")", *hits);
  if (2 * q.size() + 9 <= es::k_max_query_bytes && 2 * terms <= es::k_max_query_terms) {
    same(f, index, q, "(" + q + ") AND (" + q + ")", *hits);
    same(f, index, q, "(" + q + ") OR (" + q + ")", *hits);
  }
  if (q.size() + 12 <= es::k_max_query_bytes && terms + 1 <= es::k_max_query_terms) {
    std::set<std::string> rest;
    std::set_difference(f.all.begin(), f.all.end(), hits->begin(), hits->end(), std::inserter(rest, rest.end()));
    same(f, index, q, "omgdb NOT (" + q + ")", rest);
  }
  return 0;
}
