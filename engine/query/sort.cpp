// Sort specifications: compile, sort keys, comparison.
//
// A sort key is computed the way MongoDB does it, from the index keys the sort pattern would
// generate for the document (btree key generation): arrays at a path contribute one key per
// element, an empty array at the end of a path is `undefined` (below null), a missing field
// is null. Ascending order then takes the smallest key, descending the largest. With several
// sort fields the choice is joint: fields that go through the same array take their values
// from the same element ({"a.c": 1, "a.b": 1} on a: [{b: 4, c: 1}, {b: 1, c: 2}] sorts by
// (1, 4), not (1, 1)).
#include "engine/query/sort.hpp"

#include <algorithm>
#include <utility>

#include "engine/query/path.hpp"

namespace omgdb::engine {
namespace {

// Stands for an empty array at the end of a path (MongoDB's `undefined` key): sorts after
// MinKey and before null. In a sort key it is represented by an empty array value.
const value& undefined_marker() {
  static const value v{array{}};
  return v;
}

const value& null_marker() {
  static const value v;
  return v;
}

bool is_undefined(const value& v) { return v.is_array() && v.as_array().empty(); }

int sort_rank(const value& v) { return is_undefined(v) ? 0 : type_rank(v); }

int compare_sort_values(const value& a, const value& b) {
  const int ra = sort_rank(a), rb = sort_rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  if (ra == 0) return 0;
  const int c = compare(a, b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

using pick = std::pair<const array*, std::size_t>;  // an array expanded, and the element taken

struct occurrence {
  const value* v;
  std::vector<pick> picks;
};

// All index keys of one path, each with the array elements it was taken from.
class key_walker {
 public:
  key_walker(const path::components& parts, std::vector<occurrence>& out)
      : parts_(parts), out_(out) {}

  void from(path::object_view obj, std::size_t i) {
    for (std::size_t k = i; k < parts_.size(); ++k) {
      const value* v = obj.get(parts_[k]);
      if (v == nullptr) return emit(null_marker());
      if (v->is_array()) return in_array(*v, k + 1);
      if (k + 1 == parts_.size()) return emit(*v);
      if (!v->is_document()) return emit(null_marker());
      obj = path::object_view{&v->as_document(), nullptr};
    }
  }

 private:
  void emit(const value& v) { out_.push_back(occurrence{&v, picks_}); }

  // `arr` was reached with parts_[j…] left (none left: it ends the path).
  void in_array(const value& arr_value, std::size_t j) {
    const array& arr = arr_value.as_array();
    const bool terminal = j == parts_.size();
    if (arr.empty()) return emit(terminal ? undefined_marker() : null_marker());
    if (!terminal) {
      const path::component& c = parts_[j];
      if (c.index >= 0 && static_cast<std::size_t>(c.index) < arr.size()) {
        // Positional: only that element, taken as is at the end of the path.
        const value& x = arr[static_cast<std::size_t>(c.index)];
        if (j + 1 == parts_.size()) return emit(is_undefined(x) ? undefined_marker() : x);
        if (x.is_document()) return from(path::object_view{&x.as_document(), nullptr}, j + 1);
        if (x.is_array()) return in_array(x, j + 1);
        return emit(null_marker());
      }
    }
    for (std::size_t idx = 0; idx < arr.size(); ++idx) {
      const value& x = arr[idx];
      picks_.emplace_back(&arr, idx);
      if (terminal) {
        emit(x);  // a nested array is one key, not expanded
      } else if (x.is_document()) {
        from(path::object_view{&x.as_document(), nullptr}, j);
      } else {
        emit(null_marker());
      }
      picks_.pop_back();
    }
  }

  const path::components& parts_;
  std::vector<occurrence>& out_;
  std::vector<pick> picks_;
};

bool compatible(const std::vector<pick>& state, const std::vector<pick>& picks) {
  for (const pick& p : picks) {
    for (const pick& s : state) {
      if (s.first == p.first && s.second != p.second) return false;
    }
  }
  return true;
}

// `state` plus `picks`, keeping only the choices for arrays in `kept` (sorted).
std::vector<pick> merged(const std::vector<pick>& state, const std::vector<pick>& picks,
                         const std::vector<const array*>& kept) {
  std::vector<pick> out;
  auto keep = [&](const pick& p) {
    if (std::binary_search(kept.begin(), kept.end(), p.first) &&
        std::find(out.begin(), out.end(), p) == out.end()) {
      out.push_back(p);
    }
  };
  for (const pick& p : state) keep(p);
  for (const pick& p : picks) keep(p);
  std::sort(out.begin(), out.end());
  return out;
}

bool valid_direction(const value& v, bool& descending) {
  double d = 0;
  if (v.is_int32()) {
    d = v.as_int32();
  } else if (v.is_int64()) {
    d = static_cast<double>(v.as_int64());
  } else if (v.is_double()) {
    d = v.as_double();
  } else {
    return false;
  }
  descending = d == -1;
  return d == 1 || d == -1;
}

}  // namespace

result<sort_spec> sort_spec::compile(const document& spec) {
  sort_spec out;
  for (const field& f : spec) {
    const std::string& p = f.name;
    if (p.empty()) return make_error("sort path must not be empty");
    if (p.front() == '$') return make_error("sort path `" + p + "` must not start with '$'");
    if (p.front() == '.' || p.back() == '.' || p.find("..") != std::string::npos) {
      return make_error("sort path `" + p + "` has an empty component");
    }
    bool descending = false;
    if (!valid_direction(f.val, descending)) {
      return make_error("sort direction for `" + p + "` must be 1 or -1");
    }
    out.keys_.push_back(key{p, descending});
  }
  return out;
}

array sort_spec::sort_key(const document& doc) const {
  const std::size_t n = keys_.size();
  std::vector<std::vector<occurrence>> occurrences(n);
  for (std::size_t k = 0; k < n; ++k) {
    const path::components parts = path::split(keys_[k].path);
    key_walker(parts, occurrences[k]).from(path::object_view{&doc, nullptr}, 0);
  }
  // later[k]: the arrays that keys after k go through; a choice made for key k only needs
  // remembering for those.
  std::vector<std::vector<const array*>> later(n);
  for (std::size_t k = n; k-- > 1;) {
    later[k - 1] = later[k];
    for (const occurrence& o : occurrences[k]) {
      for (const pick& p : o.picks) later[k - 1].push_back(p.first);
    }
    std::sort(later[k - 1].begin(), later[k - 1].end());
    later[k - 1].erase(std::unique(later[k - 1].begin(), later[k - 1].end()), later[k - 1].end());
  }

  array out;
  out.reserve(n + 1);
  std::vector<std::vector<pick>> states(1);  // element choices compatible with the keys so far
  for (std::size_t k = 0; k < n; ++k) {
    const value* best = nullptr;
    std::vector<std::vector<pick>> next;
    for (const auto& state : states) {
      for (const occurrence& o : occurrences[k]) {
        if (!compatible(state, o.picks)) continue;
        int c = -1;  // the first candidate is the best so far
        if (best != nullptr) {
          c = compare_sort_values(*o.v, *best);
          if (keys_[k].descending) c = -c;
        }
        if (c < 0) {
          best = o.v;
          next.clear();
        }
        if (c <= 0) next.push_back(merged(state, o.picks, later[k]));
      }
    }
    if (best == nullptr) {  // not reachable: every path yields at least one key
      out.push_back(null_marker());
      continue;
    }
    out.push_back(*best);
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    states = std::move(next);
  }
  const value* id = find_field(doc, "_id");
  out.push_back(id != nullptr ? *id : null_marker());
  return out;
}

int sort_spec::compare_keys(const array& a, const array& b) const {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    int c = compare_sort_values(a[i], b[i]);
    if (i < keys_.size() && keys_[i].descending) c = -c;
    if (c != 0) return c;
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

int sort_spec::compare(const document& a, const document& b) const {
  return compare_keys(sort_key(a), sort_key(b));
}

}  // namespace omgdb::engine

namespace omgdb::engine {

std::size_t held_bytes(const document& d) {
  std::size_t n = sizeof(document) + d.capacity() * sizeof(field);
  for (const field& f : d) n += f.name.capacity() + held_bytes(f.val) - sizeof(value);
  return n;
}

std::size_t held_bytes(const value& v) {
  std::size_t n = sizeof(value);
  if (v.is_string()) return n + v.as_string().capacity();
  if (v.is_document()) return n + held_bytes(v.as_document());
  if (v.is_array()) {
    n += v.as_array().capacity() * sizeof(value);
    for (const value& e : v.as_array()) n += held_bytes(e) - sizeof(value);
    return n;
  }
  if (v.type() == kind::binary) return n + std::get<binary>(v.raw()).bytes.capacity();
  if (v.type() == kind::regex) return n + std::get<regex>(v.raw()).pattern.capacity();
  return n;
}

std::size_t sort_key_bytes(const array& key) {
  std::size_t n = sizeof(array) + key.capacity() * sizeof(value);
  for (const value& v : key) n += held_bytes(v) - sizeof(value);
  return n;
}

std::string limit_text(std::size_t bytes) {
  if (bytes != 0 && bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

std::string sort_limit_message(std::string_view who, std::uint64_t held, std::size_t limit, std::string_view remedy) {
  std::string m(who);
  m += " exceeded the sort memory limit of " + limit_text(limit) + " (it holds the sort entries of " +
       std::to_string(held) + " documents and does not spill to disk): ";
  m += remedy;
  return m;
}

}  // namespace omgdb::engine
