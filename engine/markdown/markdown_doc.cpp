// omgdb engine — the stored shape of a Markdown document and the two edits on its text.
#include <algorithm>
#include <unordered_set>

#include "common/edit_distance.hpp"
#include "engine/markdown/markdown.hpp"

namespace omgdb::engine::markdown {
namespace {

std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }

std::optional<std::uint64_t> u64_of(const document& d, std::string_view name) {
  const value* v = find_field(d, name);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64() && v->as_int64() >= 0) return static_cast<std::uint64_t>(v->as_int64());
  if (v->is_int32() && v->as_int32() >= 0) return static_cast<std::uint64_t>(v->as_int32());
  return std::nullopt;
}

std::vector<std::string> ids_of(const std::vector<section>& s) {
  std::vector<std::string> out;
  for (const section& x : s) out.push_back(x.id);
  return out;
}

std::string quoted_list(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) {
    if (!out.empty()) out += ", ";
    out += "`" + id + "`";
  }
  return out;
}

}  // namespace

array sections_value(const std::vector<section>& sections) {
  array out;
  out.reserve(sections.size());
  for (const section& s : sections) {
    array path;
    for (const auto& t : s.path) path.emplace_back(t);
    document d{{"id", value(s.id)},
               {"level", value(static_cast<std::int32_t>(s.level))},
               {"title", value(s.title)},
               {"path", value(std::move(path))},
               {"parent", s.parent ? value(*s.parent) : value()},
               {"headingStart", value(i64(s.heading_start))},
               {"bodyStart", value(i64(s.body_start))},
               {"bodyEnd", value(i64(s.body_end))},
               {"hash", value(s.hash)},
               {"tokens", value(i64(s.tokens))}};
    out.emplace_back(std::move(d));
  }
  return out;
}

result<std::vector<section>> sections_of(const document& doc) {
  const value* v = find_field(doc, k_sections_field);
  if (v == nullptr || !v->is_array()) return make_error("the document has no `_sections` array");
  std::vector<section> out;
  for (const value& item : v->as_array()) {
    if (!item.is_document()) return make_error("a `_sections` entry is not an object");
    const document& d = item.as_document();
    section s;
    const value* id = find_field(d, "id");
    auto hs = u64_of(d, "headingStart"), bs = u64_of(d, "bodyStart"), be = u64_of(d, "bodyEnd");
    if (id == nullptr || !id->is_string() || !hs || !bs || !be || *hs > *bs || *bs > *be) {
      return make_error("a `_sections` entry lacks a string `id` or ordered byte offsets");
    }
    s.id = id->as_string();
    s.heading_start = *hs;
    s.body_start = *bs;
    s.body_end = *be;
    if (const value* t = find_field(d, "title"); t && t->is_string()) s.title = t->as_string();
    if (const value* p = find_field(d, "path"); p && p->is_array()) {
      for (const value& x : p->as_array()) {
        if (x.is_string()) s.path.push_back(x.as_string());
      }
    }
    if (const value* p = find_field(d, "parent"); p && p->is_string()) s.parent = p->as_string();
    if (auto l = u64_of(d, "level")) s.level = static_cast<int>(*l);
    if (auto t = u64_of(d, "tokens")) s.tokens = *t;
    if (const value* h = find_field(d, "hash"); h && h->is_string()) s.hash = h->as_string();
    out.push_back(std::move(s));
  }
  return out;
}

bool is_markdown(const document& doc) {
  const value* m = find_field(doc, k_marker_field);
  const value* t = find_field(doc, k_text_field);
  return m != nullptr && m->is_document() && t != nullptr && t->is_string();
}

result<document> build_document(const value& id, std::string text, std::string_view fallback_title,
                                const std::optional<document>* known_front) {
  auto sections = parse_sections(text);
  if (!sections) return std::move(sections).error();
  const frontmatter_block fm = find_frontmatter(text);
  std::optional<document> front;
  if (known_front != nullptr && known_front->has_value() == fm.present) {
    front = *known_front;
  } else if (fm.present) {
    auto parsed = parse_frontmatter(std::string_view(text).substr(fm.yaml_start, fm.yaml_end - fm.yaml_start));
    if (!parsed) return std::move(parsed).error();
    front = std::move(*parsed);
  }
  std::string title(fallback_title);
  if (front) {
    if (const value* t = find_field(*front, "title"); t && t->is_string()) title = t->as_string();
  }
  if (title == fallback_title && sections->size() > 1) title = (*sections)[1].title;
  document d;
  d.push_back({"_id", id});
  d.push_back({"title", value(title)});
  if (front) d.push_back({"frontmatter", value(std::move(*front))});
  const std::string hash = content_hash(text);
  const auto bytes = static_cast<std::int64_t>(text.size());
  d.push_back({std::string(k_text_field), value(std::move(text))});
  d.push_back({std::string(k_sections_field), value(sections_value(*sections))});
  d.push_back({std::string(k_marker_field),
               value(document{{"version", value(std::int32_t{1})}, {"hash", value(hash)}, {"bytes", value(bytes)}})});
  return d;
}

