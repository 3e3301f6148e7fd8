// omgdb engine — Extended JSON (v2) in and out.
//
// Tool arguments and results are relaxed Extended JSON. Input arrives as a Boost.JSON value
// that common/json_parse.hpp has already checked (no integer beyond int64, no non-finite
// number, no duplicate key, valid UTF-8). `from_json` maps it onto engine values:
//  - integers become int32 when they fit, else int64; numbers with a fraction or exponent
//    become double (Boost.JSON keeps that distinction);
//  - the wrappers $oid, $date (ISO-8601 string, {"$numberLong"} or integer millis),
//    $numberInt, $numberLong, $numberDouble (incl. "Infinity", "-Infinity", "NaN"),
//    $numberDecimal, $binary {base64, subType}, $regularExpression {pattern, options},
//    $timestamp {t, i}, $minKey, $maxKey are recognised when they are the object's only key
//    (the $binary / $regularExpression / $timestamp forms with their exact sub-keys);
//    also $uuid ("8-4-4-4-12" hex, as binary subtype 4); regex options are sorted and must
//    be among "ilmsux";
//  - a malformed wrapper (e.g. {"$oid":"xyz"}) is an error naming the wrapper, and so is a
//    wrapper key next to other keys ({"$oid":…, "x":1}); other $-keys ({"$gt":1}) are
//    ordinary fields. The top-level object of document_from_json is never a wrapper;
//  - nesting deeper than `max_depth` is an error (each object or array is one level, the
//    outermost included; wrapper objects do not count).
// Output:
//  - relaxed: int32/int64 as plain numbers, doubles always with a '.', 'e' or as
//    {"$numberDouble":"Infinity"|"-Infinity"|"NaN"}, dates as {"$date":"…Z"}
//    ("2024-01-02T03:04:05.000Z", always three fraction digits) for years
//    1970–9999 else {"$date":{"$numberLong":"…"}}, other types in their wrapper form;
//  - canonical: every number wrapped ({"$numberInt":"1"}, …), dates as
//    {"$date":{"$numberLong":"…"}}: types survive a round trip exactly.
// Output is compact (no spaces), UTF-8, with only the escapes JSON requires.
#pragma once

#include <string>

#include <boost/json/value.hpp>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

struct ejson_limits {
  int max_depth = 100;  // MongoDB's document nesting limit
};

result<value> from_json(const boost::json::value& j, const ejson_limits& limits = {});
// Same, but the top level must be an object (a document); errors say "document must be an object".
result<document> document_from_json(const boost::json::value& j, const ejson_limits& limits = {});

enum class ejson_mode { relaxed, canonical };

void append_json(std::string& out, const value& v, ejson_mode mode = ejson_mode::relaxed);
void append_json(std::string& out, const document& d, ejson_mode mode = ejson_mode::relaxed);
std::string to_json(const value& v, ejson_mode mode = ejson_mode::relaxed);
std::string to_json(const document& d, ejson_mode mode = ejson_mode::relaxed);
// A decimal128 as its string form ("1.10", "-Infinity"), as $numberDecimal writes it.
std::string decimal_to_string(const decimal128& d);

// A Boost.JSON value with the same relaxed meaning, for embedding in larger JSON results.
boost::json::value to_boost_json(const value& v);

}  // namespace omgdb::engine
