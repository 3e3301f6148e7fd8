// omgdb engine — cutting a text into context-pack chunks: Markdown sections, or windows of
// whole paragraphs.
#include "engine/context/context_pack.hpp"

namespace omgdb::engine::context {
namespace {

bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// [start, end) without leading and trailing whitespace; empty when all blank.
std::pair<std::uint64_t, std::uint64_t> trimmed(std::string_view text, std::uint64_t start, std::uint64_t end) {
  while (start < end && space(text[start])) ++start;
  while (end > start && space(text[end - 1])) --end;
  return {start, end};
}

// A cut point at or before `limit` (> from): the end of a sentence, else of a word, else limit.
std::uint64_t cut_before(std::string_view text, std::uint64_t from, std::uint64_t limit) {
  for (std::uint64_t i = limit; i > from + 1; --i) {
    const char c = text[i - 1];
    if ((c == '.' || c == '!' || c == '?') && (i == text.size() || space(text[i]))) return i;
  }
  for (std::uint64_t i = limit; i > from + 1; --i) {
    if (space(text[i - 1])) return i;
  }
  // Inside one long word: keep UTF-8 characters whole.
  std::uint64_t i = limit;
  while (i > from + 1 && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
  return i;
}

// Windows of whole paragraphs (split at blank lines) of [start, end), each up to
// k_window_bytes; a paragraph longer than that is cut at sentence ends.
void windows(std::string_view text, std::uint64_t start, std::uint64_t end, std::vector<std::pair<std::uint64_t, std::uint64_t>>& out) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> paragraphs;
  std::uint64_t p = start;
  for (std::uint64_t i = start; i < end; ++i) {
    if (text[i] == '\n' && i + 1 < end) {
      std::uint64_t j = i + 1;
      while (j < end && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
      if (j < end && text[j] == '\n') {  // a blank line
        paragraphs.emplace_back(p, i + 1);
        p = j + 1;
        i = j;
      }
    }
  }
  if (p < end) paragraphs.emplace_back(p, end);
  std::uint64_t w_start = 0, w_end = 0;
  bool open = false;
  for (auto [a, b] : paragraphs) {
    auto [ta, tb] = trimmed(text, a, b);
    if (ta >= tb) continue;
    if (open && tb - w_start <= k_window_bytes) {
      w_end = tb;
      continue;
    }
    if (open) out.emplace_back(w_start, w_end);
    open = false;
    while (tb - ta > k_window_bytes) {
      const std::uint64_t cut = cut_before(text, ta, ta + k_window_bytes);
      auto piece = trimmed(text, ta, cut);
      if (piece.first < piece.second) out.push_back(piece);
      ta = trimmed(text, cut, tb).first;
    }
    if (ta < tb) {
      w_start = ta;
      w_end = tb;
      open = true;
    }
  }
  if (open) out.emplace_back(w_start, w_end);
}

}  // namespace

std::vector<chunk> chunk_text(std::string_view text, const section_spans& sections, std::size_t doc) {
  std::vector<chunk> out;
  auto add = [&](std::uint64_t a, std::uint64_t b, std::optional<std::size_t> s) {
    auto [ta, tb] = trimmed(text, a, b);
    if (ta >= tb) return;
    chunk c;
    c.doc = doc;
    c.ordinal = out.size();
    c.start = ta;
    c.end = tb;
    if (s) {
      c.sections = sections;
      c.section = *s;
    }
    out.push_back(std::move(c));
  };
  if (sections == nullptr) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> w;
    windows(text, 0, text.size(), w);
    for (auto [a, b] : w) add(a, b, std::nullopt);
    return out;
  }
  for (std::size_t i = 0; i < sections->size(); ++i) {
    const section_span& s = (*sections)[i];
    if (s.end > text.size() || s.start > s.end) continue;  // stale offsets: not quoted
    if (s.end - s.start <= k_section_split_bytes) {
      add(s.start, s.end, i);
      continue;
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> w;
    windows(text, s.start, s.end, w);
    for (auto [a, b] : w) add(a, b, i);
  }
  return out;
}

}  // namespace omgdb::engine::context
