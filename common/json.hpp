// omgdb common — strict JSON in, compact JSON out (Boost.JSON underneath).
//
// Boost.JSON alone turns integers beyond 2^64 into doubles, reads 1e400 as Infinity (and then
// prints the invalid token `Infinity`), and keeps the last of duplicate keys. omgdb refuses
// those inputs instead of guessing, so every parse goes through `parse` here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "common/result.hpp"

namespace omgdb::json {

struct parse_limits {
  std::size_t max_depth = 128;  // objects/arrays nested deeper are a syntax error
};

struct parsed {
  boost::json::value value;
  // The first strictness violation, or "" when the text is clean: an integer outside the
  // int64 range, a number that overflows to infinity, a duplicate object key. The value is
  // still built (offending numbers as doubles, the last duplicate wins) so that a caller
  // can recover a JSON-RPC id before refusing the request.
  std::string violation;
  // How many objects enclose that violation: 1 for a key or a number of the top-level object
  // itself (a JSON-RPC envelope's own fields), 0 when clean or outside any object.
  std::size_t violation_depth = 0;
};

// Errors: invalid JSON (with the byte offset), invalid UTF-8, nesting over max_depth,
// trailing content after the value.
result<parsed> parse(std::string_view text, const parse_limits& limits = {});

// `parse`, with any violation turned into an error.
result<boost::json::value> parse_strict(std::string_view text, const parse_limits& limits = {});

// Compact serialisation. Doubles print as the shortest text that reads back exactly, with
// ".0" added to integral values (1.0, not 1E0); non-finite doubles print as null.
std::string serialize(const boost::json::value& v);
void append(std::string& out, const boost::json::value& v);
void append_quoted(std::string& out, std::string_view s);  // "…" with JSON escapes
void append_double(std::string& out, double d);

}  // namespace omgdb::json
