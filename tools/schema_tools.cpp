// The validation-rule tools of seeds/000 (docs/validation.md). define_collection returns
// {"collection":…,"created":B,"rules":"defined"|"removed"}; validate returns
// {"collection":…,"checked":N,"violating":M,"documents":[{"_id":…,"reasons":[…]}],
// "truncated":B}, listing at most 100 violating documents (and fewer if the reply limit is
// reached), with a second text block saying so when the list is cut.
#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

namespace {

constexpr std::size_t k_validate_max_documents = 100;

struct define_args : in_collection {
  engine::document spec_doc;
  void fields(arg_list& a) {
    a.required("spec", spec_doc, {"The rules: a schema object or {\"$jsonSchema\": schema}; `unique` lists unique keys; {} removes the rules."});
  }
};

handler_result define_collection(define_args& a, const call&) {
  OMGDB_TRY(r, a.store->define_collection(a.collection, a.spec_doc));
  return json_text(
      bj::object{{"collection", a.collection}, {"created", r.created}, {"rules", r.removed ? "removed" : "defined"}});
}

handler_result validate(in_collection& a, const call& c) {
  OMGDB_TRY(report, a.store->validate(a.collection, k_validate_max_documents, c.scan()));
  bj::array listed;
  std::size_t bytes = 200;
  bool cut_by_bytes = false;
  for (const auto& e : report.documents) {
    bj::array reasons;
    for (const auto& r : e.reasons) reasons.emplace_back(r);
    bj::object item{{"_id", engine::to_boost_json(e.id)}, {"reasons", std::move(reasons)}};
    const std::size_t size = json::serialize(item).size() + 1;
    if (bytes + size > c.ctx.max_result_bytes && !listed.empty()) {
      cut_by_bytes = true;
      break;
    }
    bytes += size;
    listed.push_back(std::move(item));
  }
  const std::size_t shown = listed.size();
  const bool truncated = shown < report.violating;
  mcp::tool_result r = json_text(bj::object{{"collection", a.collection},
                                            {"checked", report.checked},
                                            {"violating", report.violating},
                                            {"documents", std::move(listed)},
                                            {"truncated", truncated}});
  if (truncated) {
    r.texts.push_back("Listed " + std::to_string(shown) + " of " + std::to_string(report.violating) +
                      " violating documents (the first in `_id` order" +
                      (cut_by_bytes ? std::string(", cut at the reply limit") : std::string(", at most 100")) +
                      "). Fix these, or find the rest with `find` and a filter on the broken fields.");
  }
  return r;
}

}  // namespace

const tool_def define_collection_tool = define<define_args>(
    {"define_collection",
     "Define validation rules (a JSON Schema subset, docs/validation.md); `spec.unique` entries also create unique "
     "indexes.",
     plain_write, auth::scope::read_write},
    define_collection, mcp::result_shape::json_object);
const tool_def validate_tool =
    define<in_collection>({"validate", "List documents violating validation rules.", read_only}, validate,
        mcp::result_shape::json_object);

}  // namespace omgdb::tools
