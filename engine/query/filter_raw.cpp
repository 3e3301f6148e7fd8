// Matching a compiled filter over stored BSON bytes, without decoding the document
// (filter::matches_bson). A full scan then decodes only the documents that match.
//
// The walk mirrors path.cpp's walker<false> step by step, over libbson iterators positioned
// in the stored bytes: fields by first occurrence of their name, arrays in the middle of a
// path looked into element by element (documents only, plus the element a numeric component
// names), arrays at the end reported as their elements and then themselves. Values are
// tested where they lie: numbers, booleans, dates, ObjectIds and null become a `value`
// without allocating and go through the decoded matcher's own comparison; strings compare as
// bytes; a value of another type bracket is answered from the bracket alone; anything else
// (sub-documents and arrays compared whole, decimals, regexes, binaries, $size, $elemMatch,
// $mod, $regex, ...) is decoded on its own and given to the node's matches_value. So every
// answer is the decoded matcher's answer. Malformed bytes and the deprecated types that
// from_bson turns into documents (DBPointer, code with scope) throw raw_fallback: the caller
// decodes the whole document instead, which also reports corruption.
#include <algorithm>
#include <cstring>

#include "engine/bson/bson_element.hpp"
#include "engine/query/filter_detail.hpp"

namespace omgdb::engine {
namespace filter_detail {
namespace {

[[noreturn]] void fallback() { throw raw_fallback{}; }

void recurse(const bson_iter_t& container, bson_iter_t& child) {
  if (!bson_iter_recurse(&container, &child)) fallback();
}

// The first field named `name` of the document `doc` is at the start of.
bool find_first(bson_iter_t doc, std::string_view name, bson_iter_t& out) {
  while (bson_iter_next(&doc)) {
    if (bson_iter_key_len(&doc) == name.size() && std::memcmp(bson_iter_key(&doc), name.data(), name.size()) == 0) {
      out = doc;
      return true;
    }
  }
  if (doc.err_off != 0) fallback();
  return false;
}

// from_bson decodes these to documents; the walk leaves them to it.
bool decodes_to_document(bson_type_t t) { return t == BSON_TYPE_CODEWSCOPE || t == BSON_TYPE_DBPOINTER; }

value decoded(const bson_iter_t& v, int depth) {
  value out;
  if (!decode_bson_element(v, out, depth)) fallback();
  return out;
}

// type_rank() of the value from_bson gives for an element of type `t`.
int raw_rank(bson_type_t t) {
  switch (t) {
    case BSON_TYPE_MINKEY: return -1;
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED: return 5;
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_DOUBLE:
    case BSON_TYPE_DECIMAL128: return 10;
    case BSON_TYPE_UTF8:
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_CODE: return 15;
    case BSON_TYPE_DOCUMENT:
    case BSON_TYPE_CODEWSCOPE:
    case BSON_TYPE_DBPOINTER: return 20;
    case BSON_TYPE_ARRAY: return 25;
    case BSON_TYPE_BINARY: return 30;
    case BSON_TYPE_OID: return 35;
    case BSON_TYPE_BOOL: return 40;
    case BSON_TYPE_DATE_TIME: return 45;
    case BSON_TYPE_TIMESTAMP: return 47;
    case BSON_TYPE_REGEX: return 50;
    case BSON_TYPE_MAXKEY: return 127;
    case BSON_TYPE_EOD: break;
  }
  fallback();
}

// The scalars that become a `value` without allocating; false for every other type.
bool small_scalar(const bson_iter_t& v, value& out) {
  switch (bson_iter_type(&v)) {
    case BSON_TYPE_INT32: out = bson_iter_int32(&v); return true;
    case BSON_TYPE_INT64: out = std::int64_t{bson_iter_int64(&v)}; return true;
    case BSON_TYPE_DOUBLE: out = bson_iter_double(&v); return true;
    case BSON_TYPE_BOOL: out = bson_iter_bool(&v); return true;
    case BSON_TYPE_NULL:
    case BSON_TYPE_UNDEFINED: out = value(); return true;
    case BSON_TYPE_DATE_TIME: out = date_time{bson_iter_date_time(&v)}; return true;
    case BSON_TYPE_OID: {
      object_id oid;
      std::memcpy(oid.bytes.data(), bson_iter_oid(&v)->bytes, 12);
      out = oid;
      return true;
    }
    case BSON_TYPE_TIMESTAMP: {
      timestamp t;
      bson_iter_timestamp(&v, &t.t, &t.i);
      out = t;
      return true;
    }
    case BSON_TYPE_MINKEY: out = min_key{}; return true;
    case BSON_TYPE_MAXKEY: out = max_key{}; return true;
    default: return false;
  }
}

std::string_view utf8_of(const bson_iter_t& v) {
  std::uint32_t len = 0;
  const char* s = bson_iter_utf8(&v, &len);
  if (s == nullptr) fallback();
  return {s, len};
}

// compare() of a string with `b` (binary UTF-8 order within the string bracket).
int compare_string(std::string_view a, const value& b) {
  const int rb = type_rank(b);
  if (rb != 15) return 15 < rb ? -1 : 1;
  const std::string& s = b.as_string();
  const std::size_t n = std::min(a.size(), s.size());
  if (n != 0) {
    if (int c = std::memcmp(a.data(), s.data(), n); c != 0) return c < 0 ? -1 : 1;
  }
  return a.size() < s.size() ? -1 : (a.size() > s.size() ? 1 : 0);
}

// path.cpp's walker<false>, over the bytes. `Visit`: bool(const bson_iter_t* v, int depth),
// true to stop; v == nullptr means "missing here".
template <class Visit>
struct raw_walker {
  const path::components& parts;
  path::leaf_arrays mode;
  Visit& visit;
  std::size_t emitted = 0;  // values (and missing branches) reported so far

