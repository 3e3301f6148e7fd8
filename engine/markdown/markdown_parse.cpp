// omgdb engine — the sections of a Markdown text, from cmark-gfm's source positions.
#include <cmark-gfm.h>

#include <algorithm>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "common/call_budget.hpp"
#include "common/fnv1a.hpp"
#include "engine/context/tokens.hpp"
#include "engine/markdown/markdown.hpp"

namespace omgdb::engine::markdown {
namespace {

struct node_deleter {
  void operator()(cmark_node* n) const noexcept { cmark_node_free(n); }
};

// --- the parse's memory, counted and escapable ---
// cmark has no cancel hook and aborts on a failed allocation, and its tree takes 30 to 130
// bytes per byte of text. So every parse runs in an arena: cmark allocates through these
// hooks, each allocation is charged to the call's budget (common/call_budget.hpp) and listed,
// and every few hundred allocations the call's cancellation flag is read. Past the budget or
// once told to stop, the hook longjmps out of cmark back to parse_in_arena, and the arena
// frees everything cmark held (cmark is C: no destructor is skipped; the parser is never
// touched again). The CPU-only quadratic cases allocate nothing and are refused before the
// parse (check_parse_bounds).
struct arena {
  struct alignas(16) header {
    header* prev;
    header* next;
    std::size_t size;
  };
  call_budget* budget = nullptr;
  header* head = nullptr;
  std::uint64_t held = 0;
  std::uint64_t calls = 0;
  std::jmp_buf escape;
  std::optional<failure> why;

