// The Markdown edit tools of seeds/000: markdown_set_section and markdown_patch_frontmatter
// (scope `read-write`; destructive and idempotent, docs/markdown.md).
#include "engine/markdown/markdown_store.hpp"
#include "tools/catalog.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

namespace {

constexpr spec md_id_spec{"The document's `_id`: its path relative to the import root, e.g. \"guide/setup.md\"."};

bj::object section_json(const engine::markdown::section& s) {
  return bj::object{{"id", s.id},
                    {"level", s.level},
                    {"title", s.title},
                    {"headingStart", s.heading_start},
                    {"bodyStart", s.body_start},
                    {"bodyEnd", s.body_end},
                    {"hash", s.hash}};
}

struct set_section_args : in_collection {
  engine::value id;
  std::string section_id;
  std::string text;
  void fields(arg_list& a) {
    a.required("id", id, md_id_spec);
    a.required("sectionId", section_id,
               {"The section's id from `_sections` (\"\" is the text before the first heading).", {}, {}, {}, {}, true});
    a.required("text", text,
               {"The new body: everything from the end of the heading line to the next heading of any level; no "
                "headings inside.",
                {}, std::uint64_t{16} << 20, {}, "; nothing was written", true});
  }
};

handler_result set_section(set_section_args& a, const call&) {
  OMGDB_TRY(r, engine::markdown::store_set_section(*a.store, a.collection, a.id, a.section_id, a.text));
  bj::object out{{"modified", r.modified}, {"sectionId", a.section_id}, {"sections", r.sections.size()}};
  for (const auto& s : r.sections) {
    if (s.id == a.section_id) out["section"] = section_json(s);
  }
  return json_text(out);
}

struct patch_frontmatter_args : in_collection {
  engine::value id;
  engine::document patch;
  std::vector<std::string> remove;
  void fields(arg_list& a) {
    a.required("id", id, md_id_spec);
    a.required("patch", patch,
               {"RFC 7386 merge patch of the frontmatter: a null value deletes a key, an object merges, anything "
                "else replaces; {} changes nothing."});
    a.optional("remove", remove, {"Top-level frontmatter keys to delete (after the patch)."});
  }
};

handler_result patch_frontmatter(patch_frontmatter_args& a, const call&) {
  OMGDB_TRY(r, engine::markdown::store_patch_frontmatter(*a.store, a.collection, a.id, a.patch, a.remove));
  return json_text(bj::object{{"modified", r.modified}, {"sections", r.sections.size()}});
}

constexpr mcp::annotations markdown_edit{false, true, true};

}  // namespace

using auth::scope;
const tool_def markdown_set_section_tool = define<set_section_args>(
    {"markdown_set_section", "Replace one imported-Markdown section body and refresh `_sections`.", markdown_edit,
     scope::read_write},
    set_section, mcp::result_shape::json_object);
const tool_def markdown_patch_frontmatter_tool = define<patch_frontmatter_args>(
    {"markdown_patch_frontmatter",
     "Patch (and optionally remove) frontmatter fields on an imported Markdown document.", markdown_edit,
     scope::read_write},
    patch_frontmatter, mcp::result_shape::json_object);

}  // namespace omgdb::tools
