// Fuzz target 9: bytes as read back from disk — documents, op-log records, index keys.
//
// Input: arbitrary bytes, taken as a stored BSON document and as an op-log record. Corrupt
// bytes must give an error that says `corrupt` (from_bson), never a crash; and no reader may
// give a wrong answer for them: the byte matcher (filter::matches_bson) and the byte updater
// (detail::raw_updater) must agree with the decoding path whenever they answer for bytes
// that decode, and decline when the bytes are not exactly what to_bson writes
// (raw_copyable_document); the partial decode of a few fields (from_bson_fields) refuses
// exactly what from_bson refuses and agrees with it. For bytes that decode, index keys (encode_key) order the fields'
// values as compare() does, and an op-log afterPatch expands back to the after image.
#include <algorithm>
#include <cstring>

#include "engine/bson/bson_codec.hpp"
#include "engine/index/keystring.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "engine/store/oplog_patch.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/update/update.hpp"
#include "engine/update/update_raw.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"

using namespace omgdb;
using namespace omgdb::engine;

namespace {

constexpr const char* k_name = "stored_bytes";

const std::vector<filter>& filters() {
  static const std::vector<filter> fs = [] {
    std::vector<filter> out;
    for (const char* text : {R"({"a": 1})", R"({"a.b": {"$gt": 0}})", R"({"_id": {"$exists": true}, "b": null})",
                             R"({"a": {"$elemMatch": {"$gte": "a"}}})", R"({"$or": [{"a": {"$size": 2}}, {"c": {"$type": "string"}}]})"}) {
      auto d = fuzz::document_of(text);
      auto f = filter::compile(*d);
      if (!f) std::abort();
      out.push_back(std::move(*f));
    }
    return out;
  }();
  return fs;
}

const update_spec& update() {
  static const update_spec u = [] {
    auto d = fuzz::document_of(R"({"$inc": {"a": 1}, "$set": {"b.c": "x"}, "$unset": {"d": ""}})");
    auto s = update_spec::compile(*d);
    if (!s) std::abort();
    return std::move(*s);
  }();
  return u;
}

int sign(int x) { return (x > 0) - (x < 0); }

void check_decoded(std::string_view bytes, const document& doc) {
  const std::string what = to_json(value(doc), ejson_mode::canonical);
  for (const auto& f : filters()) {
    std::optional<bool> slow, fast;
    try {
      slow = f.matches(doc);
    } catch (const expression_error&) {
    }
    try {
      fast = f.matches_bson(bytes);
    } catch (const expression_error&) {
    }
    if (slow && fast) OMGDB_FUZZ_CHECK(k_name, *slow == *fast, "byte matcher disagrees on " + what);
  }

  update_apply_options options;
  options.now_millis = 1700000000000;
  auto raw = detail::raw_updater::make(update());
  detail::raw_updater::prepared p;
  std::string out;
  if (raw && raw->prepare(bytes, p)) {
    const auto done = raw->finish(p, options, out);
    if (done != detail::raw_updater::outcome::decode) {
      auto expected = update().apply(doc, options);
      OMGDB_FUZZ_CHECK(k_name, expected.ok(), "the byte updater answered where apply fails: " + what);
      OMGDB_FUZZ_CHECK(k_name, (done == detail::raw_updater::outcome::changed) == expected->changed, what);
      if (done == detail::raw_updater::outcome::changed) {
        auto want = to_bson(expected->doc);
        OMGDB_FUZZ_CHECK(k_name, want.ok() && *want == out, "the byte updater wrote other bytes for " + what);
      }
    }
  }

  // Index keys order values as compare() does, and are equal exactly when compare() is 0.
  for (std::size_t i = 0; i < doc.size() && i < 6; ++i) {
    for (std::size_t j = i; j < doc.size() && j < 6; ++j) {
      const std::string a = encode_key(doc[i].val), b = encode_key(doc[j].val);
      const int by_key = sign(a.compare(b));
      OMGDB_FUZZ_CHECK(k_name, by_key == sign(compare(doc[i].val, doc[j].val)),
                       "index key order differs from compare() for fields " + doc[i].name + ", " + doc[j].name +
                           " of " + what);
    }
  }

  // An afterPatch of these bytes expands back to the after image it was made for.
  if (auto after_doc = update().apply(doc, options)) {
    if (auto after = to_bson(after_doc->doc)) {
      if (auto patch = detail::make_after_patch(bytes, *after, 0)) {
        std::string expanded;
        OMGDB_FUZZ_CHECK(k_name, detail::apply_after_patch(bytes, *patch, expanded) && expanded == *after, what);
      }
    }
  }
}

}  // namespace

OMGDB_FUZZ_TARGET(stored_bytes) {
  const std::string_view bytes = fuzz::text_of(data, size);
  auto doc = from_bson(bytes);
  if (!doc) {
    OMGDB_FUZZ_CHECK(k_name, doc.error().message.find("corrupt") != std::string::npos, doc.error().message);
    OMGDB_FUZZ_CHECK(k_name, !detail::raw_copyable_document(bytes), "raw_copyable_document accepts corrupt bytes");
  } else {
    if (detail::raw_copyable_document(bytes)) {
      auto again = to_bson(*doc);
      OMGDB_FUZZ_CHECK(k_name, again.ok() && *again == bytes, "raw_copyable_document accepts bytes to_bson writes otherwise");
    }
    check_decoded(bytes, *doc);
  }
  // The aggregation scan's partial decode refuses exactly the bytes from_bson refuses (damage
  // in a field it skips included), and gives the decoded document's fields it asked for.
  static const std::vector<std::string> some{"_id", "a", "b"};
  auto part = from_bson_fields(bytes, some);
  OMGDB_FUZZ_CHECK(k_name, part.ok() == doc.ok(),
                   doc ? "from_bson_fields refuses bytes from_bson decodes" : "from_bson_fields reads past corrupt bytes");
  if (part && doc) {
    document want;
    for (const field& f : *doc) {
      if (std::binary_search(some.begin(), some.end(), f.name)) want.push_back(f);
    }
    OMGDB_FUZZ_CHECK(k_name, to_json(value(*part), ejson_mode::canonical) == to_json(value(want), ejson_mode::canonical),
                     "from_bson_fields decodes other values than from_bson: " + to_json(value(*doc), ejson_mode::canonical));
  }
  // Readers that walk the bytes without decoding them.
  value id;
  (void)bson_get_field(bytes, "_id", id);
  for (const auto& f : filters()) {
    try {
      (void)f.matches_bson(bytes);
    } catch (const expression_error&) {
    }
  }
  // The bytes as an op-log record, and as a `before` image with a patch after it.
  std::string out;
  if (detail::oplog_after(bytes, out) && !out.empty()) (void)from_bson(out);
  if (bytes.size() >= 2) {
    const std::size_t n = (static_cast<unsigned char>(bytes[0]) | static_cast<unsigned char>(bytes[1]) << 8) % bytes.size();
    std::string expanded;
    (void)detail::apply_after_patch(bytes.substr(2, n), bytes.substr(std::min(bytes.size(), 2 + n)), expanded);
  }
  return 0;
}
