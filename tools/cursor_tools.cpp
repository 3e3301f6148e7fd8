// The cursor tools. A batch comes back as two text blocks: the documents as NDJSON (relaxed
// Extended JSON, one per line; empty when none are left), then
// {"returned":N,"exhausted":B,"token":"<32 hex>"}. exhausted true means the cursor is gone
// (removed by the store), so the token must not be used again. docs/cursors.md.
#include <string>

#include "common/json.hpp"
#include "tools/args.hpp"
#include "tools/cursor_tools.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::param;
using mcp::param_type;
using mcp::tool_result;

namespace {

// Read scope, but they write cursor state: readOnlyHint false (seed, "Safety annotations").
const mcp::annotations cursor_hints{false, false, false};

param p_token{"token", param_type::string, true};
param p_batch_size{"batchSize", param_type::integer, false};

// batchSize when given (1 to 10000); none: the engine's default (100 when opening, the
// cursor's own size when continuing).
result<std::optional<std::uint64_t>> batch_size_arg(const bj::object& args) {
  auto n = optional_count(args, "batchSize");
  if (!n) return std::move(n).error();
  if (!*n) return n;
  const std::uint64_t v = **n;
  if (v == 0 || v > engine::store::k_cursor_max_batch) {
    return make_error("argument `batchSize` must be 1 to " + std::to_string(engine::store::k_cursor_max_batch) + ", got " +
                      std::to_string(v));
  }
  return n;
}

tool_result batch_result(engine::store::cursor_batch&& b) {
  tool_result r = tool_result::text(std::move(b.ndjson));
  r.texts.push_back(json::serialize(
      bj::object{{"returned", b.returned}, {"exhausted", b.exhausted}, {"token", b.token}}));
  return r;
}

tool_result open_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  engine::store::cursor_request req;
  auto filter = document_arg(args, "filter");
  if (!filter) return tool_result::failure(filter.error().message);
  auto sort = document_arg(args, "sort");
  if (!sort) return tool_result::failure(sort.error().message);
  auto project = document_arg(args, "project");
  if (!project) return tool_result::failure(project.error().message);
  auto batch = batch_size_arg(args);
  if (!batch) return tool_result::failure(batch.error().message);
  req.filter = std::move(*filter);
  req.sort = std::move(*sort);
  req.projection = std::move(*project);
  req.batch_size = *batch;
  req.max_bytes = ctx.max_result_bytes;
  auto b = (*st)->cursor_open(*coll, req, scan_hooks(ctx));
  if (!b) return tool_result::failure(b.error().message);
  return batch_result(std::move(*b));
}

tool_result next_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto token = required_string(args, "token");
  if (!token) return tool_result::failure(token.error().message);
  auto batch = batch_size_arg(args);
  if (!batch) return tool_result::failure(batch.error().message);
  engine::store::cursor_request req;
  req.batch_size = *batch;
  req.max_bytes = ctx.max_result_bytes;
  auto b = (*st)->cursor_next(*token, req, scan_hooks(ctx));
  if (!b) return tool_result::failure(b.error().message);
  return batch_result(std::move(*b));
}

tool_result close_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto token = required_string(args, "token");
  if (!token) return tool_result::failure(token.error().message);
  auto closed = (*st)->cursor_close(*token);
  if (!closed) return tool_result::failure(closed.error().message);
  return tool_result::text(json::serialize(bj::object{{"token", *token}, {"closed", true}}));
}

mcp::tool make(std::shared_ptr<engine::store_registry> stores, std::string name, std::string description,
               std::vector<param> params, store_handler fn) {
  return make_tool(std::move(stores), std::move(name), std::move(description), std::move(params), cursor_hints,
                   auth::scope::read, fn);
}

}  // namespace

mcp::tool cursor_open_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(std::move(stores), "cursor_open",
              "Open a persisted read cursor and return the first batch (`batchSize` defaults to 100).",
              {p_path,
               p_collection,
               {"filter", param_type::object, false},
               p_batch_size,
               {"sort", param_type::object, false},
               {"project", param_type::object, false}},
              open_tool);
}

mcp::tool cursor_next_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(std::move(stores), "cursor_next", "Read and advance the next batch from a cursor.",
              {p_path, p_token, p_batch_size}, next_tool);
}

mcp::tool cursor_close_tool(std::shared_ptr<engine::store_registry> stores) {
  return make(std::move(stores), "cursor_close", "Close a cursor and remove its sidecar state.",
              {p_path, p_token}, close_tool);
}

}  // namespace omgdb::tools
