// Dotted-path traversal with MongoDB's matcher semantics (see path.hpp).
#include "engine/query/path.hpp"

#include "engine/query/sort.hpp"

namespace omgdb::engine::path {
namespace {

// The array index a path component denotes: digits only, no leading zero (BSON arrays name
// their elements "0", "1", …, so "01" never names an element).
std::int64_t index_of(std::string_view name) {
  if (name.empty() || name.size() > 18) return -1;
  if (name.size() > 1 && name[0] == '0') return -1;
  std::int64_t n = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

// `Track`: also report where each value came from (walk_positional); the plain walk keeps no
// such state, so the matcher's hot path pays nothing for it.
template <bool Track>
struct walker {
  using visitor = std::conditional_t<Track, positional_visitor_ref, visitor_ref>;

  const components& parts;
  leaf_arrays mode;
  visitor visit;
  bool arrays_yield_missing = true;  // MongoDB 9.0's rule (walk); false for values_at_path
  array_position pos{};  // the first implicit expansion on the current branch (Track only)
  std::size_t emitted = 0;  // values (and missing branches) reported so far

  bool emit(const value* v) {
    ++emitted;
    if constexpr (Track) {
      return visit(v, pos);
    } else {
      return visit(v);
    }
  }

  // Runs `f` with element `idx` of an array reached by parts[0 .. depth) as the current
  // expansion, unless an outer array already is.
  template <class F>
  bool expanded(std::size_t idx, std::size_t depth, F&& f) {
    if constexpr (Track) {
      if (pos.index < 0) {
        pos = array_position{static_cast<std::int64_t>(idx), depth};
        const bool stop = f();
        pos = array_position{};
        return stop;
      }
    }
    return f();
  }

  // An array at the end of the path, reached by parts[0 .. depth).
  bool leaf_array(const value& arr, std::size_t depth) {
    if (mode == leaf_arrays::array_only) return emit(&arr);
    const array& elems = arr.as_array();
    for (std::size_t idx = 0; idx < elems.size(); ++idx) {
      if (expanded(idx, depth, [&] { return emit(&elems[idx]); })) return true;
    }
    return mode == leaf_arrays::elements_and_array && emit(&arr);
  }

  // The path continues at parts[i] inside `obj`: descend through documents until the path
  // ends, a field is missing, or an array is reached.
  bool from(object_view obj, std::size_t i) {
    for (std::size_t k = i; k < parts.size(); ++k) {
      const value* v = obj.get(parts[k]);
      if (v == nullptr) return emit(nullptr);
      const bool last = k + 1 == parts.size();
      if (v->is_array()) {
        return last ? leaf_array(*v, k + 1) : in_array(v->as_array(), k + 1);
      }
      if (last) return emit(v);
      if (!v->is_document()) return emit(nullptr);  // a scalar where the path goes on
      obj = object_view{&v->as_document(), nullptr};
    }
    return false;
  }

  // An array reached in the middle of the path (by parts[0 .. j)); parts[j] is the next
  // component.
  bool in_array(const array& arr, std::size_t j) {
    const component& c = parts[j];
    const bool last = j + 1 == parts.size();
    const std::size_t before = emitted;
    for (std::size_t idx = 0; idx < arr.size(); ++idx) {
      const value& x = arr[idx];
      const bool positional = c.index >= 0 && static_cast<std::size_t>(c.index) == idx;
      if (x.is_document()) {
        const object_view sub{&x.as_document(), nullptr};
        if (expanded(idx, j, [&] { return from(sub, j); })) return true;
        if (positional && (last ? emit(&x) : from(sub, j + 1))) return true;
      } else if (positional) {
        // The element at the index, as is: a nested array is not expanded at the end of the
        // path, and is walked one more level when the path goes on.
        if (last) {
          if (emit(&x)) return true;
        } else if (x.is_array() && in_array(x.as_array(), j + 1)) {
          return true;
        }
      }
    }
    // MongoDB 9.0: an array that yields nothing for the rest of the path (empty, only
    // scalars, nested arrays) leaves the path unresolved, and it evaluates as null.
    return arrays_yield_missing && emitted == before && emit(nullptr);
  }
};

}  // namespace

components split(std::string_view dotted) {
  components out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', start);
    std::string_view piece = dotted.substr(start, dot == std::string_view::npos ? dotted.npos
                                                                                 : dot - start);
    out.push_back(component{std::string(piece), index_of(piece)});
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

const value* object_view::get(const component& c) const {
  if (doc != nullptr) return find_field(*doc, c.name);
  if (arr != nullptr && c.index >= 0 && static_cast<std::size_t>(c.index) < arr->size()) {
    return &(*arr)[static_cast<std::size_t>(c.index)];
  }
  return nullptr;
}

bool walk(const object_view& root, const components& parts, leaf_arrays mode, visitor_ref visit) {
  if (parts.empty()) return false;
  return walker<false>{parts, mode, visit}.from(root, 0);
}

namespace {

// walk() with MongoDB 8.0's traversal: an array that yields nothing reports nothing (sort
// keys, index keys and distinct take "no value" as it always was).
bool walk_values(const object_view& root, const components& parts, leaf_arrays mode, visitor_ref visit) {
  if (parts.empty()) return false;
  return walker<false>{parts, mode, visit, false}.from(root, 0);
}

}  // namespace

bool walk_positional(const object_view& root, const components& parts, leaf_arrays mode,
                     positional_visitor_ref visit) {
  if (parts.empty()) return false;
  return walker<true>{parts, mode, visit}.from(root, 0);
}

}  // namespace omgdb::engine::path

namespace omgdb::engine {

void values_at_path(const document& doc, std::string_view dotted, std::vector<const value*>& out,
                    bool& missing) {
  const path::components parts = path::split(dotted);
  auto collect = [&](const value* v) {
    if (v == nullptr) {
      missing = true;
    } else {
      out.push_back(v);
    }
    return false;
  };
  path::walk_values(path::object_view{&doc, nullptr}, parts, path::leaf_arrays::elements_only, collect);
}

}  // namespace omgdb::engine
