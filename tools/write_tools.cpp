// The `_id` write tools and the collection tools of seeds/000: insert, insert_many, replace,
// delete, create_collection (scope `read-write`) and drop_collection (scope `dangerous`).
#include "engine/value/ejson.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

namespace {

constexpr spec id_spec{"The document's exact `_id` (Extended JSON such as {\"$oid\": \"…\"} for typed values)."};

struct insert_args : in_collection {
  engine::document document;
  void fields(arg_list& a) {
    a.required("document", document, {"The document; an ObjectId `_id` is generated when it has none."});
  }
};

handler_result insert(insert_args& a, const call&) {
  OMGDB_TRY(id, a.store->insert(a.collection, std::move(a.document)));
  return json_text(bj::object{{"insertedId", engine::to_boost_json(id)}});
}

struct insert_many_args : in_collection {
  std::vector<engine::document> documents;
  void fields(arg_list& a) {
    a.required("documents", documents,
               {"The documents, all inserted or none.", {}, {}, {}, "; nothing was inserted"});
  }
};

handler_result insert_many(insert_many_args& a, const call& c) {
  OMGDB_TRY(ids, a.store->insert_many(a.collection, std::move(a.documents), c.scan()));
  bj::array list;
  for (const auto& id : ids) list.push_back(engine::to_boost_json(id));
  return json_text(bj::object{{"insertedCount", ids.size()}, {"insertedIds", std::move(list)}});
}

struct replace_args : in_collection {
  engine::value id;
  engine::document document;
  void fields(arg_list& a) {
    a.required("id", id, id_spec);
    a.required("document", document, {"The new document; an `_id` in it must equal `id`."});
  }
};

handler_result replace(replace_args& a, const call&) {
  OMGDB_TRY(r, a.store->replace(a.collection, a.id, std::move(a.document)));
  return json_text(bj::object{{"matchedCount", r.matched}, {"modifiedCount", r.modified}});
}

struct delete_args : in_collection {
  engine::value id;
  void fields(arg_list& a) { a.required("id", id, id_spec); }
};

handler_result remove_one(delete_args& a, const call&) {
  OMGDB_TRY(n, a.store->remove(a.collection, a.id));
  return json_text(bj::object{{"deletedCount", n}});
}

handler_result create_collection(in_collection& a, const call&) {
  OMGDB_TRY(created, a.store->create_collection(a.collection));
  return json_text(bj::object{{"collection", a.collection}, {"created", created}});
}

handler_result drop_collection(in_collection& a, const call&) {
  OMGDB_TRY(n, a.store->drop_collection(a.collection));
  return json_text(bj::object{{"collection", a.collection}, {"dropped", true}, {"deletedDocuments", n}});
}

}  // namespace

using auth::scope;
const tool_def insert_tool = define<insert_args>(
    {"insert", "Insert one document; returns the assigned `_id`.", plain_write, scope::read_write}, insert,
    mcp::result_shape::json_object);
const tool_def insert_many_tool = define<insert_many_args>(
    {"insert_many", "Atomically insert an array of documents in one durable transaction.", plain_write,
     scope::read_write},
    insert_many, mcp::result_shape::json_object);
const tool_def replace_tool = define<replace_args>(
    {"replace", "Replace one document by exact `_id`, preserving `_id` identity.", plain_write, scope::read_write},
    replace, mcp::result_shape::json_object);
const tool_def delete_tool = define<delete_args>(
    {"delete", "Delete one document by exact `_id`.", {false, true, true}, scope::read_write}, remove_one,
    mcp::result_shape::json_object);
const tool_def create_collection_tool = define<in_collection>(
    {"create_collection", "Create an explicitly cataloged collection, including an empty one.", plain_write,
     scope::read_write},
    create_collection, mcp::result_shape::json_object);
const tool_def drop_collection_tool = define<in_collection>(
    {.name = "drop_collection",
     .description = "Drop a collection with all of its documents and index metadata. The only tool above "
                    "`read-write`: it is never advertised or callable unless the server was started with "
                    "`--scope dangerous`.",
     .hints = plain_write,
     .scope = scope::dangerous,
     .note_missing_collection = false},
    drop_collection, mcp::result_shape::json_object);

}  // namespace omgdb::tools
