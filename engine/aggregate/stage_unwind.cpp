// $unwind: one output document per element of the array at a dotted path. A non-array,
// non-null value counts as a one-element array; null, missing and [] give no document unless
// preserveNullAndEmptyArrays (then the document with the index null: as it is for null and
// missing, without the field for [] — MongoDB's manual, "preserveNullAndEmptyArrays").
#include <utility>

#include "engine/aggregate/stage.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

const value* at_path(const document& d, const std::vector<std::string>& parts) {
  const document* cur = &d;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const value* v = find_field(*cur, parts[i]);
    if (v == nullptr) return nullptr;
    if (i + 1 == parts.size()) return v;
    if (!v->is_document()) return nullptr;
    cur = &v->as_document();
  }
  return nullptr;
}

// Removes the field at `parts` (through documents only).
void remove_at_path(document& d, const std::vector<std::string>& parts, std::size_t i = 0) {
  for (auto it = d.begin(); it != d.end(); ++it) {
    if (it->name != parts[i]) continue;
    if (i + 1 == parts.size()) {
      d.erase(it);
    } else if (it->val.is_document()) {
      remove_at_path(it->val.as_document(), parts, i + 1);
    }
    return;
  }
}

struct unwind_stage final : stage {
  std::string path;
  std::vector<std::string> parts;
  std::string index_field;
  bool preserve = false;

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    struct c final : cursor {
      cursor_ptr in;
      const unwind_stage& s;
      exec_ctx& ctx;
      document current;
      array elems;
      std::size_t pos = 0;
      // Each output copies `current`: the copy is charged to the call while it is the latest
      // output (`base`: what one copy holds, measured once per input document).
      call_hold held;
      std::uint64_t base = 0;
      c(cursor_ptr i, const unwind_stage& st, exec_ctx& x) : in(std::move(i)), s(st), ctx(x), held(*x.budget) {}

      bool next(document& out) override {
        held.reset();
        while (pos >= elems.size()) {
          ctx.poll();
          if (!in->next(current)) return false;
          elems.clear();
          pos = 0;
          const value* v = at_path(current, s.parts);
          if (v != nullptr && v->is_array() && !v->as_array().empty()) {
            // The array leaves `current` (a null holds its place), so each output copies the
            // document without it: copying it per element made an n-element unwind cost n².
            auto* slot = const_cast<value*>(v);
            elems = std::move(slot->as_array());
            *slot = value();
            base = measure_document(current, k_max_built_depth).bytes;
            continue;
          }
          if (v != nullptr && !v->is_null() && !v->is_array()) {
            out = std::move(current);  // a scalar: itself, index null
            if (!s.index_field.empty()) set_path(out, s.index_field, value());
            return true;
          }
          if (!s.preserve) continue;
          const bool empty_array = v != nullptr && v->is_array();
          out = std::move(current);
          if (empty_array) remove_at_path(out, s.parts);  // [] is dropped
          if (!s.index_field.empty()) set_path(out, s.index_field, value());
          return true;
        }
        ctx.poll();
        held.charge(base, "stage `$unwind`");  // before the copy is made
        out = current;
        held.adopt(set_path(out, s.path, std::move(elems[pos])));
        if (!s.index_field.empty()) held.adopt(set_path(out, s.index_field, value(static_cast<std::int64_t>(pos))));
        ++pos;
        if (pos == elems.size()) {  // the last copy: the array's memory goes with it
          elems.clear();
          elems.shrink_to_fit();
        }
        return true;
      }
    };
    return std::make_unique<c>(std::move(input), *this, ctx);
  }
};

}  // namespace

result<stage_ptr> compile_unwind(const value& spec, const compile_ctx&) {
  auto s = std::make_shared<unwind_stage>();
  const value* path = &spec;
  if (spec.is_document()) {
    for (const field& f : spec.as_document()) {
      if (f.name != "path" && f.name != "includeArrayIndex" && f.name != "preserveNullAndEmptyArrays") {
        return make_error("unrecognized option " + quoted(f.name));
      }
    }
    path = find_field(spec.as_document(), "path");
    if (path == nullptr) return make_error("no path specified");
    if (const value* idx = find_field(spec.as_document(), "includeArrayIndex")) {
      if (!idx->is_string() || idx->as_string().empty() || idx->as_string()[0] == '$') {
        return make_error("`includeArrayIndex` must be a non-empty string not starting with '$'");
      }
      if (auto p = field_path_parts(idx->as_string(), "`includeArrayIndex`"); !p) return std::move(p).error();
      s->index_field = idx->as_string();
    }
    if (const value* p = find_field(spec.as_document(), "preserveNullAndEmptyArrays")) {
      if (!p->is_bool()) return make_error("`preserveNullAndEmptyArrays` must be a boolean");
      s->preserve = p->as_bool();
    }
  }
  if (!path->is_string() || path->as_string().size() < 2 || path->as_string()[0] != '$') {
    return make_error("the path must be a field path starting with '$', e.g. \"$sizes\"");
  }
  s->path = path->as_string().substr(1);
  auto parts = field_path_parts(s->path, "path");
  if (!parts) return std::move(parts).error();
  s->parts = std::move(*parts);
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
