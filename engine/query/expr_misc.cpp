// Miscellaneous expression operators: $binarySize $bsonSize $rand $tsSecond $tsIncrement
// $toUUID, and the compile-time checks of $rand's argument and of $meta, which omgdb
// refuses (it keeps no per-document search, index-key or record-id metadata: ranked search
// is the `search` tool's job). Error texts are mongod's where it has one.
#include <array>
#include <cstdint>
#include <string>

#include "engine/bson/bson_codec.hpp"
#include "engine/query/expr_detail.hpp"
#include "engine/query/random_draw.hpp"

namespace omgdb::engine::expr_detail {
namespace {

// {$binarySize: string or binData}: the byte count (UTF-8 bytes of a string), an int.
expr_value binary_size_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return value();
  if (v->is_string()) return int_or_long(static_cast<std::int64_t>(v->as_string().size()));
  if (v->type() == kind::binary) return int_or_long(static_cast<std::int64_t>(std::get<binary>(v->raw()).bytes.size()));
  fail("$binarySize requires a string or BinData argument, found: " + type_name(*v));
}

// {$bsonSize: document}: the size in bytes of the document encoded as BSON, exactly as the
// store writes it (engine/bson's encoder), an int.
expr_value bson_size_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return value();
  if (!v->is_document()) fail("$bsonSize requires a document input, found: " + type_name(*v));
  auto bytes = to_bson(v->as_document());
  if (!bytes) fail("$bsonSize: " + bytes.error().message);
  return int_or_long(static_cast<std::int64_t>(bytes->size()));
}

// {$rand: {}}: a double in [0, 1) (random_draw.hpp describes the generator).
expr_value rand_op(const op_node&, eval_ctx&) { return value(random_unit()); }

// {$tsSecond: timestamp} / {$tsIncrement: timestamp}: the seconds or the ordinal, a long.
expr_value ts_part_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return value();
  if (v->type() != kind::timestamp) fail(self.name + " requires a timestamp argument, found: " + type_name(*v));
  const timestamp& t = std::get<timestamp>(v->raw());
  return value(static_cast<std::int64_t>(self.name == "$tsSecond" ? t.t : t.i));
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// {$toUUID: string}: the canonical hyphenated form (8-4-4-4-12 hex digits, either case) as
// binary subtype 4, like {$convert: {input, to: {type: "binData", subtype: 4}, format: "uuid"}}.
expr_value to_uuid_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return value();
  if (!v->is_string()) fail("Unsupported conversion from " + type_name(*v) + " to binData in $convert with no onError value");
  const std::string& s = v->as_string();
  auto invalid = [&s]() -> expr_value {
    fail("Failed to parse BinData '" + s + "' in $convert with no onError value: Invalid UUID string: " + s);
  };
  if (s.size() != 36) return invalid();
  std::string bytes;
  bytes.reserve(16);
  for (std::size_t i = 0; i < s.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return invalid();
      ++i;
      continue;
    }
    const int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0) return invalid();
    bytes.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return value(binary{4, std::move(bytes)});
}

constexpr op_info misc_op_list[] = {
    {"$binarySize", 1, 1, binary_size_op}, {"$bsonSize", 1, 1, bson_size_op}, {"$rand", 1, 1, rand_op},
    {"$tsSecond", 1, 1, ts_part_op},       {"$tsIncrement", 1, 1, ts_part_op}, {"$toUUID", 1, 1, to_uuid_op},
};

// The $meta names MongoDB knows, all refused here.
constexpr std::array<std::string_view, 14> k_meta_names = {
    "textScore",   "searchScore",     "searchHighlights", "searchScoreDetails", "vectorSearchScore",
    "score",       "scoreDetails",    "searchSequenceToken", "geoNearDistance",  "geoNearPoint",
    "indexKey",    "recordId",        "randVal",          "sortKey"};

}  // namespace

op_table misc_ops() { return table_of(misc_op_list); }

status check_special_operator(const std::string& name, const value& arg) {
  if (name == "$rand") {
    if (!arg.is_document() || !arg.as_document().empty()) return make_error("$rand does not currently accept arguments");
    return {};
  }
  if (name != "$meta") return check_percentile_arguments(name, arg);
  if (!arg.is_string()) return make_error("$meta only supports string arguments");
  const std::string& m = arg.as_string();
  bool known = false;
  for (std::string_view k : k_meta_names) known = known || k == m;
  if (!known) return make_error("Unsupported argument to $meta: " + m);
  return make_error("`{$meta: \"" + m +
                    "\"}` is not supported: omgdb keeps no per-document search, score, index-key or record-id "
                    "metadata in the pipeline; for ranked full-text or vector search use the `search` tool");
}

}  // namespace omgdb::engine::expr_detail
