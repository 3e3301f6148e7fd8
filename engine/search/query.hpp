// omgdb search — the query syntax (docs/search.md "Query syntax"), parsed here into an FTS5
// MATCH expression that is always valid FTS5: every term and phrase is emitted as a quoted
// FTS5 string, every field as its column, so no FTS5 syntax error can reach the agent.
//
//   query  := or
//   or     := and ( ["OR"] and )*          juxtaposition is OR: `open file` = open OR file
//   and    := unary ( ("AND" | "NOT") unary )*     `a NOT b`: a without b
//   unary  := "(" or ")" | field ":" ( atom | "(" or ")" ) | atom
//   atom   := '"' phrase '"' | word | word "*"    (prefix)
//
// AND, OR and NOT are operators only in upper case. A word without a letter or digit (`-`,
// `?`) is skipped, and so is `()` (as in `open()`). `word:` is a field only when `word` names a field of the index and something
// follows the colon; otherwise the colon is punctuation ("error: not found", "Note:see").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace omgdb::engine::search {

inline constexpr std::size_t k_max_query_bytes = 4096;
inline constexpr std::size_t k_max_query_terms = 64;
inline constexpr std::size_t k_max_query_depth = 32;  // parentheses inside parentheses

struct parsed_query {
  std::string match;               // the FTS5 MATCH expression
  std::vector<std::string> terms;  // every term and phrase as written (for explain)
  std::string plain;               // the terms and phrases joined by spaces (for embedding)
};

// `fields` are the index's paths, in column order (column i is `f<i>`). Errors give the
// 0-based byte position and what was expected there.
result<parsed_query> parse_query(const std::string& query, const std::vector<std::string>& fields);

}  // namespace omgdb::engine::search
