// omgdb sql — result rows written straight into JSON text.
//
// The adapters convert each client-library value once, directly into the text of the rows
// (no boost::json value per cell, no second serialisation). Every writer prints exactly what
// omgdb::json::serialize prints for the value the matching function of sql/exec_support.hpp
// returns (put_text ≡ text_value, put_int_text ≡ int_from_text, …); the unit tests check that
// equivalence on the edge cases and on random input.
//
// Internal to sql/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sql/adapter.hpp"

namespace omgdb::sql::detail {

void put_null(std::string& out);
void put_bool(std::string& out, bool v);
// Integers within ±2^53 as numbers, others as decimal strings.
void put_int(std::string& out, std::int64_t v);
void put_uint(std::string& out, std::uint64_t v);
// Decimal integer text as put_int/put_uint; anything else as put_text.
void put_int_text(std::string& out, std::string_view text);
// A finite double as a number (shortest exact text, "1.0" for integral values); NaN and
// ±Infinity as the strings "NaN", "Infinity", "-Infinity".
void put_double(std::string& out, double v);
// Text a double parses from entirely and finitely as put_double; anything else as put_text.
void put_double_text(std::string& out, std::string_view text);
// put_double_text for text known to be the SHORTEST decimal that reads back as the same double
// (PostgreSQL 12+ float output, and any decimal of at most 15 significant digits): a plain
// fixed-notation number is copied as written — it is what put_double_text would print — and
// anything else goes through put_double_text.
void put_shortest_double_text(std::string& out, std::string_view text);
// A JSON string: invalid UTF-8 bytes become U+FFFD, then JSON escapes (", \, control bytes).
void put_text(std::string& out, std::string_view text);
// {"$binary":{"base64":"…","subType":"00"}}
void put_binary(std::string& out, const unsigned char* data, std::size_t size);

// Writes rows into exec_outcome::rows_text under max_rows and max_bytes (the JSON size of the
// whole rows array, brackets included). A row that would pass max_bytes is removed again
// (results are cut at a whole row): `truncated`. Any row not returned: `rows_more_available`.
//
//   if (!w.begin_row()) stop-or-drain;
//   for each value: if (i) w.text().push_back(','); put_…(w.text(), …);
//   if (!w.end_row()) stop-or-drain;
class row_writer {
 public:
  row_writer(exec_outcome& out, const exec_options& opts);
  // Opens a row; false once the budget is spent (nothing is written then).
  bool begin_row();
  std::string& text() noexcept { return out_.rows_text; }
  // Closes the row opened by begin_row; false (and the row removed) when it passed max_bytes.
  bool end_row();
  bool full() const noexcept { return full_; }
  // A row known to exceed max_bytes before it is even read (a value longer than the budget):
  // ends the result as `truncated` without writing the row (a row already opened with
  // begin_row is removed again).
  void oversized() noexcept;

 private:
  exec_outcome& out_;
  std::size_t max_rows_;
  std::size_t max_bytes_;
  std::size_t row_start_ = 0;
  bool in_row_ = false;
  bool full_ = false;
};

}  // namespace omgdb::sql::detail
