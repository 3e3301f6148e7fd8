// Object expression operators: $mergeObjects, $getField, $setField, $unsetField,
// $objectToArray, $arrayToObject.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine::expr_detail {
namespace {

void set_or_append(document& d, const std::string& name, value v) {
  if (value* existing = find_field(d, name)) {
    *existing = std::move(v);
  } else {
    d.push_back(field{name, std::move(v)});
  }
}

// A document built field by field where a repeated name replaces the earlier value in its
// place: an index of the names makes that O(1) per field (find_field made it O(n²)), and each
// field is charged as it is added.
class document_builder {
 public:
  document_builder(eval_ctx& ctx, std::string_view what) : ctx_(ctx), what_(what) {}
  void set(const std::string& name, const value& v) {
    charge_built(ctx_, held_extra(v) + (name.size() > 15 ? name.size() : 0), what_);
    auto [it, fresh] = index_.try_emplace(name, out_.size());
    if (!fresh) {  // the replaced value was charged when it was set: give that back
      ctx_.budget.release(held_extra(out_[it->second].val));
      out_[it->second].val = v;
      return;
    }
    if (out_.size() == out_.capacity()) {
      const std::size_t cap = std::max<std::size_t>(8, out_.capacity() * 2);
      charge_built(ctx_, (cap - out_.capacity()) * (sizeof(field) + 48), what_);  // the slot and its index entry
      out_.reserve(cap);
    }
    out_.push_back(field{name, v});
  }
  document take() { return std::move(out_); }

 private:
  eval_ctx& ctx_;
  std::string_view what_;
  document out_;
  std::unordered_map<std::string, std::size_t> index_;
};

expr_value merge_objects_op(const op_node& self, eval_ctx& ctx) {
  document_builder out(ctx, self.name);
  for (std::size_t i = 0; i < self.args.size(); ++i) {
    expr_value v = self.arg(i, ctx);
    if (nullish(v)) continue;
    if (!v->is_document()) fail("$mergeObjects requires object inputs, but input is of type " + type_name(*v));
    for (const field& f : v->as_document()) out.set(f.name, f.val);
  }
  return value(out.take());
}

std::string field_name(const op_node& self, eval_ctx& ctx) {
  expr_value f = self.arg(0, ctx);
  if (!f || !f->is_string()) fail(self.name + " requires 'field' to evaluate to type String, but got " + type_name(f));
  return f->as_string();
}

// {$getField: {field, input?}} (input defaults to $$CURRENT); {$getField: "name"} too.
expr_value get_field_op(const op_node& self, eval_ctx& ctx) {
  const std::string name = field_name(self, ctx);
  expr_value in = self.has(1) ? self.arg(1, ctx) : expr_value(value(ctx.root));
  if (nullish(in)) return value();
  if (!in->is_document()) fail("$getField requires 'input' to evaluate to type Object, but got " + type_name(*in));
  const value* v = find_field(in->as_document(), name);
  if (v == nullptr) return std::nullopt;
  return *v;
}

// {$setField: {field, input, value}}; value $$REMOVE removes the field ($unsetField).
expr_value set_field_op(const op_node& self, eval_ctx& ctx) {
  const std::string name = field_name(self, ctx);
  expr_value in = self.arg(1, ctx);
  if (nullish(in)) return value();
  if (!in->is_document()) fail(self.name + " requires 'input' to evaluate to type Object, but got " + type_name(*in));
  charge_built(ctx, measure_document(in->as_document(), k_max_built_depth).bytes, self.name);
  document out = in->as_document();
  expr_value v = self.name == "$unsetField" ? expr_value{} : self.arg(2, ctx);
  if (!v) {
    std::erase_if(out, [&](const field& f) { return f.name == name; });
  } else {
    set_or_append(out, name, std::move(*v));
  }
  return value(std::move(out));
}

expr_value object_to_array_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return value();
  if (!v->is_document()) fail("$objectToArray requires a document input, found: " + type_name(*v));
  array out;
  reserve_built(ctx, out, v->as_document().size(), self.name);
  for (const field& f : v->as_document()) {
    charge_built(ctx, 2 * sizeof(field) + sizeof(document) + held_extra(f.val) + (f.name.size() > 15 ? f.name.size() : 0),
                 self.name);
    push_built(ctx, out, value(document{{"k", value(f.name)}, {"v", f.val}}), self.name);
  }
  return value(std::move(out));
}

void check_name(const std::string& name) {
  if (name.find('\0') != std::string::npos) fail("$arrayToObject: field names must not contain a null byte");
  if (!name.empty() && name.front() == '$') fail("$arrayToObject: field name " + quoted(name) + " must not start with '$'");
}

expr_value array_to_object_op(const op_node& self, eval_ctx& ctx) {
  expr_value v = self.arg(0, ctx);
  if (nullish(v)) return value();
  if (!v->is_array()) fail("$arrayToObject requires an array input, found: " + type_name(*v));
  document_builder out(ctx, self.name);
  for (const value& e : v->as_array()) {
    if (e.is_array()) {
      const array& pair = e.as_array();
      if (pair.size() != 2) fail("$arrayToObject requires an array of size 2 arrays, found array of size: " + std::to_string(pair.size()));
      if (!pair[0].is_string()) fail("$arrayToObject requires an array of key-value pairs, where the key must be of type string. Found key type: " + type_name(pair[0]));
      check_name(pair[0].as_string());
      out.set(pair[0].as_string(), pair[1]);
    } else if (e.is_document()) {
      const value* k = find_field(e.as_document(), "k");
      const value* val = find_field(e.as_document(), "v");
      if (k == nullptr || val == nullptr || e.as_document().size() != 2) {
        fail("$arrayToObject requires an object with keys 'k' and 'v'");
      }
      if (!k->is_string()) fail("$arrayToObject requires an object with keys 'k' and 'v', where the value of 'k' must be of type string. Found type: " + type_name(*k));
      check_name(k->as_string());
      out.set(k->as_string(), *val);
    } else {
      fail("$arrayToObject requires an array of arrays or documents, found: " + type_name(e));
    }
  }
  return value(out.take());
}

constexpr op_info ops[] = {
    {"$mergeObjects", 0, -1, merge_objects_op},
    {"$getField", 1, 1, get_field_op, "field,input?"},
    {"$setField", -1, -1, set_field_op, "field,input,value"},
    {"$unsetField", -1, -1, set_field_op, "field,input"},
    {"$objectToArray", 1, 1, object_to_array_op},
    {"$arrayToObject", 1, 1, array_to_object_op},
};

}  // namespace

op_table object_ops() { return table_of(ops); }

}  // namespace omgdb::engine::expr_detail
