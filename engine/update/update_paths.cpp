// Walking and creating update paths inside a document; path order; value identity.
#include <bit>
#include <cstring>

#include "engine/value/ejson.hpp"
#include "engine/update/update_detail.hpp"

namespace omgdb::engine {
namespace update_detail {

int compare_paths(const concrete& a, const concrete& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i].index >= 0 && b[i].index >= 0) {
      if (a[i].index != b[i].index) return a[i].index < b[i].index ? -1 : 1;
      continue;
    }
    if (int c = a[i].name.compare(b[i].name); c != 0) return c < 0 ? -1 : 1;
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

bool is_prefix(const concrete& a, const concrete& b) {
  if (a.size() > b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name) return false;
  }
  return true;
}

std::string join(const concrete& p, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < p.size() && i < count; ++i) {
    if (i != 0) out.push_back('.');
    out += p[i].name;
  }
  return out;
}

std::string show(const value& v) {
  std::string s = to_json(v);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string type_name(const value& v) { return std::string(bson_type_alias(v)); }

namespace {

// The field position of `name` in `doc`, or npos.
std::size_t field_pos(const document& doc, std::string_view name) {
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (doc[i].name == name) return i;
  }
  return std::string::npos;
}

failure not_viable(const concrete& at, std::size_t i, const value& here, const std::string& op_name) {
  return make_error(op_name + " at `" + join(at) + "`: cannot create field `" + at[i].name +
                    "` in element {" + at[i - 1].name + ": " + show(here) + "}");
}

}  // namespace

std::optional<slot> find_existing(document& root, const concrete& at) {
  document* doc = &root;
  array* arr = nullptr;
  for (std::size_t i = 0; i < at.size(); ++i) {
    slot s;
    if (doc != nullptr) {
      std::size_t p = field_pos(*doc, at[i].name);
      if (p == std::string::npos) return std::nullopt;
      s = slot{doc, nullptr, p, &(*doc)[p].val};
    } else {
      if (at[i].index < 0 || static_cast<std::size_t>(at[i].index) >= arr->size()) return std::nullopt;
      std::size_t p = static_cast<std::size_t>(at[i].index);
      s = slot{nullptr, arr, p, &(*arr)[p]};
    }
    if (i + 1 == at.size()) return s;
    doc = s.val->is_document() ? &s.val->as_document() : nullptr;
    arr = s.val->is_array() ? &s.val->as_array() : nullptr;
    if (doc == nullptr && arr == nullptr) return std::nullopt;
  }
  return std::nullopt;
}

result<value*> find_or_create(document& root, const concrete& at, const std::string& op_name,
                              bool& created) {
  created = false;
  value* here = nullptr;  // the value holding the current container (nullptr: root)
  document* doc = &root;
  array* arr = nullptr;
  for (std::size_t i = 0; i < at.size(); ++i) {
    const bool last = i + 1 == at.size();
    value* next = nullptr;
    if (doc != nullptr) {
      std::size_t p = field_pos(*doc, at[i].name);
      if (p == std::string::npos) {
        doc->push_back(field{at[i].name, last ? value() : value(document{})});
        created = created || last;
        next = &doc->back().val;
      } else {
        next = &(*doc)[p].val;
      }
    } else {
      if (at[i].index < 0) return not_viable(at, i, *here, op_name);
      std::size_t p = static_cast<std::size_t>(at[i].index);
      if (p >= arr->size()) {
        if (p - arr->size() > 1'000'000) {
          return make_error(op_name + " at `" + join(at) + "`: the array index " + at[i].name +
                            " is too far past the end of the array (" + std::to_string(arr->size()) +
                            " elements)");
        }
        arr->resize(p + 1);  // pads with nulls, as MongoDB does
        if (!last) (*arr)[p] = value(document{});
        created = created || last;
      }
      next = &(*arr)[p];
    }
    if (last) return next;
    if (next->is_document()) {
      doc = &next->as_document();
      arr = nullptr;
    } else if (next->is_array()) {
      doc = nullptr;
      arr = &next->as_array();
    } else {
      return not_viable(at, i + 1, *next, op_name);
    }
    here = next;
  }
  return make_error("an empty update path is not valid");
}

}  // namespace update_detail

bool identical(const document& a, const document& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || !identical(a[i].val, b[i].val)) return false;
  }
  return true;
}

bool identical(const value& a, const value& b) {
  if (a.raw().index() != b.raw().index()) return false;
  if (a.is_double()) {
    return std::bit_cast<std::uint64_t>(a.as_double()) == std::bit_cast<std::uint64_t>(b.as_double());
  }
  if (a.is_document()) return identical(a.as_document(), b.as_document());
  if (a.is_array()) {
    const auto& x = a.as_array();
    const auto& y = b.as_array();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!identical(x[i], y[i])) return false;
    }
    return true;
  }
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, document> || std::is_same_v<T, array>) {
          return false;  // handled above
        } else {
          return x == std::get<T>(b.raw());
        }
      },
      a.raw());
}

}  // namespace omgdb::engine
