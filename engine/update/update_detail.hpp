// omgdb engine — compiled update internals shared by the update_*.cpp files. Not public.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/query/filter.hpp"
#include "engine/query/path.hpp"
#include "engine/update/update.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::update_detail {

enum class op_kind {
  set, unset, inc, mul, min, max, rename, current_date, set_on_insert, bit,
  push, add_to_set, pop, pull, pull_all,
};

// One component of an update path as written.
struct part {
  enum class kind { field, positional, all, filtered };
  kind k = kind::field;
  std::string name;          // as written ("b", "0", "$", "$[]", "$[x]")
  std::int64_t index = -1;   // the array index a field component denotes, or -1
  std::size_t filter = 0;    // kind::filtered: index into impl::filters
};
using parts = std::vector<part>;

struct push_modifiers {
  array each;
  std::optional<std::int64_t> position;
  std::optional<std::int64_t> slice;
  enum class sort_kind { none, whole, by_fields } sort = sort_kind::none;
  bool sort_descending = false;                       // sort_kind::whole
  std::vector<std::pair<std::string, bool>> sort_by;  // sort_kind::by_fields: (path, descending)
};

struct pull_condition {
  enum class mode { equality, wrapped, object } m = mode::equality;
  value literal;   // mode::equality
  filter matcher;  // mode::wrapped (matches {v: element}) or mode::object (matches element)
};

struct bit_step {
  enum class kind { and_, or_, xor_ } k = kind::and_;
  value operand;  // int32 or int64
};

struct update_op {
  op_kind kind = op_kind::set;
  std::string op_name;  // "$set", …, for messages
  std::string text;     // the dotted path as written (for $rename: the target)
  parts path;
  value arg;                       // $set/$setOnInsert/$inc/$mul/$min/$max/$addToSet…
  bool timestamp = false;          // $currentDate {$type: "timestamp"}
  int pop_from_front = 0;          // $pop: -1 removes the first element, 1 the last
  std::string from_text;           // $rename: the source path
  parts from;
  push_modifiers push;             // $push and $addToSet ($each only)
  std::vector<pull_condition> pull;  // $pull: one condition
  std::vector<bit_step> bits;      // $bit
};

struct array_filter {
  std::string identifier;
  filter matcher;  // matched against {identifier: element}
};

// A concrete path: positional components resolved to indexes.
using concrete = path::components;

// Component order of update application: numeric components numerically when both are
// numeric, else bytewise. Returns <0, 0, >0; a prefix sorts first.
int compare_paths(const concrete& a, const concrete& b);
// True when `a` is a prefix of `b` or equal to it.
bool is_prefix(const concrete& a, const concrete& b);
std::string join(const concrete& p, std::size_t count = SIZE_MAX);

// The field operators (update_field_ops.cpp) and array operators (update_array_ops.cpp):
// each applies `op` at the concrete path `at` inside `root`.
status apply_field_op(const update_op& op, const concrete& at, document& root,
                      const update_apply_options& options);
status apply_rename(const update_op& op, const concrete& from, const concrete& to,
                    document& root);
status apply_array_op(const update_op& op, const concrete& at, document& root);

// Where a path lands in a document (update_paths.cpp).
struct slot {
  document* parent_doc = nullptr;  // the field's document, or
  array* parent_arr = nullptr;     // the element's array
  std::size_t pos = 0;             // index of the field / element
  value* val = nullptr;
};
// The existing value at `at`, or nullopt when the path is missing or not viable (goes
// through a scalar, or names a non-index field of an array).
std::optional<slot> find_existing(document& root, const concrete& at);
// The value at `at`, creating missing documents on the way and padding arrays with nulls.
// `created` says whether the final field did not exist before. Errors: the path goes
// through a scalar or names a non-index field of an array ("cannot create field `b` in
// element {a: 1}", as MongoDB words it).
result<value*> find_or_create(document& root, const concrete& at, const std::string& op_name,
                              bool& created);

// A value for messages: its relaxed JSON, cut at 60 characters.
std::string show(const value& v);
// The BSON type name of a value ("int", "long", "double", "string", …) as $type spells it.
std::string type_name(const value& v);

}  // namespace omgdb::engine::update_detail

namespace omgdb::engine {

struct update_spec::impl {
  std::vector<update_detail::update_op> ops;
  std::vector<update_detail::array_filter> filters;
  bool positional = false;
};

}  // namespace omgdb::engine
