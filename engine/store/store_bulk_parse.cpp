// omgdb engine — parsing a bulk_write program (the format is docs/bulk-write.md).
//
// Each operation is a document {"op": <name>, "collection": <name>, …} whose other fields are
// those of the tool of the same name: insert {document}, insert_many {documents}, update_one
// {filter, update, arrayFilters?, upsertDocument?}, update_many {filter, update,
// arrayFilters?}, replace {id, document}, delete {id}, delete_many {filter}. Unknown fields
// are errors with a did-you-mean hint, so a typo never silently widens a write.
#include <algorithm>
#include <map>

#include "engine/value/ejson.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

using kind = store::bulk_step::kind;

struct op_shape {
  kind k;
  std::vector<std::string> required;
  std::vector<std::string> optional;
};

const std::map<std::string, op_shape, std::less<>>& shapes() {
  static const std::map<std::string, op_shape, std::less<>> table{
      {"insert", {kind::insert, {"document"}, {}}},
      {"insert_many", {kind::insert_many, {"documents"}, {}}},
      {"update_one", {kind::update_one, {"filter", "update"}, {"arrayFilters", "upsertDocument"}}},
      {"update_many", {kind::update_many, {"filter", "update"}, {"arrayFilters"}}},
      {"replace", {kind::replace, {"id", "document"}, {}}},
      {"delete", {kind::delete_one, {"id"}, {}}},
      {"delete_many", {kind::delete_many, {"filter"}, {}}},
  };
  return table;
}

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const auto& [name, shape] : shapes()) out.push_back(name);
  return out;
}

std::string hint(std::string_view name, const std::vector<std::string>& candidates) {
  std::string close = closest_name(name, candidates);
  return close.empty() ? "" : " (did you mean `" + close + "`?)";
}

result<document> need_document(const value& v, std::string_view field_name) {
  if (!v.is_document()) return make_error("`" + std::string(field_name) + "` must be an object");
  return v.as_document();
}

status fill(store::bulk_step& step, const field& f) {
  if (f.name == "document") {
    auto d = need_document(f.val, f.name);
    if (!d) return std::move(d).error();
    step.documents.push_back(std::move(*d));
  } else if (f.name == "documents") {
    if (!f.val.is_array()) return make_error("`documents` must be an array of objects");
    for (std::size_t i = 0; i < f.val.as_array().size(); ++i) {
      const value& e = f.val.as_array()[i];
      if (!e.is_document()) return make_error("`documents` element " + std::to_string(i) + " must be an object");
      step.documents.push_back(e.as_document());
    }
  } else if (f.name == "filter" || f.name == "update" || f.name == "upsertDocument") {
    auto d = need_document(f.val, f.name);
    if (!d) return std::move(d).error();
    if (f.name == "filter") step.update.filter = std::move(*d);
    else if (f.name == "update") step.update.update = std::move(*d);
    else step.update.upsert_document = std::move(*d);
  } else if (f.name == "arrayFilters") {
    if (!f.val.is_array()) return make_error("`arrayFilters` must be an array of objects");
    step.update.array_filters = f.val.as_array();
  } else if (f.name == "id") {
    if (f.val.is_array()) return make_error("`id` must not be an array (an `_id` is never an array)");
    step.id = f.val;
  }
  return {};
}

result<store::bulk_step> parse_step(const document& op) {
  const value* name = find_field(op, "op");
  if (name == nullptr || !name->is_string()) {
    return make_error("missing `op` (one of insert, insert_many, update_one, update_many, replace, "
                      "delete, delete_many)");
  }
  auto shape = shapes().find(name->as_string());
  if (shape == shapes().end()) {
    return make_error("unknown op `" + name->as_string() + "`" + hint(name->as_string(), op_names()));
  }
  const value* coll = find_field(op, "collection");
  if (coll == nullptr || !coll->is_string() || coll->as_string().empty()) {
    return make_error("missing `collection` (a non-empty string)");
  }
  store::bulk_step step;
  step.op = shape->second.k;
  step.collection = coll->as_string();
  std::vector<std::string> allowed{"op", "collection"};
  allowed.insert(allowed.end(), shape->second.required.begin(), shape->second.required.end());
  allowed.insert(allowed.end(), shape->second.optional.begin(), shape->second.optional.end());
  for (const auto& f : op) {
    if (std::find(allowed.begin(), allowed.end(), f.name) == allowed.end()) {
      return make_error("unknown field `" + f.name + "` for op `" + name->as_string() + "`" + hint(f.name, allowed));
    }
    if (auto s = fill(step, f); !s) return std::move(s).error();
  }
  for (const auto& r : shape->second.required) {
    if (find_field(op, r) == nullptr) {
      return make_error("missing `" + r + "` for op `" + name->as_string() + "`");
    }
  }
  return step;
}

}  // namespace

result<std::vector<store::bulk_step>> store::parse_bulk(std::int64_t version, const array& operations) {
  if (version != 1) {
    return make_error("unsupported bulk_write version " + std::to_string(version) +
                      ": this server understands version 1 (see docs/bulk-write.md)");
  }
  std::vector<bulk_step> steps;
  steps.reserve(operations.size());
  for (std::size_t i = 0; i < operations.size(); ++i) {
    const std::string where = "operations[" + std::to_string(i) + "]";
    if (!operations[i].is_document()) return make_error(where + " must be an object");
    auto step = parse_step(operations[i].as_document());
    if (!step) return make_error(where + ": " + step.error().message, step.error().kind);
    steps.push_back(std::move(*step));
  }
  return steps;
}

}  // namespace omgdb::engine
