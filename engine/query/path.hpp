// omgdb engine — dotted paths as the query matcher walks them.
//
// MongoDB resolves a path like "a.b.0" component by component: through embedded documents
// by field name, through an array reached in the middle of the path by looking into each
// element that is a document (one array level per component), and, when the next component
// is an array index ("0", "1", … without leading zeros), also into the element at that
// index. A numeric component therefore matches both a field literally named "0" and array
// position 0. A path that ends on an array yields its elements and, unless told otherwise,
// the array itself (so {a: [1, 2]} matches both {a: 1} and {a: [1, 2]}).
//
// These helpers are shared by the filter (engine/filter*.cpp) and `values_at_path` in
// sort.hpp. Thread safety: pure functions over caller-owned values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/value/value.hpp"

namespace omgdb::engine::path {

struct component {
  std::string name;
  std::int64_t index = -1;  // the array index `name` denotes, or -1 if it is not one
};
using components = std::vector<component>;

// Splits on '.'; every piece (even an empty one) is a component. "" is one empty component.
components split(std::string_view dotted);

// A document, or an array seen as a document whose field names are its indexes (how
// MongoDB applies a sub-filter to an array element inside $elemMatch).
struct object_view {
  const document* doc = nullptr;
  const array* arr = nullptr;

  const value* get(const component& c) const;
};

// What to report when the path ends on an array.
enum class leaf_arrays {
  elements_and_array,  // each element, then the array itself (equality, comparisons, …)
  array_only,          // the array as one value ($size, $elemMatch)
  elements_only,       // each element, not the array (values_at_path)
};

// A non-owning callable `bool(const value*)`: nullptr means "missing here"; return true to
// stop the walk.
class visitor_ref {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, visitor_ref>)
  visitor_ref(F&& f) noexcept  // NOLINT: implicit by design, like std::function_ref
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, const value* v) -> bool {
          return (*static_cast<std::remove_reference_t<F>*>(o))(v);
        }) {}
  bool operator()(const value* v) const { return call_(obj_, v); }

 private:
  void* obj_;
  bool (*call_)(void*, const value*);
};

// Walks `parts` from `root` and calls `visit` for every value reached, and with nullptr for
// every branch that ends on a missing field (or on a scalar where the path goes on). An array
// in the middle of the path whose elements yield nothing at all (an empty array, an array of
// scalars, an array of arrays, an index past its end) reports one nullptr: the path does not
// resolve, and it evaluates as null (MongoDB 9.0; in 8.0 it reported nothing, so {"a.b": null}
// did not match a: [1]). Returns true as soon as `visit` does.
bool walk(const object_view& root, const components& parts, leaf_arrays mode, visitor_ref visit);

// Where a value reached by `walk_positional` came from: the first array the walk expanded
// implicitly on the way (MongoDB's "array offset" of the element iterator). `index` is the
// element's position in that array and `depth` the number of path components that lead to
// the array (so parts[0 .. depth) name it); index -1 when no array was expanded. Reaching an
// element by a numeric component ("a.0") is not an expansion, and an array reported whole at
// the end of the path has no index of its own.
struct array_position {
  std::int64_t index = -1;
  std::size_t depth = 0;
};

// A non-owning callable `bool(const value*, const array_position&)`, as visitor_ref.
class positional_visitor_ref {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, positional_visitor_ref>)
  positional_visitor_ref(F&& f) noexcept  // NOLINT: implicit by design
      : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, const value* v, const array_position& p) -> bool {
          return (*static_cast<std::remove_reference_t<F>*>(o))(v, p);
        }) {}
  bool operator()(const value* v, const array_position& p) const { return call_(obj_, v, p); }

 private:
  void* obj_;
  bool (*call_)(void*, const value*, const array_position&);
};

// `walk`, also telling the visitor where each value came from (for filter match details).
// Visits the same values in the same order as `walk`.
bool walk_positional(const object_view& root, const components& parts, leaf_arrays mode,
                     positional_visitor_ref visit);

}  // namespace omgdb::engine::path
