// The filter-driven write tools (scope `read-write`) of seeds/000: import_jsonl, update_one,
// update_many, delete_many, find_one_and_update, bulk_write. Results are compact JSON.
#include "engine/value/ejson.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;


namespace {

// filter, update and arrayFilters, straight into the request.
struct update_args : in_collection {
  engine::store::update_request req;
  void prefix(arg_list& a) {
    in_collection::prefix(a);
    a.required("filter", req.filter, filter_spec);
    a.required("update", req.update, update_spec);
    a.optional("arrayFilters", req.array_filters, array_filters_spec);
  }
};

struct update_one_args : update_args {
  void fields(arg_list& a) {
    a.optional("upsertDocument", req.upsert_document,
               {"When nothing matches: insert this document with the update applied ($setOnInsert too)."});
    a.optional("maxScannedDocuments", req.max_scanned_documents, max_scanned_spec);
  }
};

struct update_many_args : update_args {
  void fields(arg_list& a) {
    a.optional("maxScannedDocuments", req.max_scanned_documents, max_scanned_spec);
    a.optional("maxMutations", req.max_mutations, max_mutations_spec);
  }
};

struct delete_many_args : in_collection {
  engine::store::delete_request req;
  void fields(arg_list& a) {
    a.required("filter", req.filter, filter_spec);
    a.optional("maxScannedDocuments", req.max_scanned_documents, max_scanned_spec);
    a.optional("maxMutations", req.max_mutations, max_mutations_spec);
  }
};

struct find_one_and_update_args : update_args {
  void fields(arg_list& a) { a.optional("maxScannedDocuments", req.max_scanned_documents, max_scanned_spec); }
};

mcp::tool_result counts(const engine::store::update_result& r) {
  bj::object out{{"matchedCount", r.matched}, {"modifiedCount", r.modified}};
  if (r.upserted_id) out["upsertedId"] = engine::to_boost_json(*r.upserted_id);
  return json_text(out);
}

handler_result update_one(update_one_args& a, const call& c) {
  OMGDB_TRY(r, a.store->update_one(a.collection, a.req, c.scan()));
  return counts(r);
}

handler_result update_many(update_many_args& a, const call& c) {
  OMGDB_TRY(r, a.store->update_many(a.collection, a.req, c.scan()));
  return counts(r);
}

handler_result delete_many(delete_many_args& a, const call& c) {
  OMGDB_TRY(n, a.store->delete_many(a.collection, a.req, c.scan()));
  return json_text(bj::object{{"deletedCount", n}});
}

handler_result find_one_and_update(find_one_and_update_args& a, const call& c) {
  OMGDB_TRY(r, a.store->find_one_and_update(a.collection, a.req, c.scan()));
  auto image = [](const std::optional<engine::document>& d) -> bj::value {
    return d ? engine::to_boost_json(engine::value(*d)) : bj::value(nullptr);
  };
  return json_text(bj::object{{"before", image(r.before)}, {"after", image(r.after)}});
}

struct import_args : in_collection {
  std::string file;
  std::uint64_t batch_size = 1000;
  void fields(arg_list& a) {
    a.file("file", file, {"The JSON Lines file to read (one document per line; blank lines skipped)."});
    a.optional("batchSize", batch_size, {"Documents per atomic commit.", 1, {}, "1000"});
  }
};

handler_result import_jsonl(import_args& a, const call& c) {
  OMGDB_TRY(r, a.store->import_jsonl(a.collection, a.file, a.batch_size, c.scan()));
  return json_text(bj::object{{"imported", r.imported}, {"batches", r.batches}});
}

struct bulk_args : in_store {
  std::int64_t version = 0;
  engine::array operations;
  engine::store::bulk_options opts;
  void fields(arg_list& a) {
    a.required("version", version, {"The program format version (docs/bulk-write.md); currently 1."});
    a.required("operations", operations, {"The steps in order, e.g. {\"op\": \"insert\", \"collection\": …}."});
    a.optional("maxOperations", opts.max_operations, {"Refuse a program of more steps.", {}, {}, "1000"});
    a.optional("maxScannedDocumentsPerOperation", opts.max_scanned_documents_per_operation,
               {"Refuse a step that would scan more documents than this."});
    a.optional("maxMutations", opts.max_mutations, {"Refuse the program if it would change more documents in all."});
  }
};

bj::object step_json(const engine::store::bulk_step_result& r) {
  using kind = engine::store::bulk_step::kind;
  switch (r.op) {
    case kind::insert: return {{"op", "insert"}, {"insertedId", engine::to_boost_json(r.inserted_ids.at(0))}};
    case kind::insert_many: {
      bj::array ids;
      for (const auto& id : r.inserted_ids) ids.push_back(engine::to_boost_json(id));
      return {{"op", "insert_many"}, {"insertedCount", r.inserted_ids.size()}, {"insertedIds", std::move(ids)}};
    }
    case kind::update_one:
    case kind::update_many: {
      bj::object out{{"op", r.op == kind::update_one ? "update_one" : "update_many"},
                     {"matchedCount", r.matched}, {"modifiedCount", r.modified}};
      if (r.upserted_id) out["upsertedId"] = engine::to_boost_json(*r.upserted_id);
      return out;
    }
    case kind::replace: return {{"op", "replace"}, {"matchedCount", r.matched}, {"modifiedCount", r.modified}};
    case kind::delete_one: return {{"op", "delete"}, {"deletedCount", r.deleted}};
    case kind::delete_many: return {{"op", "delete_many"}, {"deletedCount", r.deleted}};
  }
  return {};
}

handler_result bulk_write(bulk_args& a, const call& c) {
  OMGDB_TRY(steps, engine::store::parse_bulk(a.version, a.operations));
  OMGDB_TRY(out, a.store->bulk_write(steps, a.opts, c.scan()));
  bj::array results;
  for (const auto& r : out) results.push_back(step_json(r));
  return json_text(bj::object{{"results", std::move(results)}});
}

}  // namespace

using auth::scope;
const tool_def import_jsonl_tool = define<import_args>(
    {"import_jsonl", "Stream a JSON Lines file in atomic batch commits (default 1000 per batch).", plain_write,
     scope::read_write},
    import_jsonl, mcp::result_shape::json_object);
const tool_def update_one_tool = define<update_one_args>(
    {"update_one", "Atomically update the canonical-`_id` first match; explicit-seed upsert only.", plain_write,
     scope::read_write},
    update_one, mcp::result_shape::json_object);
const tool_def update_many_tool = define<update_many_args>(
    {"update_many", "Update every match in one bounded atomic commit.", plain_write, scope::read_write}, update_many,
    mcp::result_shape::json_object);
const tool_def delete_many_tool = define<delete_many_args>(
    {"delete_many", "Delete every match in one bounded atomic commit.", plain_write, scope::read_write}, delete_many,
    mcp::result_shape::json_object);
const tool_def find_one_and_update_tool = define<find_one_and_update_args>(
    {"find_one_and_update", "Atomically update the first match and return its before/after images.", plain_write,
     scope::read_write},
    find_one_and_update, mcp::result_shape::json_object);
const tool_def bulk_write_tool = define<bulk_args>(
    {"bulk_write", "Ordered CRUD program as one atomic transaction; later steps read earlier writes.", plain_write,
     scope::read_write},
    bulk_write, mcp::result_shape::json_object);

}  // namespace omgdb::tools