  ~arena() {
    for (header* h = head; h != nullptr;) {
      header* next = h->next;
      std::free(h);
      h = next;
    }
    if (budget) budget->release(held);
  }
};
thread_local arena* t_arena = nullptr;

[[noreturn]] void escape(arena& a, failure f) {
  a.why = std::move(f);
  std::longjmp(a.escape, 1);
}

void charge(arena& a, std::size_t bytes) {
  if ((++a.calls & 255) == 0) {
    if (auto st = a.budget->check(); !st) escape(a, st.error());
  }
  if (auto st = a.budget->try_charge(bytes, "the Markdown parse"); !st) escape(a, st.error());
  a.held += bytes;
}

void link(arena& a, arena::header* h) {
  h->prev = nullptr;
  h->next = a.head;
  if (a.head) a.head->prev = h;
  a.head = h;
}

void unlink(arena& a, arena::header* h) {
  if (h->prev) h->prev->next = h->next;
  else a.head = h->next;
  if (h->next) h->next->prev = h->prev;
}

void* arena_calloc(std::size_t n, std::size_t size) {
  arena& a = *t_arena;
  if (size != 0 && n > (SIZE_MAX - sizeof(arena::header)) / size) escape(a, make_error("the Markdown parse overflowed", failure_kind::limit_exceeded));
  const std::size_t bytes = n * size;
  charge(a, bytes);
  auto* h = static_cast<arena::header*>(std::calloc(1, sizeof(arena::header) + bytes));
  if (h == nullptr) escape(a, make_error("out of memory parsing Markdown", failure_kind::limit_exceeded));
  h->size = bytes;
  link(a, h);
  return h + 1;
}

void arena_free(void* p) {
  if (p == nullptr) return;
  arena& a = *t_arena;
  auto* h = static_cast<arena::header*>(p) - 1;
  unlink(a, h);
  a.budget->release(h->size);
  a.held -= h->size < a.held ? h->size : a.held;
  std::free(h);
}

void* arena_realloc(void* p, std::size_t size) {
  if (p == nullptr) return arena_calloc(1, size);
  arena& a = *t_arena;
  auto* h = static_cast<arena::header*>(p) - 1;
  if (size > h->size) charge(a, size - h->size);
  unlink(a, h);
  auto* moved = static_cast<arena::header*>(std::realloc(h, sizeof(arena::header) + size));
  if (moved == nullptr) {
    link(a, h);
    escape(a, make_error("out of memory parsing Markdown", failure_kind::limit_exceeded));
  }
  if (size < moved->size) {
    a.budget->release(moved->size - size);
    a.held -= moved->size - size;
  }
  moved->size = size;
  link(a, moved);
  return moved + 1;
}

cmark_mem k_arena_mem{arena_calloc, arena_realloc, arena_free};

constexpr std::size_t k_feed_bytes = 64 << 10;

// The parse, fed in pieces with the cancellation read between them. nullptr: the arena's
// hook stopped it (a.why says why). No object with a destructor lives in this frame.
cmark_node* parse_in_arena(arena& a, const char* data, std::size_t size) {
  if (setjmp(a.escape) != 0) return nullptr;
  cmark_parser* parser = cmark_parser_new_with_mem(CMARK_OPT_SOURCEPOS, &k_arena_mem);
  for (std::size_t at = 0; at < size; at += k_feed_bytes) {
    if (a.budget->stop_requested()) escape(a, make_error("cancelled", failure_kind::cancelled));
    cmark_parser_feed(parser, data + at, size - at < k_feed_bytes ? size - at : k_feed_bytes);
  }
  cmark_node* doc = cmark_parser_finish(parser);
  cmark_parser_free(parser);
  return doc;
}

// Byte offset of the start of each line (1-based line n starts at starts[n - 1]). Lines end
// as cmark's do: "\n", "\r\n" or a lone "\r".
std::vector<std::uint64_t> line_starts(std::string_view text) {
  std::vector<std::uint64_t> out{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) out.push_back(i + 1);
  }
  return out;
}

std::uint64_t line_end(const std::vector<std::uint64_t>& starts, std::size_t line, std::size_t size) {
  return line < starts.size() ? starts[line] : size;  // the start of the next line
}

// The text of a heading's inline children (text, code, …), without markup. Iterative: a
// heading's inlines may nest as deep as its line is long.
void plain_text(cmark_node* n, std::string& out) {
  cmark_node* c = cmark_node_first_child(n);
  while (c != nullptr) {
    bool descend = false;
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
        descend = cmark_node_first_child(c) != nullptr;
    }
    if (descend) {
      c = cmark_node_first_child(c);
      continue;
    }
    while (c != nullptr && c != n && cmark_node_next(c) == nullptr) c = cmark_node_parent(c);
    c = (c == nullptr || c == n) ? nullptr : cmark_node_next(c);
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
  OMGDB_CHECK(check_parse_bounds(body));
  call_budget& budget = current_budget();
  const budget_mark transient(budget);
  const auto lines = static_cast<std::uint64_t>(std::count(body.begin(), body.end(), '\n') +
                                                std::count(body.begin(), body.end(), '\r')) + 1;
  OMGDB_CHECK(budget.try_charge(lines * sizeof(std::uint64_t), "the Markdown parse (line offsets)"));
  arena a;
  a.budget = &budget;
  t_arena = &a;
  struct unset {
    ~unset() { t_arena = nullptr; }
  } unset_arena;
  std::unique_ptr<cmark_node, node_deleter> doc(parse_in_arena(a, body.data(), body.size()));
  if (a.why) return std::move(*a.why);
  if (!doc) return make_error("the Markdown parser failed on this text", failure_kind::internal);
  const auto starts = line_starts(body);
  std::vector<heading> out;
  for (cmark_node* n = cmark_node_first_child(doc.get()); n != nullptr; n = cmark_node_next(n)) {
    if (cmark_node_get_type(n) != CMARK_NODE_HEADING) continue;
    if (out.size() >= k_max_sections) {
      return make_error("the text has more than " + std::to_string(k_max_sections) + " headings",
                        failure_kind::limit_exceeded);
    }
    if (out.size() % 256 == 0) OMGDB_CHECK(a.budget->check());
    heading h;
    h.level = cmark_node_get_heading_level(n);
    plain_text(n, h.title);
    h.title = trim(h.title);
    h.explicit_id = explicit_id(h.title);
    const auto first = static_cast<std::size_t>(cmark_node_get_start_line(n));
    if (first == 0 || first > starts.size()) {
      return make_error("the Markdown parser placed a heading on line " + std::to_string(first) + " of " +
                            std::to_string(starts.size()),
                        failure_kind::internal);
    }
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
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
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

// Whether the line at `at` starts a block that interrupts a paragraph: a bullet list item
// with content (`-`, `*`, `+`), an ordered one numbered 1, or an ATX heading — each indented
// at most three spaces (deeper, it may be a paragraph's lazy continuation).
bool starts_block(std::string_view text, std::uint64_t at) {
  std::uint64_t i = at;
  while (i < text.size() && i - at < 3 && text[i] == ' ') ++i;
  if (i >= text.size()) return false;
  auto content_after = [&](std::uint64_t j) {
    if (j >= text.size() || (text[j] != ' ' && text[j] != '\t')) return false;
    while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
    return j < text.size() && text[j] != '\n' && text[j] != '\r';
  };
  const char c = text[i];
  if (c == '-' || c == '*' || c == '+') return content_after(i + 1);
  if (c == '1' && i + 1 < text.size() && (text[i + 1] == '.' || text[i + 1] == ')')) return content_after(i + 2);
  if (c == '#') {
    std::uint64_t j = i;
    while (j < text.size() && text[j] == '#' && j - i < 7) ++j;
    return j - i <= 6 && (j == text.size() || text[j] == ' ' || text[j] == '\t' || text[j] == '\n');
  }
  return false;
}

status check_parse_bounds(std::string_view text) {
  if (text.size() > k_max_markdown_bytes) {
    return make_error("the Markdown text is " + byte_size_text(text.size()) + ", more than the " +
                          byte_size_text(k_max_markdown_bytes) + " omgdb parses",
                      failure_kind::limit_exceeded);
  }
  // cmark-gfm 0.29's quadratic cases, per paragraph (a paragraph never spans a blank line, so
  // the runs of non-blank lines bound them from above): link and image openers that stay open
  // ("![[]()" repeated: each link walks the openers before it), and raw-HTML openers `<?` and
  // `<![CDATA[` that are never closed (each scans to the end of its paragraph).
  std::uint64_t bracket_work = 0, html_work = 0;
  std::uint64_t block_start = 0, brackets = 0, html = 0;
  std::uint64_t block_line = 1, line = 1;
  bool blank = true;  // the current line so far
  auto end_block = [&](std::uint64_t end) -> status {
    bracket_work += brackets * brackets;
    html_work += html * (end - block_start);
    if (bracket_work > k_max_bracket_work) {
      return make_error("the Markdown text has too many unclosed `[` / `![` in the paragraph at line " +
                            std::to_string(block_line) + " (" + std::to_string(brackets) +
                            "; their cost, the sum over paragraphs of the square of their count, is bounded by " +
                            std::to_string(k_max_bracket_work) + ", which keeps the parse fast): split the paragraph",
                        failure_kind::limit_exceeded);
    }
    if (html_work > k_max_html_scan_work) {
      return make_error("the Markdown text has too many `<?` / `<![CDATA[` in the paragraph at line " +
                            std::to_string(block_line) + " (" + std::to_string(html) +
                            "; their count times the paragraph's bytes, summed over paragraphs, is bounded by " +
                            std::to_string(k_max_html_scan_work) + ", which keeps the parse fast): close them or "
                            "put them in a code block",
                        failure_kind::limit_exceeded);
    }
    brackets = html = 0;
    return {};
  };
  for (std::uint64_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i > block_start && text[i - 1] == '\n' && starts_block(text, i)) {
      // A line that always starts a new paragraph (a list item, an ATX heading): the
      // paragraph before it ends here.
      OMGDB_CHECK(end_block(i));
      block_start = i;
      block_line = line;
    }
    if (c == '\n') {
      if (blank) {
        OMGDB_CHECK(end_block(i));
        block_start = i + 1;
        block_line = line + 1;
      }
      ++line;
      blank = true;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\r') blank = false;
    if (c == '[') ++brackets;
    if (c == '<' && i + 1 < text.size() && (text[i + 1] == '?' || text.substr(i, 9) == "<![CDATA[")) ++html;
  }
  return end_block(text.size());
}

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

  // What the sections hold (each path repeats its ancestors' titles) is charged while they
  // are built.
  call_budget& budget = current_budget();
  const budget_mark transient(budget);
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
    std::uint64_t held = sizeof(section) + 2 * h.title.size();
    for (const auto& t : s.path) held += t.size() + sizeof(std::string);
    OMGDB_CHECK(budget.try_charge(held, "the Markdown sections"));
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

result<bool> has_section_heading(std::string_view text) {
  auto hs = headings_of(text, 0);
  if (!hs) return std::move(hs).error();
  return !hs->empty();
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
