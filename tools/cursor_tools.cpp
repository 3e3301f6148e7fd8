// The persisted read cursors of seeds/000: cursor_open, cursor_next, cursor_close
// (docs/cursors.md). A batch comes back as two text blocks: the documents as NDJSON (relaxed
// Extended JSON, one per line; empty when none are left), then
// {"returned":N,"exhausted":B,"token":"<32 hex>"}. exhausted true means the cursor is gone
// (removed by the store), so the token must not be used again.
#include "common/json.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;


namespace {

// Read scope, but they write cursor state: readOnlyHint false (seed, "Safety annotations").
constexpr mcp::annotations cursor_hints{false, false, false};

constexpr spec batch_spec{"Documents per batch.", 1, engine::store::k_cursor_max_batch};
constexpr spec token_spec{"The cursor's token (cursor_open returned it)."};

handler_result batch_result(engine::store::cursor_batch&& b) {
  mcp::tool_result r = mcp::tool_result::text(std::move(b.ndjson));
  r.texts.push_back(json::serialize(bj::object{{"returned", b.returned}, {"exhausted", b.exhausted}, {"token", b.token}}));
  return r;
}

struct open_args : in_collection {
  engine::store::cursor_request req;
  void fields(arg_list& a) {
    a.optional("filter", req.filter, filter_spec);
    a.optional("batchSize", req.batch_size, {batch_spec.description, batch_spec.min, batch_spec.max, "100"});
    a.optional("sort", req.sort, sort_spec);
    a.optional("project", req.projection, project_spec);
  }
};

handler_result open_cursor(open_args& a, const call& c) {
  a.req.max_bytes = c.ctx.max_result_bytes;
  a.req.owner = c.ctx.session_id;  // the per-session cap (store::k_cursor_max_per_owner)
  OMGDB_TRY(b, a.store->cursor_open(a.collection, a.req, c.scan()));
  return batch_result(std::move(b));
}

struct next_args : in_store {
  std::string token;
  engine::store::cursor_request req;
  void fields(arg_list& a) {
    a.required("token", token, token_spec);
    a.optional("batchSize", req.batch_size, {batch_spec.description, batch_spec.min, batch_spec.max, "the cursor's"});
  }
};

handler_result next_batch(next_args& a, const call& c) {
  a.req.max_bytes = c.ctx.max_result_bytes;
  OMGDB_TRY(b, a.store->cursor_next(a.token, a.req, c.scan()));
  return batch_result(std::move(b));
}

struct close_args : in_store {
  std::string token;
  void fields(arg_list& a) { a.required("token", token, token_spec); }
};

handler_result close_cursor(close_args& a, const call&) {
  OMGDB_CHECK(a.store->cursor_close(a.token));
  return json_text(bj::object{{"token", a.token}, {"closed", true}});
}

}  // namespace

const tool_def cursor_open_tool = define<open_args>(
    {"cursor_open", "Open a persisted read cursor and return the first batch (`batchSize` defaults to 100).",
     cursor_hints},
    open_cursor, mcp::result_shape::ndjson);
const tool_def cursor_next_tool =
    define<next_args>({"cursor_next", "Read and advance the next batch from a cursor.", cursor_hints}, next_batch,
        mcp::result_shape::ndjson);
const tool_def cursor_close_tool =
    define<close_args>({"cursor_close", "Close a cursor and remove its sidecar state.", cursor_hints}, close_cursor,
        mcp::result_shape::json_object);

}  // namespace omgdb::tools
