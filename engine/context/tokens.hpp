// omgdb engine — token counting for context packs (docs/context-packs.md, "Token counting").
//
// Two counters: `o200k` (exact: the o200k_base byte-pair encoding of OpenAI's tiktoken, from
// a rank file `o200k_base.tiktoken`, its pre-tokenizer regex run by PCRE2) and `estimate`
// (no file: a conservative estimate that over-counts, see estimate_tokens). Nothing is ever
// downloaded: the rank file is one the user points at (`[context] o200k_file` in the config,
// or OMGDB_O200K_FILE), e.g. the one npm's `gpt-tokenizer` ships in data/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace omgdb::engine::context {

// ceil((ASCII bytes + 2 × other bytes) / 3) + 1 (0 for no text): at least one token per 3 ASCII bytes and
// 2/3 of a token per byte of a multi-byte character. o200k averages 3.5 to 4.5 bytes per
// token on English prose and Markdown, about 3 on code, and at least one byte per token
// (a byte is the smallest token), so this over-counts all but byte-per-token text such as
// long runs of rare punctuation or emoji. Tests check it over-counts this repository's docs.
std::uint64_t estimate_tokens(std::string_view text) noexcept;

class token_counter {
 public:
  virtual ~token_counter() = default;
  virtual std::uint64_t count(std::string_view text) const = 0;
  virtual std::string_view name() const noexcept = 0;  // "o200k" or "estimate"
  // The longest prefix of `text` that fits `budget` tokens, cut at a byte that starts a
  // UTF-8 character (binary search over count()).
  std::size_t fit(std::string_view text, std::uint64_t budget) const;
};

// The estimate counter (always available).
std::shared_ptr<const token_counter> estimate_counter();
// The exact o200k counter from a rank file (base64 token, space, rank per line), loaded once
// per path and process. Errors name the file and line.
result<std::shared_ptr<const token_counter>> load_o200k(const std::string& file);

// The process's rank-file setting (the daemon sets it from the config at start; "" = unset,
// then OMGDB_O200K_FILE is read).
void set_o200k_file(std::string path);
// The counter a context pack uses: o200k when the rank file is set and loads, else the
// estimate. When the file is set but cannot be loaded, `problem` says why.
std::shared_ptr<const token_counter> default_counter(std::string* problem = nullptr);

}  // namespace omgdb::engine::context
