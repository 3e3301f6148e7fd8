// Fuzz target 12: context_pack (engine/context/) over a real store, with Markdown documents
// whose stored `_sections` may be forged.
//
// Input: line 1 the query, line 2 the token budget (digits; 1..100000 after clamping), then
// documents separated by lines "@@@": each is a Markdown text, stored as an imported Markdown
// document, with — when the part starts with "{" — its first line a JSON object whose fields
// replace the stored ones (so `_sections`, `_markdown` and `text` can be forged). One run is
// one call under a 64 MiB call budget, so with `-rss_limit_mb=512 -timeout=5` a memory or time
// bomb is a finding. Checks: the pack answers or refuses with a precise error; its tokens
// never exceed the budget; every citation quotes bytes inside the stored text, and its
// heading path is one the text's own headings make (never a forged one: at most 6 levels).
#include "common/call_budget.hpp"
#include "common/log.hpp"
#include "engine/context/context_pack.hpp"
#include "engine/markdown/markdown.hpp"
#include "engine/store/store.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"
#include "fuzz/scratch_dir.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {

constexpr const char* k_name = "context_pack";
constexpr std::uint64_t k_call_bytes = std::uint64_t{64} << 20;
constexpr std::size_t k_max_docs = 16;

struct fixture {
  fuzz::scratch_dir dir{"context"};
  std::shared_ptr<store> db;
  std::unique_ptr<context::ranker> rank = context::make_bm25();
  std::shared_ptr<const context::token_counter> counter = context::estimate_counter();

  fixture() {
    log::set_threshold(log::level::off);
    const std::string path = (dir.path() / "s.omgdb").string();
    if (!store::create(path).ok()) std::abort();
    auto s = store::open(path);
    if (!s) std::abort();
    db = *s;
  }
};

fixture& the_fixture() {
  static fixture f;
  return f;
}

}  // namespace

#if defined(OMGDB_LIBFUZZER)
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  the_fixture();
  return 0;
}
#endif

OMGDB_FUZZ_TARGET(context_pack) {
  fixture& f = the_fixture();
  const std::string_view input = fuzz::text_of(data, size);
  const auto lines = fuzz::lines_of(input, 3);
  if (lines.size() < 2) return 0;
  const std::string query(lines[0]);
  std::uint64_t budget_tokens = 0;
  for (char c : lines[1]) {
    if (c >= '0' && c <= '9' && budget_tokens < 1000000) budget_tokens = budget_tokens * 10 + static_cast<unsigned>(c - '0');
  }
  budget_tokens = std::clamp<std::uint64_t>(budget_tokens, 1, context::k_max_budget);
  std::string_view rest = lines.size() > 2 ? input.substr(static_cast<std::size_t>(lines[2].data() - input.data())) : std::string_view();

  (void)f.db->drop_collection("c");
  std::vector<document> docs;
  while (!rest.empty() && docs.size() < k_max_docs) {
    const auto at = rest.find("\n@@@\n");
    std::string_view part = rest.substr(0, at);
    rest = at == std::string_view::npos ? std::string_view() : rest.substr(at + 5);
    std::optional<document> forged;
    if (!part.empty() && part.front() == '{') {
      const auto nl = part.find('\n');
      forged = fuzz::document_of(part.substr(0, nl));
      part = nl == std::string_view::npos ? std::string_view() : part.substr(nl + 1);
    }
    document d{{"_id", value(static_cast<std::int64_t>(docs.size()))},
               {"text", value(std::string(part))},
               {"_sections", value(array{})},
               {"_markdown", value(document{{"version", value(std::int32_t{1})}})}};
    if (forged) {
      for (auto& fld : *forged) {
        if (fld.name == "_id") continue;
        bool replaced = false;
        for (auto& mine : d) {
          if (mine.name == fld.name) {
            mine.val = fld.val;
            replaced = true;
          }
        }
        if (!replaced) d.push_back(fld);
      }
    }
    docs.push_back(std::move(d));
  }
  if (docs.empty()) return 0;
  if (!f.db->insert_many("c", docs).ok()) return 0;

  call_budget budget(k_call_bytes);
  budget_scope scope(&budget);
  context::pack_request req{"c", "text", query, budget_tokens, {}};
  scan_control control;
  control.budget = &budget;
  auto p = context::context_pack(*f.db, req, *f.counter, *f.rank, control);
  if (!p) {
    OMGDB_FUZZ_CHECK(k_name, p.error().kind != failure_kind::internal, p.error().message);
    return 0;
  }
  OMGDB_FUZZ_CHECK(k_name, p->tokens <= budget_tokens, "the pack is over its budget");
  for (const auto& c : p->citations) {
    const auto i = static_cast<std::size_t>(c.id.is_int64() ? c.id.as_int64() : c.id.as_int32());
    OMGDB_FUZZ_CHECK(k_name, i < docs.size(), "a citation of an unknown document");
    const value* t = find_field(docs[i], "text");
    OMGDB_FUZZ_CHECK(k_name, t && t->is_string() && c.byte_start <= c.byte_end && c.byte_end <= t->as_string().size(),
                     "a citation outside the stored text");
    OMGDB_FUZZ_CHECK(k_name, c.heading_path.size() <= 6, "a heading path deeper than Markdown's six levels");
  }
  return 0;
}
