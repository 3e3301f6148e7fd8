// omgdb engine — describe(): a Markdown manual of the store.
//
// For each collection: its count, then the field paths seen in a sample of its first
// k_sample documents (in `_id` order) with their types and how many sampled documents have
// them. Embedded documents are walked as dotted paths up to k_max_depth components; arrays
// are reported with their element types ("array<int32|string>") and not walked.
#include <algorithm>
#include <map>
#include <set>

#include "engine/bson/bson_codec.hpp"
#include "engine/value/ejson.hpp"
#include "engine/index/index.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

using namespace detail;

constexpr std::size_t k_sample = 100;
constexpr int k_max_depth = 3;

std::string type_name(const value& v);

std::string array_type(const array& items) {
  std::set<std::string> kinds;
  for (const auto& item : items) kinds.insert(type_name(item));
  if (kinds.empty()) return "array";
  std::string out = "array<";
  bool first = true;
  for (const auto& k : kinds) {
    if (!first) out += '|';
    out += k;
    first = false;
  }
  return out + ">";
}

std::string type_name(const value& v) {
  switch (v.type()) {
    case kind::null_: return "null";
    case kind::boolean: return "bool";
    case kind::int32: return "int32";
    case kind::int64: return "int64";
    case kind::double_: return "double";
    case kind::string: return "string";
    case kind::document: return "document";
    case kind::array: return "array";
    case kind::object_id: return "objectId";
    case kind::date_time: return "date";
    case kind::timestamp: return "timestamp";
    case kind::binary: return "binary";
    case kind::regex: return "regex";
    case kind::decimal128: return "decimal128";
    case kind::min_key: return "minKey";
    case kind::max_key: return "maxKey";
  }
  return "unknown";
}

// Text safe inside a Markdown table cell: no line breaks, pipes escaped (GFM honours `\|`
// inside code spans in tables too).
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// A code span that survives backticks in `s`: the fence is one longer than any run inside.
std::string code(std::string_view s) {
  std::size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  return fence + (pad ? " " : "") + cell(s) + (pad ? " " : "") + fence;
}

struct path_stats {
  std::string path;
  std::set<std::string> types;
  std::size_t documents = 0;
  std::size_t last_doc = SIZE_MAX;  // sample index that last counted this path
};

class field_census {
 public:
  void add(const document& doc) {
    walk(doc, "", 1);
    ++sampled_;
  }
  std::size_t sampled() const noexcept { return sampled_; }
  const std::vector<path_stats>& paths() const noexcept { return paths_; }

 private:
  void walk(const document& doc, const std::string& parent, int depth) {
    for (const auto& f : doc) {
      std::string path = parent.empty() ? f.name : parent + "." + f.name;
      auto& stats = slot(path);
      stats.types.insert(f.val.is_array() ? array_type(f.val.as_array()) : type_name(f.val));
      if (stats.last_doc != sampled_) {
        stats.last_doc = sampled_;
        ++stats.documents;
      }
      if (f.val.is_document() && depth < k_max_depth) walk(f.val.as_document(), path, depth + 1);
    }
  }

  path_stats& slot(const std::string& path) {
    auto [it, inserted] = index_.emplace(path, paths_.size());
    if (inserted) paths_.push_back(path_stats{path, {}, 0, SIZE_MAX});
    return paths_[it->second];
  }

  std::vector<path_stats> paths_;  // first-seen order
  std::map<std::string, std::size_t> index_;
  std::size_t sampled_ = 0;
};

}  // namespace

result<std::string> store::describe() const {
  const auto& s = *impl_;
  read_view view(s);
  const auto ro = view.options();
  auto listed = view.catalog();
  if (!listed) return std::move(listed).error();
  const auto& all = listed->collections;
  std::string md = "# omgdb store " + code(s.path) + "\n\n";
  if (all.empty()) return md + "No collections yet.\n";
  md += std::to_string(all.size()) + (all.size() == 1 ? " collection, " : " collections, ") +
        std::to_string(listed->documents) + (listed->documents == 1 ? " document.\n\n" : " documents.\n\n");
  md += "| collection | documents |\n| --- | ---: |\n";
  for (const auto& e : all) md += "| " + code(e.name) + " | " + std::to_string(e.documents) + " |\n";

  for (const auto& e : all) {
    md += "\n## " + code(e.name) + "\n\n";
    field_census census;
    std::size_t corrupt = 0;
    {
      std::string upper = docs_prefix(e.id + 1);
      rocksdb::Slice upper_slice(upper);
      rocksdb::ReadOptions scan = ro;
      scan.iterate_upper_bound = &upper_slice;
      std::unique_ptr<rocksdb::Iterator> it(s.db->NewIterator(scan, s.docs));
      std::size_t read = 0;
      for (it->Seek(docs_prefix(e.id)); it->Valid() && read < k_sample; it->Next(), ++read) {
        auto doc = from_bson(it->value().ToStringView());
        if (doc) {
          census.add(*doc);
        } else {
          ++corrupt;  // describe reports damage rather than failing
        }
      }
      if (!it->status().ok()) return storage_error(s.path, "read", it->status());
    }
    md += std::to_string(e.documents) + (e.documents == 1 ? " document." : " documents.");
    if (census.sampled() > 0) {
      std::string n = std::to_string(census.sampled());
      md += census.sampled() == e.documents ? " Fields:\n\n"
                                            : " Fields in a sample of the first " + n + ":\n\n";
      md += "| field | types | in |\n| --- | --- | ---: |\n";
      for (const auto& p : census.paths()) {
        std::string types;
        for (const auto& t : p.types) types += (types.empty() ? "" : "|") + t;
        md += "| " + code(p.path) + " | " + cell(types) + " | " + std::to_string(p.documents) +
              " of " + n + " |\n";
      }
    } else {
      md += "\n";
    }
    if (corrupt > 0) {
      md += "\n**" + std::to_string(corrupt) + " sampled document" + (corrupt == 1 ? "" : "s") +
            " could not be decoded.**\n";
    }
    md += "\nIndexes: `_id_` (unique)";
    auto defs = read_index_defs(s, ro, e.id);
    if (!defs) return std::move(defs).error();
    for (const auto& d : *defs) {
      md += ", " + code(d.spec.name) + " " + code(to_json(spec_key_document(d.spec)));
      if (d.spec.unique) md += " (unique)";
      if (d.spec.partial_filter) md += " (partial: " + code(to_json(*d.spec.partial_filter)) + ")";
    }
    md += "\n";
  }
  return md;
}

}  // namespace omgdb::engine
