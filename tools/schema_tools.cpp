// The validation-rule tools. define_collection returns
// {"collection":…,"created":B,"rules":"defined"|"removed"}; validate returns
// {"collection":…,"checked":N,"violating":M,"documents":[{"_id":…,"reasons":[…]}],
// "truncated":B}, listing at most 100 violating documents (and fewer if the reply limit is
// reached), with a second text block saying so when the list is cut. docs/validation.md.
#include <string>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "tools/args.hpp"
#include "tools/schema_tools.hpp"

namespace omgdb::tools {
namespace bj = boost::json;
using mcp::param;
using mcp::param_type;
using mcp::tool_result;

namespace {

constexpr std::size_t k_validate_max_documents = 100;


tool_result define_tool(engine::store_registry& stores, const bj::object& args, mcp::call_context&) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto spec = document_arg(args, "spec");
  if (!spec) return tool_result::failure(spec.error().message);
  auto r = (*st)->define_collection(*coll, *spec);
  if (!r) return tool_result::failure(r.error().message);
  return tool_result::text(json::serialize(bj::object{
      {"collection", *coll}, {"created", r->created}, {"rules", r->removed ? "removed" : "defined"}}));
}

tool_result run_validate(engine::store_registry& stores, const bj::object& args, mcp::call_context& ctx) {
  auto st = open_store(stores, args);
  if (!st) return tool_result::failure(st.error().message);
  auto coll = required_string(args, "collection");
  if (!coll) return tool_result::failure(coll.error().message);
  auto report = (*st)->validate(*coll, k_validate_max_documents, scan_hooks(ctx));
  if (!report) return tool_result::failure(report.error().message);
  bj::array listed;
  std::size_t bytes = 200;
  bool cut_by_bytes = false;
  for (const auto& e : report->documents) {
    bj::array reasons;
    for (const auto& r : e.reasons) reasons.emplace_back(r);
    bj::object item{{"_id", engine::to_boost_json(e.id)}, {"reasons", std::move(reasons)}};
    const std::size_t size = json::serialize(item).size() + 1;
    if (bytes + size > ctx.max_result_bytes && !listed.empty()) {
      cut_by_bytes = true;
      break;
    }
    bytes += size;
    listed.push_back(std::move(item));
  }
  const std::size_t shown = listed.size();
  const bool truncated = shown < report->violating;
  tool_result r = tool_result::text(json::serialize(bj::object{{"collection", *coll},
                                                               {"checked", report->checked},
                                                               {"violating", report->violating},
                                                               {"documents", std::move(listed)},
                                                               {"truncated", truncated}}));
  if (truncated) {
    r.texts.push_back("Listed " + std::to_string(shown) + " of " + std::to_string(report->violating) +
                      " violating documents (the first in `_id` order" +
                      (cut_by_bytes ? std::string(", cut at the reply limit") : std::string(", at most 100")) +
                      "). Fix these, or find the rest with `find` and a filter on the broken fields.");
  }
  return r;
}

}  // namespace

mcp::tool define_collection_tool(std::shared_ptr<engine::store_registry> stores) {
  mcp::tool t;
  t.name = "define_collection";
  t.description = "Define validation rules (a JSON Schema subset, docs/validation.md); `spec.unique` entries "
                  "also create unique indexes.";
  t.params = {p_path, p_collection, {"spec", param_type::object, true}};
  t.hints = mcp::annotations{false, false, false};
  t.required_scope = auth::scope::read_write;
  t.handler = [stores](const bj::object& args, mcp::call_context& ctx) { return define_tool(*stores, args, ctx); };
  return t;
}

mcp::tool validate_tool(std::shared_ptr<engine::store_registry> stores) {
  mcp::tool t;
  t.name = "validate";
  t.description = "List documents violating validation rules.";
  t.params = {p_path, p_collection};
  t.hints = mcp::annotations{true, true, false};
  t.required_scope = auth::scope::read;
  t.handler = [stores](const bj::object& args, mcp::call_context& ctx) { return run_validate(*stores, args, ctx); };
  return t;
}

}  // namespace omgdb::tools
