// omgdb engine — Markdown documents: sections, frontmatter, and the stored document shape
// (docs/markdown.md).
//
// A Markdown file is stored as one document:
//   {_id: "dir/file.md", title, frontmatter?: {…typed YAML…}, text: "<the whole source>",
//    _sections: [{id, level, title, path, parent, headingStart, bodyStart, bodyEnd, hash,
//                 tokens}, …], _markdown: {version: 1, hash, bytes}}
// `_markdown` marks a document imported as Markdown; the two Markdown tools refuse others.
//
// Sections: one per heading that is a direct child of the document (headings inside code
// fences, block quotes and list items are not sections), in source order, plus the text
// before the first heading as the section with id "". A section's body runs from the end of
// its heading line(s) to the start of the next heading of any level (so a parent's body
// excludes its subsections), or to the end of the text. Offsets are bytes into `text`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::markdown {

inline constexpr std::string_view k_text_field = "text";
inline constexpr std::string_view k_marker_field = "_markdown";
inline constexpr std::string_view k_sections_field = "_sections";

struct section {
  std::string id;                 // slug path ("intro/setup"), explicit {#id}, "-1"… on duplicates
  int level = 0;                  // 1..6; 0 for the preamble (id "")
  std::string title;              // the heading's text without markup or {#id}
  std::vector<std::string> path;  // titles from the top-level ancestor down to this one
  std::optional<std::string> parent;  // the enclosing section's id (none for top level)
  std::uint64_t heading_start = 0;    // first byte of the heading line(s)
  std::uint64_t body_start = 0;       // just after the heading line(s) (their newline included)
  std::uint64_t body_end = 0;         // the next heading's first byte, or the end of the text
  std::string hash;                   // FNV-1a 64 of bytes [heading_start, body_end), 16 hex digits
  std::uint64_t tokens = 0;           // estimate_tokens of the same bytes
};

// The frontmatter block at the start of a text: "---" on the first line up to a line "---"
// or "..."; `end` is the first byte after the closing line (0 when there is none).
struct frontmatter_block {
  bool present = false;
  std::uint64_t yaml_start = 0, yaml_end = 0;  // the YAML between the delimiter lines
  std::uint64_t end = 0;
};
frontmatter_block find_frontmatter(std::string_view text);

// The bounds of one Markdown parse (cmark-gfm), checked before it starts (docs/limits.md):
// the text's size, and two costs that cmark-gfm 0.29 pays quadratically per paragraph —
// the sum over paragraphs of (count of `[`)², and of (count of `<?` and `<![CDATA[`) × the
// paragraph's bytes. The parse itself charges its memory to the call's budget and stops
// when the call is cancelled (markdown_parse.cpp).
inline constexpr std::size_t k_max_markdown_bytes = std::size_t{16} << 20;
inline constexpr std::uint64_t k_max_bracket_work = std::uint64_t{1} << 27;
inline constexpr std::uint64_t k_max_html_scan_work = std::uint64_t{1} << 26;
status check_parse_bounds(std::string_view text);

// The sections of `text` (the whole source, frontmatter included: it is skipped). Bounded:
// at most k_max_sections, else an error; the bounds above; the call's budget and flag.
inline constexpr std::size_t k_max_sections = 20000;
result<std::vector<section>> parse_sections(std::string_view text);

// GitHub-style slug: ASCII letters lower-cased, digits, '-' and '_' kept, spaces become '-',
// other ASCII punctuation dropped, bytes >= 0x80 kept (UTF-8 letters).
std::string slugify(std::string_view title);
// FNV-1a 64 as 16 lower-case hex digits.
std::string content_hash(std::string_view bytes);
// Whether `text` holds a heading that would be a section (used to refuse section bodies
// that would split the section).
// Errors: the parse's bounds (check_parse_bounds), the call's budget and flag.
result<bool> has_section_heading(std::string_view text);

// --- frontmatter YAML (frontmatter.cpp) ---
// Bounds (docs/limits.md): the YAML text, and the values it makes, aliases counted as the
// values they repeat (an alias is a copy: "billion laughs" stops at this count). What the
// parse builds is charged to the call's budget (common/call_budget.hpp) as it is built.
inline constexpr std::size_t k_max_frontmatter_bytes = std::size_t{4} << 20;
inline constexpr std::uint64_t k_max_frontmatter_values = 250000;
// YAML 1.2 core schema: plain scalars become null / bool / int64 / double, YYYY-MM-DD and
// ISO 8601 date-times become dates (UTC; a date alone is midnight UTC), quoted scalars and
// anything else strings; mappings keep key order. The top level must be a mapping.
result<document> parse_frontmatter(std::string_view yaml);
// Block-style YAML for `doc`, keys in order, strings quoted when a plain scalar would read
// back as something else. Values other than null, bool, numbers, strings, dates, arrays and
// documents are an error naming the key.
result<std::string> emit_frontmatter(const document& doc);
// RFC 7386 JSON merge patch of `target` by `patch` (null deletes, documents merge
// recursively, anything else replaces); existing keys keep their place, new ones are added
// at the end.
void merge_patch(document& target, const document& patch);

// --- the stored document (markdown_doc.cpp) ---
// The document for a Markdown file: `_id` first.
// `front`, when given, is the text's frontmatter already parsed (what patch_frontmatter made
// and read back): it is not parsed again.
result<document> build_document(const value& id, std::string text, std::string_view fallback_title,
                                const std::optional<document>* front = nullptr);
// Whether `doc` was imported as Markdown (it has `_markdown` and a string `text`).
bool is_markdown(const document& doc);
// The `_sections` value of `sections`, and back (for readers of stored documents).
array sections_value(const std::vector<section>& sections);
result<std::vector<section>> sections_of(const document& doc);

// The section edits (pure: text in, text out).
// The text with section `id`'s body replaced by `body` (a trailing newline is added when a
// heading follows and `body` does not end with one). Errors: unknown id (naming the nearest
// ids), a body holding a heading, or a result whose sections differ from the original's.
result<std::string> set_section(std::string_view text, std::string_view id, std::string_view body);
// The text with its frontmatter merged with `patch` and the keys of `remove` deleted; the
// bytes after the frontmatter are unchanged. An empty result removes the block.
// `front_out`, when given, receives the new block's values (nullopt: no block).
result<std::string> patch_frontmatter(std::string_view text, const document& patch,
                                      const std::vector<std::string>& remove,
                                      std::optional<document>* front_out = nullptr);
// Up to `n` ids of `sections` nearest to `id` (edit distance, then order).
std::vector<std::string> nearest_ids(const std::vector<section>& sections, std::string_view id, std::size_t n);

}  // namespace omgdb::engine::markdown