  bool emit(const bson_iter_t* v, int depth) {
    ++emitted;
    return visit(v, depth);
  }

  // An array at the end of the path; `depth` is that of the document holding it.
  bool leaf_array(const bson_iter_t& arr, int depth) {
    if (mode == path::leaf_arrays::array_only) return emit(&arr, depth);
    bson_iter_t e;
    recurse(arr, e);
    while (bson_iter_next(&e)) {
      if (emit(&e, depth + 1)) return true;
    }
    if (e.err_off != 0) fallback();
    return mode == path::leaf_arrays::elements_and_array && emit(&arr, depth);
  }

  // The path continues at parts[i] inside the document `doc` (of nesting `depth`) starts.
  bool from(const bson_iter_t& doc, int depth, std::size_t i) {
    bson_iter_t cur = doc;
    for (std::size_t k = i; k < parts.size(); ++k) {
      bson_iter_t v;
      if (!find_first(cur, parts[k].name, v)) return emit(nullptr, depth);
      const bool last = k + 1 == parts.size();
      const bson_type_t t = bson_iter_type(&v);
      if (t == BSON_TYPE_ARRAY) return last ? leaf_array(v, depth) : in_array(v, depth, k + 1);
      if (decodes_to_document(t)) fallback();
      if (last) return emit(&v, depth);
      if (t != BSON_TYPE_DOCUMENT) return emit(nullptr, depth);  // a scalar where the path goes on
      recurse(v, cur);
      ++depth;
    }
    return false;
  }

