// Fuzz target 11: the Markdown edits and frontmatter (engine/markdown/), as markdown_set_section
// and markdown_patch_frontmatter run them, without a store (the store part is one overwrite).
//
// Input: a first line naming the section to set (its id, possibly ""), then the document's
// text and the new body separated by a line "@@@" (no separator: the body is empty), and,
// after a second "@@@" line, a merge patch as JSON. Checks:
//  - parse_sections answers or refuses with a precise error (never a crash, a stack overflow,
//    a time or memory bomb: the run is one call under a 64 MiB call budget, so with
//    `-rss_limit_mb=512 -timeout=5` a bomb that escapes the bounds is a finding); sections are
//    in order and inside the text;
//  - set_section, when it succeeds, keeps the section ids and the frontmatter bytes, and a
//    second identical call changes nothing;
//  - patch_frontmatter, when it succeeds, keeps every byte after the frontmatter, reads back
//    as the patched values, and a second identical call changes nothing;
//  - build_document answers (the frontmatter YAML, aliases and all, is bounded).
#include "common/call_budget.hpp"
#include "engine/markdown/markdown.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"

using namespace omgdb;
using namespace omgdb::engine;
using namespace omgdb::engine::markdown;

namespace {

constexpr const char* k_name = "markdown_edit";
constexpr std::uint64_t k_call_bytes = std::uint64_t{64} << 20;

std::vector<std::string> ids_of(const std::vector<section>& s) {
  std::vector<std::string> out;
  for (const auto& x : s) out.push_back(x.id);
  return out;
}

std::string_view frontmatter_bytes(std::string_view text) {
  const frontmatter_block fm = find_frontmatter(text);
  return fm.present ? text.substr(0, fm.end) : std::string_view();
}

}  // namespace

OMGDB_FUZZ_TARGET(markdown_edit) {
  const std::string_view input = fuzz::text_of(data, size);
  call_budget budget(k_call_bytes);
  budget_scope scope(&budget);

  const auto nl = input.find('\n');
  const std::string id(input.substr(0, nl == std::string_view::npos ? input.size() : nl));
  std::string_view rest = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  auto cut = [&](std::string_view& from) {
    const auto at = from.find("\n@@@\n");
    std::string_view head = from.substr(0, at);
    from = at == std::string_view::npos ? std::string_view() : from.substr(at + 5);
    return head;
  };
  const std::string text(cut(rest));
  const std::string body(cut(rest));
  const std::optional<document> patch = fuzz::document_of(rest);

  auto sections = parse_sections(text);
  if (sections) {
    std::uint64_t at = 0;
    for (const auto& s : *sections) {
      OMGDB_FUZZ_CHECK(k_name, s.heading_start <= s.body_start && s.body_start <= s.body_end && s.body_end <= text.size(),
                       "section `" + s.id + "` has offsets outside the text");
      OMGDB_FUZZ_CHECK(k_name, s.heading_start >= at, "sections out of order at `" + s.id + "`");
      at = s.heading_start;
    }
  } else {
    OMGDB_FUZZ_CHECK(k_name, sections.error().kind != failure_kind::internal, sections.error().message);
  }

  auto next = set_section(text, id, body);
  if (next && sections) {
    auto after = parse_sections(*next);
    OMGDB_FUZZ_CHECK(k_name, after.ok(), "the edited text does not parse: " + (after ? "" : after.error().message));
    OMGDB_FUZZ_CHECK(k_name, ids_of(*after) == ids_of(*sections), "set_section changed the section ids");
    OMGDB_FUZZ_CHECK(k_name, frontmatter_bytes(*next) == frontmatter_bytes(text), "set_section changed the frontmatter");
    auto again = set_section(*next, id, body);
    OMGDB_FUZZ_CHECK(k_name, again.ok() && *again == *next, "set_section is not idempotent for `" + id + "`");
  }

  if (patch) {
    auto patched = patch_frontmatter(text, *patch, {});
    if (patched) {
      const frontmatter_block before = find_frontmatter(text), after = find_frontmatter(*patched);
      const std::string_view rest_before = std::string_view(text).substr(before.present ? before.end : 0);
      const std::string_view rest_after = std::string_view(*patched).substr(after.present ? after.end : 0);
      OMGDB_FUZZ_CHECK(k_name, rest_before == rest_after, "patch_frontmatter changed the body");
      auto again = patch_frontmatter(*patched, *patch, {});
      OMGDB_FUZZ_CHECK(k_name, again.ok() && *again == *patched, "patch_frontmatter is not idempotent");
    }
  }

  auto built = build_document(value("f.md"), text, "f");
  if (!built) OMGDB_FUZZ_CHECK(k_name, built.error().kind != failure_kind::internal, built.error().message);
  return 0;
}
