// sql/json_text: rows written straight into JSON text print exactly what the JSON values of
// sql/exec_support serialise to, and the row writer keeps the row and byte budgets.
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "sql/exec_support.hpp"
#include "sql/json_text.hpp"

using namespace omgdb;
using namespace omgdb::sql::detail;

namespace {

template <class Put, class Arg>
std::string put(Put fn, Arg arg) {
  std::string out = "x";  // writers append; they never touch what is already there
  fn(out, arg);
  REQUIRE(out[0] == 'x');
  return out.substr(1);
}

std::string random_bytes(std::mt19937& rng, bool mostly_ascii) {
  std::uniform_int_distribution<int> len(0, 40), byte(0, 255), ascii(0x20, 0x7e), pick(0, 9);
  std::string s(static_cast<std::size_t>(len(rng)), '\0');
  for (auto& c : s) c = static_cast<char>(mostly_ascii && pick(rng) < 8 ? ascii(rng) : byte(rng));
  return s;
}

}  // namespace

TEST_CASE("text is escaped like the JSON serialiser and invalid UTF-8 becomes U+FFFD") {
  std::vector<std::string> cases = {"",
                                    "plain",
                                    "quote \" and backslash \\",
                                    std::string("nul \0 byte", 10),
                                    "\b\f\n\r\t\x01\x1f\x7f",
                                    "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",
                                    "\xC3",                  // truncated sequence
                                    "\xC0\xAF",              // overlong
                                    "\xED\xA0\x80",          // surrogate
                                    "\xF4\x90\x80\x80",      // beyond U+10FFFF
                                    "a\xFF" "b\xFE" "c"};
  for (const auto& s : cases) {
    CAPTURE(s);
    CHECK(put(put_text, s) == json::serialize(text_value(s)));
  }
  CHECK(put(put_text, std::string_view("a\xFFz")) == "\"a\xEF\xBF\xBDz\"");
  CHECK(put(put_text, std::string_view("\t\"")) == R"("\t\"")");
  std::mt19937 rng(20261130);
  for (int i = 0; i < 5000; ++i) {
    std::string s = random_bytes(rng, i % 2 == 0);
    CAPTURE(s);
    REQUIRE(put(put_text, s) == json::serialize(text_value(s)));
  }
}

TEST_CASE("integers are numbers within 2^53 and exact strings beyond, from values and from text") {
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{42}, (std::int64_t{1} << 53),
                         -(std::int64_t{1} << 53), (std::int64_t{1} << 53) + 1, -(std::int64_t{1} << 53) - 1,
                         std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    CAPTURE(v);
    CHECK(put(put_int, v) == json::serialize(exact_int(v)));
    CHECK(put(put_int_text, std::to_string(v)) == json::serialize(int_from_text(std::to_string(v))));
  }
  CHECK(put(put_int, std::int64_t{9007199254740993}) == R"("9007199254740993")");
  CHECK(put(put_uint, std::numeric_limits<std::uint64_t>::max()) == R"("18446744073709551615")");
  CHECK(put(put_uint, std::uint64_t{7}) == "7");
  for (std::string t : {"18446744073709551615", "18446744073709551616", "-0", "007", "+5", "1.5", "", "12a", " 1",
                        "0", "-", "-007", "999999999999999", "-999999999999999", "1000000000000000", "00", "1 "}) {
    CAPTURE(t);
    CHECK(put(put_int_text, t) == json::serialize(int_from_text(t)));
  }
  std::mt19937_64 rng(53);
  for (int i = 0; i < 3000; ++i) {
    auto v = static_cast<std::int64_t>(rng() >> (rng() % 64));
    std::string t = std::to_string(i % 2 ? -v : v);
    CAPTURE(t);
    REQUIRE(put(put_int_text, t) == json::serialize(int_from_text(t)));
  }
}

TEST_CASE("doubles print the shortest exact text; non-finite ones and unparsable text as strings") {
  for (double v : {0.0, -0.0, 1.0, 0.5, 1.0 / 7.0, 1e300, 5e-324, -2.5e-8, 123456789012345680.0,
                   std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    CAPTURE(v);
    CHECK(put(put_double, v) == json::serialize(double_value(v)));
  }
  CHECK(put(put_double, 1.0) == "1.0");
  CHECK(put(put_double, std::nan("")) == R"("NaN")");
  for (std::string t : {"0.14285714285714285", "1", "-0", "1e400", "NaN", "Infinity", "-Infinity", "1,5", "", "3.0"}) {
    CAPTURE(t);
    CHECK(put(put_double_text, t) == json::serialize(double_from_text(t)));
  }
}

TEST_CASE("shortest float text is copied only where the full conversion would print the same") {
  for (std::string t : {"0.5", "-0.5", "0.05", "0.0001", "1.5", "10.25", "-123.0625", "1.0", "1", "100", "1e-05",
                        "1.5e+20", "NaN", "Infinity", "-Infinity", "-0", "0", "0.30000000000000004",
                        "0.14285714285714285", "123456789012345.6", "00.5", ".5", "5.", "-", "", "1.2.3", "0.50"}) {
    CAPTURE(t);
    CHECK(put(put_shortest_double_text, t) == json::serialize(double_from_text(t)));
  }
  // Random doubles written in their shortest form, and random decimals of up to 15 digits.
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int i = 0; i < 20000; ++i) {
    double v = unit(rng) * std::pow(10.0, static_cast<int>(rng() % 30) - 10) * (i % 2 ? -1 : 1);
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    std::string t(buf, end);
    CAPTURE(t);
    REQUIRE(put(put_shortest_double_text, t) == json::serialize(double_from_text(t)));
    std::string d = std::to_string(rng() % 1000000) + "." + std::to_string(rng() % 1000000000);
    while (d.size() > 1 && d.back() == '0') d.pop_back();
    CAPTURE(d);
    REQUIRE(put(put_shortest_double_text, d) == json::serialize(double_from_text(d)));
  }
}

