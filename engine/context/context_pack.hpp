// omgdb engine — context packs: the chunks of a collection's documents that best answer a
// query, packed under a token budget, every quote cited by byte range (docs/context-packs.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "engine/context/ranker.hpp"
#include "engine/context/tokens.hpp"
#include "engine/store/store.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::context {

// The bounds (docs/context-packs.md).
inline constexpr std::uint64_t k_max_candidates = 100000;          // documents matching the filter
inline constexpr std::uint64_t k_max_candidate_bytes = 256u << 20;  // their text, summed
inline constexpr std::size_t k_window_bytes = 1200;       // paragraph windows: whole paragraphs up to this
inline constexpr std::size_t k_section_split_bytes = 4000;  // a longer section is cut into windows
inline constexpr std::size_t k_max_chunks_per_document = 3;
inline constexpr std::uint64_t k_max_budget = 100000;
inline constexpr std::size_t k_max_misses = 64;  // packing stops after this many chunks in a row did not fit

// The Markdown sections of a text, as chunks see them.
struct section_span {
  std::string id;
  std::vector<std::string> path;
  std::uint64_t start = 0, end = 0;
};
using section_spans = std::shared_ptr<const std::vector<section_span>>;

// One piece of a document's text that can be ranked and quoted. The chunks of one document
// share its sections (a heading path is never copied into each chunk).
struct chunk {
  std::size_t doc = 0;                    // index into the candidates
  std::size_t ordinal = 0;                // position among the document's chunks
  std::uint64_t start = 0, end = 0;       // bytes of the field's text; trailing whitespace excluded
  section_spans sections;                 // the document's sections, when it is Markdown
  std::size_t section = 0;                // the one it lies in: (*sections)[section]
  const section_span* span() const { return sections ? &(*sections)[section] : nullptr; }
};

// The chunks of one text: its Markdown sections when given, windows of whole paragraphs
// otherwise; empty and whitespace-only pieces are left out. Sections come from the text
// itself (markdown::parse_sections), never from a stored `_sections` (derived data, which a
// writer can forge).
std::vector<chunk> chunk_text(std::string_view text, const section_spans& sections, std::size_t doc);

struct pack_request {
  std::string collection;
  std::string field;  // a dotted path to a string
  std::string query;
  std::uint64_t budget = 1000;
  document filter;
};

struct citation {
  std::size_t n = 0;
  value id;
  std::optional<std::string> section_id;
  std::vector<std::string> heading_path;
  std::uint64_t byte_start = 0, byte_end = 0;
  std::uint64_t seq = 0;  // the op-log seq of the state read: the bytes are the document's as of it
  double score = 0;
};

struct pack {
  std::string text;  // Markdown: "[n] _id § heading path" then the quote, for each citation
  std::vector<citation> citations;
  std::string counter;  // "o200k" or "estimate"
  std::uint64_t tokens = 0;  // of `text`, by `counter`; never above the budget
  std::uint64_t budget = 0;
  std::string ranking;  // "bm25"
  std::uint64_t candidates = 0, chunks = 0, matched_chunks = 0;
  std::string note;  // e.g. why the o200k file was not used
};

result<pack> context_pack(store& s, const pack_request& request, const token_counter& counter,
                          const ranker& rank, const scan_control& control = {});

}  // namespace omgdb::engine::context
