// The read tools (scope `read`) of seeds/000 that are not cursors, indexes, rules or integrity.
// find's continuation note and distinct's result format are documented in docs/query-language.md.
#include <string>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "tools/catalog.hpp"
#include "tools/result_bound.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::tool_result;

namespace {

struct get_args : in_collection {
  engine::value id;
  void fields(arg_list& a) {
    a.required("id", id, {"The `_id` to fetch (Extended JSON such as {\"$oid\": \"…\"} for typed values)."});
  }
};

handler_result get(get_args& a, const call&) {
  OMGDB_TRY(text, a.store->get_json(a.collection, a.id));
  return tool_result::text(text ? std::move(*text) : std::string("null"));
}

handler_result inspect(in_store& a, const call&) {
  OMGDB_TRY(colls, a.store->collections());
  bj::array list;
  for (const auto& c : colls) list.push_back(bj::object{{"name", c.name}, {"documents", c.documents}});
  return json_text(bj::object{{"path", a.store->path()}, {"collections", std::move(list)}});
}

handler_result list_collections(in_store& a, const call&) {
  OMGDB_TRY(colls, a.store->collections());
  bj::array names;
  for (const auto& c : colls) names.emplace_back(c.name);
  return json_text(names);
}

struct find_args : in_collection {
  engine::document filter, sort, project;
  std::optional<std::uint64_t> skip, limit;
  std::optional<engine::value> after_id;
  std::optional<engine::document> after_sort_key;
  void fields(arg_list& a) {
    a.optional("filter", filter, filter_spec);
    a.optional("sort", sort, sort_spec);
    a.optional("skip", skip, {"Matching documents to pass over first.", {}, {}, "0"});
    a.optional("limit", limit, {"Most documents to return; default all (up to the reply size limit)."});
    a.optional("afterId", after_id, {"Continue after this `_id` (from the previous page's note)."});
    a.optional("afterSortKey", after_sort_key, {"Continue after these sort values (from the previous page's note)."});
    a.optional("project", project, project_spec);
  }
};

// The note after a page that did not hold every match: how to get the next one.
std::string continuation_note(const engine::find_page& page, std::size_t max_bytes) {
  std::string keyset = "\"afterId\": " + engine::to_json(page.last_id);
  if (page.last_sort_key) keyset += ", \"afterSortKey\": " + engine::to_json(*page.last_sort_key);
  std::string out;
  if (page.truncated) {
    out = "Result cut at the " + size_text(max_bytes) + " reply limit after " + std::to_string(page.returned) +
          " documents. ";
  }
  out += "More documents match: to continue, call `find` again with the same filter, sort, project and "
         "limit, no `skip`, and " + keyset;
  if (page.truncated) out += " (or the same arguments with \"skip\": " + std::to_string(page.next_skip) + ")";
  return out + ".";
}

// The same as arguments to merge into the next call: {"afterId": …[, "afterSortKey": …]
// [, "skip": n]} (skip: the alternative to the keyset, only when the page was cut).
bj::object continuation_of(const engine::find_page& page) {
  bj::object out;
  auto as_json = [](const std::string& text) {
    auto v = json::parse_strict(text);
    return v ? bj::value(std::move(*v)) : bj::value(text);
  };
  out["afterId"] = as_json(engine::to_json(page.last_id));
  if (page.last_sort_key) out["afterSortKey"] = as_json(engine::to_json(*page.last_sort_key));
  if (page.truncated) out["skip"] = page.next_skip;
  return out;
}

handler_result find(find_args& a, const call& c) {
  engine::find_options opts;
  opts.filter = std::move(a.filter);
  opts.sort = std::move(a.sort);
  opts.skip = a.skip.value_or(0);
  opts.limit = a.limit;
  opts.after_id = std::move(a.after_id);
  opts.after_sort_key = std::move(a.after_sort_key);
  opts.projection = std::move(a.project);
  opts.max_bytes = c.ctx.max_result_bytes;
  OMGDB_TRY(page, a.store->find(a.collection, opts, c.scan()));
  tool_result r = tool_result::text(std::move(page.ndjson));
  if (page.more) {
    r.texts.push_back(continuation_note(page, c.ctx.max_result_bytes));
    r.structured_extra["continuation"] = continuation_of(page);
  }
  return r;
}

struct count_args : in_collection {
  engine::document filter;
  void fields(arg_list& a) { a.optional("filter", filter, filter_spec); }
};

handler_result count_documents(count_args& a, const call& c) {
  OMGDB_TRY(n, a.store->count(a.collection, a.filter, c.scan()));
  return json_text(bj::object{{"count", n}});
}

struct distinct_args : in_collection {
  std::string field;
  engine::document filter;
  std::uint64_t max_values = 1000;
  void fields(arg_list& a) {
    a.required("field", field, {"Dotted field path whose distinct values to return, e.g. `item.sku`."});
    a.optional("filter", filter, filter_spec);
    a.optional("maxValues", max_values, {"Most values to return (the first in BSON order).", 1, {}, "1000"});
  }
};

// Distinct values counted for "distinctCount" when `maxValues` cut the answer (a second pass).
constexpr std::uint64_t k_distinct_count_cap = 100000;

// {"values":[…],"count":N,"truncated":B}, values cut to fit the reply limit if need be; when
// cut, "distinctCount" says how many distinct values there are.
handler_result distinct(distinct_args& a, const call& c) {
  OMGDB_TRY(found, a.store->distinct(a.collection, a.field, a.filter, a.max_values, c.scan()));
  std::uint64_t distinct_count = found.values.size();
  bool capped = found.truncated && a.max_values >= k_distinct_count_cap;
  if (found.truncated && !capped) {
    OMGDB_TRY(all, a.store->distinct(a.collection, a.field, a.filter, k_distinct_count_cap, c.scan()));
    distinct_count = all.values.size();
    capped = all.truncated;
  }
  const std::size_t max_bytes = c.ctx.max_result_bytes;
  std::string values;
  std::string piece;
  std::size_t count = 0;
  bool cut_by_bytes = false;
  for (const auto& v : found.values) {
    piece.clear();
    engine::append_json(piece, v);
    if (values.size() + piece.size() + 128 > max_bytes && count > 0) {
      cut_by_bytes = true;
      break;
    }
    if (count > 0) values += ',';
    values += piece;
    ++count;
  }
  const bool truncated = found.truncated || cut_by_bytes;
  std::string text = "{\"values\":[" + values + "],\"count\":" + std::to_string(count) +
                     ",\"truncated\":" + (truncated ? "true" : "false");
  if (truncated) {
    text += ",\"distinctCount\":" + std::to_string(distinct_count);
    if (capped) text += ",\"distinctCountIsLowerBound\":true";
  }
  tool_result r = tool_result::text(text + "}");
  if (cut_by_bytes) {
    r.texts.push_back("Values cut at the " + size_text(max_bytes) + " reply limit after " + std::to_string(count) +
                      " values (the first ones in BSON order). Narrow `filter` to see the rest.");
  } else if (found.truncated) {
    r.texts.push_back("More distinct values exist: these are the first " + std::to_string(count) +
                      " in BSON order (`maxValues` " + std::to_string(a.max_values) +
                      "). Raise `maxValues` or narrow `filter` to see the rest.");
  }
  return r;
}

handler_result describe(in_store& a, const call&) {
  OMGDB_TRY(md, a.store->describe());
  return tool_result::text(std::move(md));
}

handler_result dump(in_store& a, const call& c) {
  const std::size_t max_bytes = c.ctx.max_result_bytes;
  std::string out;
  std::size_t lines = 0;
  bool cut = false;
  OMGDB_CHECK(a.store->dump(
      [&](std::string_view line) {
        if (out.size() + line.size() + 1 > max_bytes) return !(cut = true);
        out.append(line);
        out.push_back('\n');
        ++lines;
        return true;
      },
      c.scan()));
  tool_result r = tool_result::text(std::move(out));
  if (cut) {
    r.texts.push_back("Dump cut at the " + size_text(max_bytes) + " reply limit after " + std::to_string(lines) +
                      " lines. For the complete export run `omgdb dump " + a.store->path() +
                      "` on the command line, or page through each collection with `find` and `afterId`.");
  }
  return r;
}

}  // namespace

