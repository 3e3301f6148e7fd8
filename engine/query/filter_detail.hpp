// omgdb engine — the compiled form of a query filter (private to engine/filter*.cpp).
//
// The tree mirrors MongoDB's match expressions: logical nodes ($and/$or/$nor/$not and the
// implicit AND of a filter document or an operator document) over path nodes, one per
// operator, each testing the values found at its path. {age: {$gt: 1, $lt: 5}} is
// AND(gt(age), lt(age)): each condition walks the path on its own, which is why
// {s: {$gt: 3, $lt: 7}} matches s: [1, 10]. $ne, $nin and $exists:false are NOT nodes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <bson/bson.h>

#include "common/result.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "engine/query/path.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

struct filter::node {
  virtual ~node() = default;
  // Whole-document matching: `obj` is the document (or an array element seen as one).
  virtual bool matches(const path::object_view& obj) const = 0;
  // One value, no path and no array traversal: how $elemMatch {$gt: 1, …} tests each
  // element. nullptr means "missing".
  virtual bool matches_value(const value* v) const = 0;
  // matches(obj), also recording the positional element in `details` (filter.hpp). Only
  // AND nodes and path nodes record; the default (used by $or, $nor, $not, $expr) does not.
  virtual bool matches_detailed(const path::object_view& obj, match_details& details) const {
    return matches(obj);
  }
  // matches_value(v); the $elemMatch nodes also set `element` to the index of the array
  // element that satisfied them.
  virtual bool matches_value_keyed(const value* v, std::int64_t& element) const {
    return matches_value(v);
  }
  // Matching over stored BSON bytes without decoding them (filter_raw.cpp). `doc` is an
  // iterator at the start of a document's elements, `depth` that document's nesting depth
  // (1: the stored document). Only called when raw_capable(); throws filter_detail::
  // raw_fallback when it cannot answer exactly (malformed bytes, deprecated BSON types), and
  // the caller then decodes the document and uses matches().
  virtual bool matches_raw(const bson_iter_t& doc, int depth) const;
  // Whether matches_raw answers for this node and everything under it ($expr does not).
  virtual bool raw_capable() const { return false; }
};

namespace filter_detail {

// Thrown by the raw matcher when only the decoded document can give the exact answer.
struct raw_fallback {};

using node_ptr = std::unique_ptr<filter::node>;

enum class logic { and_, or_, nor };

struct logical_node final : filter::node {
  logic op = logic::and_;
  std::vector<node_ptr> children;
  bool matches(const path::object_view& obj) const override;
  bool matches_value(const value* v) const override;
  bool matches_detailed(const path::object_view& obj, filter::match_details& details) const override;
  bool matches_raw(const bson_iter_t& doc, int depth) const override;
  bool raw_capable() const override;
};

struct not_node final : filter::node {
  node_ptr child;
  bool matches(const path::object_view& obj) const override;
  bool matches_value(const value* v) const override;
  bool matches_raw(const bson_iter_t& doc, int depth) const override { return !child->matches_raw(doc, depth); }
  bool raw_capable() const override { return child->raw_capable(); }
};

struct false_node final : filter::node {  // $all: []
  bool matches(const path::object_view&) const override { return false; }
  bool matches_value(const value*) const override { return false; }
  bool matches_raw(const bson_iter_t&, int) const override { return false; }
  bool raw_capable() const override { return true; }
};

// A predicate on the values at one path: true when any value reached passes
// `matches_value` (missing branches are passed as nullptr).
struct path_node : filter::node {
  path::components parts;
  path::leaf_arrays leaf = path::leaf_arrays::elements_and_array;
  bool matches(const path::object_view& obj) const final;
  bool matches_detailed(const path::object_view& obj, filter::match_details& details) const final;
  // The raw walk of `parts` (filter_raw.cpp) with MongoDB's traversal rules, as path::walk.
  bool matches_raw(const bson_iter_t& doc, int depth) const final;
  bool raw_capable() const final { return true; }
  // One value the raw walk reached (nullptr: missing), inside a document of nesting `depth`.
  // By default the value is decoded and given to matches_value; the common operators
  // override it to test the bytes directly.
  virtual bool matches_raw_value(const bson_iter_t* v, int depth) const;
};

// A compiled PCRE2 pattern (libpcre2-8, UTF mode). Matching uses per-thread match data, so
// one regex may be used from several threads.
class regex_matcher {
 public:
  // Options: any of "imsx" ('u' is accepted and ignored: UTF is always on). Errors name the
  // pattern and `where` (the path).
  static result<regex_matcher> compile(std::string_view pattern, std::string_view options,
                                       std::string_view where);
  // Strings by search; regex values by equal pattern and options; anything else: false.
  // A search that reaches the match limit (k_regex_match_limit) or another PCRE2 limit
  // throws expression_error naming the pattern, the path and the limit.
  bool matches(const value& v) const;