TEST_CASE("binary values are base64 in a $binary object, padded like the value form") {
  std::mt19937 rng(7);
  for (std::size_t n = 0; n < 12; ++n) {
    std::string bytes = random_bytes(rng, false).substr(0, n);
    auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    std::string out;
    put_binary(out, p, bytes.size());
    CHECK(out == json::serialize(binary_value(p, bytes.size())));
  }
  const unsigned char b[] = {0x00, 0xff, 0x10};
  std::string out;
  put_binary(out, b, 3);
  CHECK(out == R"({"$binary":{"base64":"AP8Q","subType":"00"}})");
}

namespace {

// Writes `n` rows of one text value each; returns how many the writer accepted.
std::size_t write_rows(sql::exec_outcome& out, const sql::exec_options& o, std::size_t n, std::string_view value) {
  row_writer w(out, o);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!w.begin_row()) break;
    put_int(w.text(), static_cast<std::int64_t>(i));
    w.text().push_back(',');
    put_text(w.text(), value);
    if (!w.end_row()) break;
    ++kept;
  }
  return kept;
}

}  // namespace

TEST_CASE("the row writer stops at max_rows and says more rows are available only when one was there") {
  sql::exec_options o;
  o.max_rows = 3;
  sql::exec_outcome exact;
  CHECK(write_rows(exact, o, 3, "v") == 3);
  CHECK(exact.rows_json() == R"([[0,"v"],[1,"v"],[2,"v"]])");
  CHECK(exact.row_count == 3);
  CHECK_FALSE(exact.rows_more_available);
  sql::exec_outcome more;
  CHECK(write_rows(more, o, 10, "v") == 3);
  CHECK(more.row_count == 3);
  CHECK(more.rows_more_available);
  CHECK_FALSE(more.truncated);
  sql::exec_outcome none;
  CHECK(write_rows(none, o, 0, "v") == 0);
  CHECK(none.rows_json() == "[]");
}

TEST_CASE("the row writer cuts at a whole row when the JSON would pass max_bytes") {
  sql::exec_options o;
  o.max_rows = 1000;
  o.max_bytes = 100;
  sql::exec_outcome out;
  // Each row [n,"0123456789"] is 16 bytes for n < 10; k rows take 2 + 16k + (k - 1) bytes:
  // 86 for five rows, 103 for six.
  std::size_t kept = write_rows(out, o, 50, "0123456789");
  CHECK(kept == 5);
  CHECK(out.rows_json().size() == 86);
  CHECK(out.rows_json().size() <= 100);
  CHECK(out.truncated);
  CHECK(out.rows_more_available);
  CHECK(out.row_count == kept);
  auto parsed = json::parse_strict(out.rows_json());
  REQUIRE(parsed.ok());
  CHECK(parsed->as_array().size() == kept);
  // One more row would not have fitted.
  CHECK(out.rows_json().size() + 1 + 16 > 100);
}

TEST_CASE("an oversized row ends the result as truncated unless max_rows was already reached") {
  sql::exec_options o;
  o.max_rows = 1;
  sql::exec_outcome first;
  row_writer w(first, o);
  w.oversized();
  CHECK(w.full());
  CHECK(first.truncated);
  CHECK(first.rows_more_available);
  CHECK_FALSE(w.begin_row());
  sql::exec_outcome partial;  // found while the row is being written: the row goes again
  o.max_rows = 5;
  CHECK(write_rows(partial, o, 2, "v") == 2);
  row_writer w3(partial, o);
  REQUIRE(w3.begin_row());
  put_int(w3.text(), 99);
  w3.oversized();
  CHECK(partial.rows_json() == R"([[0,"v"],[1,"v"]])");
  CHECK(partial.row_count == 2);
  CHECK(partial.truncated);
  o.max_rows = 1;
  sql::exec_outcome after;
  CHECK(write_rows(after, o, 1, "v") == 1);
  row_writer w2(after, o);  // a second writer on a full result: the row budget is spent
  w2.oversized();
  CHECK_FALSE(after.truncated);
  CHECK(after.rows_more_available);
}