const tool_def get_tool = define<get_args>(
    {"get", "Fetch one document by exact `_id`.", read_only, auth::scope::read,
     // one point lookup: may run on a transport's thread (mcp/tool.hpp) once a call has opened the store
     true, "path"},
    get, mcp::result_shape::json_value);
const tool_def inspect_tool =
    define<in_store>({"inspect", "List collections and document counts as JSON.", read_only}, inspect,
        mcp::result_shape::json_object);
const tool_def list_collections_tool = define<in_store>(
    {"list_collections", "Every known collection in stable name order.", read_only}, list_collections,
    mcp::result_shape::json_array);
const tool_def find_tool = define<find_args>(
    {"find", "Find documents matching a MongoDB-style filter; returns NDJSON.", read_only}, find,
    mcp::result_shape::ndjson);
const tool_def count_documents_tool = define<count_args>(
    {"count_documents", "Count matching documents through the direct query planner.", read_only}, count_documents,
    mcp::result_shape::json_object);
const tool_def distinct_tool = define<distinct_args>(
    {"distinct", "Deterministic distinct values for a dotted field path.", read_only}, distinct,
    mcp::result_shape::json_object);
const tool_def describe_tool = define<in_store>({"describe", "Markdown manual of the database.", read_only}, describe);
const tool_def dump_tool =
    define<in_store>({"dump", "Deterministic canonical export of every document.", read_only}, dump,
        mcp::result_shape::ndjson);

}  // namespace omgdb::tools