std::vector<std::string> nearest_ids(const std::vector<section>& sections, std::string_view id, std::size_t n) {
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // distance, order
  for (std::size_t i = 0; i < sections.size(); ++i) scored.emplace_back(edit_distance(sections[i].id, id), i);
  std::stable_sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && out.size() < n; ++i) out.push_back(sections[scored[i].second].id);
  return out;
}

result<std::string> set_section(std::string_view text, std::string_view id, std::string_view body) {
  auto sections = parse_sections(text);
  if (!sections) return std::move(sections).error();
  auto it = std::find_if(sections->begin(), sections->end(), [&](const section& s) { return s.id == id; });
  if (it == sections->end()) {
    return make_error("no section `" + std::string(id) + "` in this document; nearest ids: " +
                          quoted_list(nearest_ids(*sections, id, 5)),
                      failure_kind::not_found);
  }
  auto heading = has_section_heading(body);
  if (!heading) return std::move(heading).error();
  if (*heading) {
    return make_error("`text` holds a Markdown heading; a section body cannot hold headings (they would start "
                      "new sections): set each section on its own");
  }
  std::string next(text.substr(0, it->body_start));
  // A heading that follows needs the body to end its last line.
  const bool follows = it->body_end < text.size();
  const bool heading_line_open = it->body_start > 0 && text[it->body_start - 1] != '\n' && !body.empty();
  if (heading_line_open) next += '\n';
  next += body;
  if (follows && !body.empty() && body.back() != '\n') next += '\n';
  next += text.substr(it->body_end);
  // A section edit never touches the frontmatter: a body that would open (or close) a block —
  // a first line `---` up to a line `---` or `...` — is refused, whichever line closes it.
  const frontmatter_block fm_before = find_frontmatter(text), fm_after = find_frontmatter(next);
  if (fm_before.present != fm_after.present ||
      (fm_before.present && text.substr(0, fm_before.end) != std::string_view(next).substr(0, fm_after.end))) {
    return make_error("`text` would change the document's YAML frontmatter (a first line `---` up to a line `---` or "
                      "`...` is frontmatter); change it with markdown_patch_frontmatter; nothing was written");
  }
  auto after = parse_sections(next);
  if (!after) return std::move(after).error();
  if (ids_of(*after) != ids_of(*sections)) {
    return make_error("`text` would change the document's sections (an unclosed code fence, or a line that turns "
                      "the next heading into text, such as a paragraph line before a setext heading); nothing "
                      "was written");
  }
  return next;
}

result<std::string> patch_frontmatter(std::string_view text, const document& patch,
                                      const std::vector<std::string>& remove, std::optional<document>* front_out) {
  const frontmatter_block fm = find_frontmatter(text);
  document front;
  if (fm.present) {
    auto parsed = parse_frontmatter(text.substr(fm.yaml_start, fm.yaml_end - fm.yaml_start));
    if (!parsed) return std::move(parsed).error();
    front = std::move(*parsed);
  }
  const document before = front;
  merge_patch(front, patch);
  if (!remove.empty()) {
    const std::unordered_set<std::string> gone(remove.begin(), remove.end());
    front.erase(std::remove_if(front.begin(), front.end(), [&](const field& f) { return gone.count(f.name) != 0; }),
                front.end());
  }
  if (fm.present && compare(front, before) == 0) {  // nothing changes
    if (front_out) *front_out = std::move(front);
    return std::string(text);
  }
  const std::string_view rest = text.substr(fm.present ? fm.end : 0);
  if (front.empty()) {
    if (front_out) front_out->reset();
    return std::string(rest);
  }
  auto yaml = emit_frontmatter(front);
  if (!yaml) return std::move(yaml).error();
  std::string out = "---\n" + *yaml + "---\n";
  out += rest;
  // The new block must read back as the same values.
  auto check = parse_frontmatter(std::string_view(out).substr(4, yaml->size()));
  if (!check || compare(*check, front) != 0) {
    return make_error("the patched frontmatter would not read back as the same values; nothing was written",
                      failure_kind::internal);
  }
  if (front_out) *front_out = std::move(*check);
  return out;
}

}  // namespace omgdb::engine::markdown
