// omgdb engine — the sections of a Markdown text, from cmark-gfm's source positions.
#include <cmark-gfm.h>

#include <map>
#include <memory>

#include "common/fnv1a.hpp"
#include "engine/context/tokens.hpp"
#include "engine/markdown/markdown.hpp"

namespace omgdb::engine::markdown {
namespace {

struct node_deleter {
  void operator()(cmark_node* n) const noexcept { cmark_node_free(n); }
};

// Byte offset of the start of each line (1-based line n starts at starts[n - 1]).
std::vector<std::uint64_t> line_starts(std::string_view text) {
  std::vector<std::uint64_t> out{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') out.push_back(i + 1);
  }
  return out;
}

std::uint64_t line_end(const std::vector<std::uint64_t>& starts, std::size_t line, std::size_t size) {
  return line < starts.size() ? starts[line] : size;  // the start of the next line
}

// The text of a heading's inline children (text, code, …), without markup.
void plain_text(cmark_node* n, std::string& out) {
  for (cmark_node* c = cmark_node_first_child(n); c != nullptr; c = cmark_node_next(c)) {
    switch (cmark_node_get_type(c)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE:
      case CMARK_NODE_HTML_INLINE:
        if (const char* lit = cmark_node_get_literal(c)) out += lit;
        break;
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        out += ' ';
        break;
      default:
        plain_text(c, out);
    }
  }
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// A trailing `{#id}` attribute: the id, and the title without it.
std::optional<std::string> explicit_id(std::string& title) {
  if (title.empty() || title.back() != '}') return std::nullopt;
  const auto open = title.rfind("{#");
  if (open == std::string::npos) return std::nullopt;
  std::string id = title.substr(open + 2, title.size() - open - 3);
  if (id.empty()) return std::nullopt;
  for (char ch : id) {
    if (ch == ' ' || ch == '}' || ch == '{') return std::nullopt;
  }
  title = trim(std::string_view(title).substr(0, open));
  return id;
}

// Whether the line at `start` is an ATX heading line (up to three spaces, then '#').
bool is_atx(std::string_view text, std::uint64_t start) {
  std::size_t i = start, spaces = 0;
  while (i < text.size() && text[i] == ' ' && spaces < 3) ++i, ++spaces;
  return i < text.size() && text[i] == '#';
}

// Whether `line` (without its newline) is a setext underline: up to three spaces, a run of
// '=' or '-', trailing spaces.
bool is_underline(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && i < 3 && line[i] == ' ') ++i;
  if (i >= line.size() || (line[i] != '=' && line[i] != '-')) return false;
  const char ch = line[i];
  while (i < line.size() && line[i] == ch) ++i;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  return i == line.size();
}

struct heading {
  int level;
  std::string title;
  std::optional<std::string> explicit_id;
  std::uint64_t start, end;  // the heading lines, end after the last newline
};

// The top-level headings of `body` (which starts at byte `base` of the whole text).
result<std::vector<heading>> headings_of(std::string_view body, std::uint64_t base) {
  std::unique_ptr<cmark_node, node_deleter> doc(
      cmark_parse_document(body.data(), body.size(), CMARK_OPT_SOURCEPOS));
  if (!doc) return make_error("the Markdown parser failed on this text", failure_kind::internal);
  const auto starts = line_starts(body);
  std::vector<heading> out;
  for (cmark_node* n = cmark_node_first_child(doc.get()); n != nullptr; n = cmark_node_next(n)) {
    if (cmark_node_get_type(n) != CMARK_NODE_HEADING) continue;
    if (out.size() >= k_max_sections) {
      return make_error("the text has more than " + std::to_string(k_max_sections) + " headings",
                        failure_kind::limit_exceeded);
    }
    heading h;
    h.level = cmark_node_get_heading_level(n);
    plain_text(n, h.title);
    h.title = trim(h.title);
    h.explicit_id = explicit_id(h.title);
    const auto first = static_cast<std::size_t>(cmark_node_get_start_line(n));
    h.start = starts[first - 1];
    if (is_atx(body, h.start)) {
      h.end = line_end(starts, first, body.size());
    } else {
      // Setext: the heading ends after its underline (cmark's end line may be one too far).
      h.end = body.size();
      for (std::size_t line = first + 1; line <= starts.size(); ++line) {
        const std::uint64_t ls = starts[line - 1];
        const std::uint64_t le = line_end(starts, line, body.size());
        std::string_view text = body.substr(ls, le - ls);
        if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
        if (is_underline(text)) {
          h.end = le;
          break;
        }
      }
    }
    h.start += base;
    h.end += base;
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

frontmatter_block find_frontmatter(std::string_view text) {
  frontmatter_block b;
  auto first_line_is = [&](std::size_t at, std::string_view marker) -> std::size_t {
    // Returns the offset after the line when the line at `at` is exactly `marker`.
    if (text.substr(at, marker.size()) != marker) return 0;
    std::size_t i = at + marker.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] == '\r') ++i;
    if (i == text.size()) return i;
    return text[i] == '\n' ? i + 1 : 0;
  };
  const std::size_t open = first_line_is(0, "---");
  if (open == 0 || open == text.size()) return b;
  for (std::size_t at = open; at < text.size();) {
    std::size_t after = first_line_is(at, "---");
    if (after == 0) after = first_line_is(at, "...");
    if (after != 0) {
      b.present = true;
      b.yaml_start = open;
      b.yaml_end = at;
      b.end = after;
      return b;
    }
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return b;  // no closing line: not frontmatter
}

result<std::vector<section>> parse_sections(std::string_view text) {
  const frontmatter_block fm = find_frontmatter(text);
  const std::uint64_t base = fm.present ? fm.end : 0;
  auto hs = headings_of(text.substr(base), base);
  if (!hs) return std::move(hs).error();

  std::vector<section> out;
  section pre;
  pre.heading_start = pre.body_start = base;
  pre.body_end = hs->empty() ? text.size() : hs->front().start;
  out.push_back(std::move(pre));

  std::map<std::string, int> used{{"", 0}};
  std::vector<std::size_t> stack;  // indexes into `out` of the open ancestors
  for (std::size_t i = 0; i < hs->size(); ++i) {
    heading& h = (*hs)[i];
    while (!stack.empty() && out[stack.back()].level >= h.level) stack.pop_back();
    section s;
    s.level = h.level;
    s.title = h.title;
    if (!stack.empty()) {
      const section& p = out[stack.back()];
      s.parent = p.id;
      s.path = p.path;
    }
    s.path.push_back(h.title);
    std::string id;
    if (h.explicit_id) {
      id = *h.explicit_id;
    } else {
      std::string slug = slugify(h.title);
      if (slug.empty()) slug = "section";
      id = s.parent ? *s.parent + "/" + slug : slug;
    }
    if (auto [it, fresh] = used.emplace(id, 0); !fresh) {
      std::string candidate;
      do {
        candidate = id + "-" + std::to_string(++it->second);
      } while (used.count(candidate) != 0);
      used.emplace(candidate, 0);
      id = std::move(candidate);
    }
    s.id = std::move(id);
    s.heading_start = h.start;
    s.body_start = h.end;
    s.body_end = i + 1 < hs->size() ? (*hs)[i + 1].start : text.size();
    out.push_back(std::move(s));
    stack.push_back(out.size() - 1);
  }
  for (section& s : out) {
    const std::string_view bytes = text.substr(s.heading_start, s.body_end - s.heading_start);
    s.hash = content_hash(bytes);
    s.tokens = context::estimate_tokens(bytes);
  }
  return out;
}

bool has_section_heading(std::string_view text) {
  auto hs = headings_of(text, 0);
  return !hs || !hs->empty();
}

std::string slugify(std::string_view title) {
  std::string out;
  for (unsigned char ch : title) {
    if (ch >= 0x80 || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || ch == '_' || ch == '-') {
      out += static_cast<char>(ch);
    } else if (ch >= 'A' && ch <= 'Z') {
      out += static_cast<char>(ch - 'A' + 'a');
    } else if (ch == ' ') {
      out += '-';
    }
  }
  return out;
}

std::string content_hash(std::string_view bytes) {
  return fnv1a64_hex(bytes);
}

}  // namespace omgdb::engine::markdown