  // An array reached in the middle of the path (in a document of nesting `depth`); parts[j]
  // is the next component.
  bool in_array(const bson_iter_t& arr, int depth, std::size_t j) {
    const path::component& c = parts[j];
    const bool last = j + 1 == parts.size();
    const int inner = depth + 1;  // the array's own nesting, which its elements have
    const std::size_t before = emitted;
    bson_iter_t x;
    recurse(arr, x);
    for (std::int64_t idx = 0; bson_iter_next(&x); ++idx) {
      const bool positional = c.index >= 0 && c.index == idx;
      const bson_type_t t = bson_iter_type(&x);
      if (t == BSON_TYPE_DOCUMENT) {
        bson_iter_t sub;
        recurse(x, sub);
        if (from(sub, inner + 1, j)) return true;
        if (positional && (last ? emit(&x, inner) : from(sub, inner + 1, j + 1))) return true;
      } else if (decodes_to_document(t)) {
        fallback();
      } else if (positional) {
        if (last) {
          if (emit(&x, inner)) return true;
        } else if (t == BSON_TYPE_ARRAY && in_array(x, inner, j + 1)) {
          return true;
        }
      }
    }
    if (x.err_off != 0) fallback();
    return emitted == before && emit(nullptr, depth);  // MongoDB 9.0, as path.cpp
  }
};

}  // namespace

bool logical_node::matches_raw(const bson_iter_t& doc, int depth) const {
  auto test = [&](const node_ptr& c) { return c->matches_raw(doc, depth); };
  switch (op) {
    case logic::and_: return std::all_of(children.begin(), children.end(), test);
    case logic::or_: return std::any_of(children.begin(), children.end(), test);
    case logic::nor: return std::none_of(children.begin(), children.end(), test);
  }
  return false;
}

bool logical_node::raw_capable() const {
  return std::all_of(children.begin(), children.end(), [](const node_ptr& c) { return c->raw_capable(); });
}

bool path_node::matches_raw(const bson_iter_t& doc, int depth) const {
  if (parts.empty()) return false;
  auto visit = [this](const bson_iter_t* v, int d) { return matches_raw_value(v, d); };
  return raw_walker<decltype(visit)>{parts, leaf, visit}.from(doc, depth, 0);
}

bool path_node::matches_raw_value(const bson_iter_t* v, int depth) const {
  if (v == nullptr) return matches_value(nullptr);
  const value x = decoded(*v, depth);
  return matches_value(&x);
}

bool compare_node::matches_raw_value(const bson_iter_t* v, int depth) const {
  if (v == nullptr) return matches_value(nullptr);
  const bson_type_t t = bson_iter_type(v);
  if (raw_rank(t) != type_rank(operand)) return across_brackets();
  if (t == BSON_TYPE_UTF8) return holds(compare_string(utf8_of(*v), operand));
  value x;
  if (!small_scalar(*v, x)) x = decoded(*v, depth);
  return matches_value(&x);
}

bool in_node::matches_raw_value(const bson_iter_t* v, int depth) const {
  if (v == nullptr) return matches_value(nullptr);
  const bson_type_t t = bson_iter_type(v);
  if (t == BSON_TYPE_UTF8 && regexes.empty()) {
    struct by_order {
      bool operator()(const value& a, std::string_view b) const { return compare_string(b, a) > 0; }
      bool operator()(std::string_view a, const value& b) const { return compare_string(a, b) < 0; }
    };
    return std::binary_search(values.begin(), values.end(), utf8_of(*v), by_order{});
  }
  value x;
  if (small_scalar(*v, x)) return matches_value(&x);
  // Regexes test strings and regexes only; equality needs a value of the same bracket.
  const int rank = raw_rank(t);
  const bool may_match_regex = !regexes.empty() && (rank == 15 || rank == 50);
  const bool same_bracket =
      std::any_of(values.begin(), values.end(), [&](const value& e) { return type_rank(e) == rank; });
  if (!may_match_regex && !same_bracket) return false;
  x = decoded(*v, depth);
  return matches_value(&x);
}

bool type_node::matches_raw_value(const bson_iter_t* v, int) const {
  if (v == nullptr) return false;
  int code = 0;
  switch (const bson_type_t t = bson_iter_type(v)) {
    case BSON_TYPE_MINKEY: code = -1; break;
    case BSON_TYPE_UNDEFINED: code = static_cast<int>(kind::null_); break;
    case BSON_TYPE_SYMBOL:
    case BSON_TYPE_CODE: code = static_cast<int>(kind::string); break;
    case BSON_TYPE_CODEWSCOPE:
    case BSON_TYPE_DBPOINTER: code = static_cast<int>(kind::document); break;
    default: code = static_cast<int>(t);
  }
  if (any_number && raw_rank(bson_iter_type(v)) == 10) return true;
  return std::binary_search(codes.begin(), codes.end(), code);
}

}  // namespace filter_detail

bool filter::node::matches_raw(const bson_iter_t&, int) const { filter_detail::fallback(); }

std::optional<bool> filter::matches_bson(std::string_view bson) const {
  if (!root_) return true;
  if (!raw_) return std::nullopt;
  bson_iter_t it;
  if (bson.size() < 5 ||
      !bson_iter_init_from_data(&it, reinterpret_cast<const std::uint8_t*>(bson.data()), bson.size())) {
    return std::nullopt;
  }
  try {
    return root_->matches_raw(it, 1);
  } catch (const filter_detail::raw_fallback&) {
    return std::nullopt;
  }
}

}  // namespace omgdb::engine