 private:
  std::shared_ptr<void> code_;  // pcre2_code_8
  std::string pattern_;
  std::string options_;  // sorted
  std::string where_;    // the path (or spec place), for errors
};

enum class cmp_op { eq, lt, lte, gt, gte };

struct compare_node final : path_node {
  cmp_op op = cmp_op::eq;
  value operand;
  bool matches_value(const value* v) const override;
  bool matches_raw_value(const bson_iter_t* v, int depth) const override;
  // The answer for a value of another type bracket than the operand's.
  bool across_brackets() const noexcept;
  // The answer for a value of the operand's bracket that compares `c` (<0, 0, >0) to it.
  bool holds(int c) const noexcept;
};

struct in_node final : path_node {
  std::vector<value> values;  // sorted by compare()
  std::vector<regex_matcher> regexes;
  bool matches_value(const value* v) const override;
  bool matches_raw_value(const bson_iter_t* v, int depth) const override;
};

struct exists_node final : path_node {
  bool matches_value(const value* v) const override { return v != nullptr; }
  bool matches_raw_value(const bson_iter_t* v, int) const override { return v != nullptr; }
};

struct type_node final : path_node {
  std::vector<int> codes;  // BSON type numbers (-1 MinKey, 127 MaxKey)
  bool any_number = false;  // the "number" alias
  bool matches_value(const value* v) const override;
  bool matches_raw_value(const bson_iter_t* v, int depth) const override;
};

struct regex_node final : path_node {
  regex_matcher re;
  explicit regex_node(regex_matcher r) : re(std::move(r)) {}
  bool matches_value(const value* v) const override { return v != nullptr && re.matches(*v); }
};

struct mod_node final : path_node {
  std::int64_t divisor = 1;
  std::int64_t remainder = 0;
  bool matches_value(const value* v) const override;
};

struct size_node final : path_node {  // leaf = array_only
  std::size_t size = 0;
  bool matches_value(const value* v) const override;
};

// {$elemMatch: {<filter>}}: some element that is a document (or an array, seen as one)
// matches the sub-filter. leaf = array_only.
struct elem_match_object_node final : path_node {
  node_ptr sub;  // nullptr: {$elemMatch: {}}
  bool matches_value(const value* v) const override;
  bool matches_value_keyed(const value* v, std::int64_t& element) const override;
};

// {$elemMatch: {$op: …, …}}: some element passes every condition by `matches_value`.
struct elem_match_value_node final : path_node {
  std::vector<node_ptr> conditions;
  bool matches_value(const value* v) const override;
  bool matches_value_keyed(const value* v, std::int64_t& element) const override;
};

// {$expr: <aggregation expression>}: the expression is truthy for the document. Only at the
// top level of a filter (possibly inside $and/$or/$nor), never inside $elemMatch. A run-time
// failure of the expression throws expression_error out of filter::matches.
struct expr_node final : filter::node {
  expression expr;
  bool matches(const path::object_view& obj) const override;
  bool matches_value(const value*) const override { return false; }
};

// {$sampleRate: r}: each document matches with probability r, independently (filter_sample.cpp;
// the draws are engine/query/random_draw.hpp's). Top level only, like $expr.
struct sample_rate_node final : filter::node {
  double rate = 0;
  bool matches(const path::object_view& obj) const override;
  bool matches_value(const value*) const override { return false; }
};
// The node for {$sampleRate: arg}: arg a number in [0, 1], else an error.
result<node_ptr> parse_sample_rate(const value& arg);

// filter_compile.cpp: the whole filter document. nullptr for a filter with no conditions.
result<node_ptr> parse_query(const document& spec);

// filter_args.cpp: operator arguments. `where` is the path for error messages.
bool truthy(const value& v);  // $exists: BSON truthiness (false, 0, null are false)
result<std::size_t> parse_size(const value& arg, std::string_view where);
status parse_type(const value& arg, std::string_view where, type_node& out);
status parse_mod(const value& arg, std::string_view where, mod_node& out);
bool is_nan(const value& v);  // double or decimal NaN

std::string quoted(std::string_view s);  // `s`

}  // namespace filter_detail
}  // namespace omgdb::engine
