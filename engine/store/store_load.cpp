// omgdb engine — load: reads dump()'s canonical export back into an empty store.
//
// Each header line {"collection", "count", "indexes"?, "rules"?} is followed by exactly
// `count` documents in canonical Extended JSON, which keeps every BSON type and the stored
// field order. Documents are inserted in atomic batches (bounded by k_load_batch_bytes, far
// below the write budget); then the collection's indexes are built and its validation rules
// defined (after the documents: rules never applied to documents that predate them). A load
// that fails part way leaves the batches it committed; the error names the line.
#include "common/json.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::engine {
namespace {

using namespace detail;

constexpr std::size_t k_load_batch_bytes = 16u << 20;  // JSON bytes per committed batch
constexpr std::size_t k_load_batch_documents = 10000;

struct header {
  std::string collection;
  std::uint64_t count = 0;
  std::vector<store::index_spec> indexes;
  std::optional<document> rules;
};

failure at_line(std::uint64_t line, const std::string& why) {
  return make_error("line " + std::to_string(line) + ": " + why);
}

result<document> parse_document(std::string_view text) {
  auto j = json::parse_strict(text);
  if (!j) return std::move(j).error();
  if (!j->is_object()) return make_error("not a JSON object");
  return document_from_json(*j);
}

result<store::index_spec> parse_index(const boost::json::value& j) {
  if (!j.is_object()) return make_error("an index is not an object");
  auto d = document_from_json(j);
  if (!d) return std::move(d).error();
  store::index_spec spec;
  for (const auto& f : *d) {
    if (f.name == "name" && f.val.is_string()) {
      spec.name = f.val.as_string();
    } else if (f.name == "key" && f.val.is_document()) {
      for (const auto& k : f.val.as_document()) {
        if (!k.val.is_number()) return make_error("index key `" + k.name + "` is not 1 or -1");
        spec.fields.push_back(store::index_field{k.name, k.val.number_as_double() < 0});
      }
    } else if (f.name == "unique" && f.val.is_bool()) {
      spec.unique = f.val.as_bool();
    } else if (f.name == "partialFilterExpression" && f.val.is_document()) {
      spec.partial_filter = f.val.as_document();
    } else {
      return make_error("unknown index field `" + f.name + "`");
    }
  }
  return spec;
}

result<header> parse_header(std::string_view text) {
  auto j = json::parse_strict(text);
  if (!j) return std::move(j).error();
  if (!j->is_object()) return make_error("a collection header must be a JSON object");
  const auto& o = j->get_object();
  header h;
  const auto* c = o.if_contains("collection");
  const auto* n = o.if_contains("count");
  if (c == nullptr || !c->is_string() || n == nullptr || !(n->is_uint64() || n->is_int64())) {
    return make_error("expected a collection header {\"collection\":…,\"count\":…}");
  }
  h.collection = std::string(c->get_string());
  if (n->is_int64() && n->get_int64() < 0) return make_error("a negative count");
  h.count = n->is_uint64() ? n->get_uint64() : static_cast<std::uint64_t>(n->get_int64());
  for (const auto& kv : o) {
    const std::string_view key = kv.key();
    if (key == "collection" || key == "count") continue;
    if (key == "indexes") {
      if (!kv.value().is_array()) return make_error("`indexes` is not an array");
      for (const auto& i : kv.value().get_array()) {
        auto spec = parse_index(i);
        if (!spec) return std::move(spec).error();
        h.indexes.push_back(std::move(*spec));
      }
    } else if (key == "rules") {
      if (!kv.value().is_object()) return make_error("`rules` is not an object");
      auto d = document_from_json(kv.value());
      if (!d) return std::move(d).error();
      h.rules = std::move(*d);
    } else {
      return make_error("unknown header field `" + std::string(key) + "`");
    }
  }
  return h;
}

}  // namespace

result<store::load_result> store::load(const std::function<result<bool>(std::string& line)>& next_line,
                                       const scan_control& control) {
  auto existing = collections();
  if (!existing) return std::move(existing).error();
  if (!existing->empty()) {
    return make_error("store `" + impl_->path + "` already holds " + std::to_string(existing->size()) +
                      " collection(s): load reads a dump into an empty store (create a new one)");
  }
  load_result out;
  std::string line;
  std::uint64_t lineno = 0;
  auto read = [&]() -> result<bool> {
    auto more = next_line(line);
    if (more && *more) ++lineno;
    return more;
  };
  for (;;) {
    auto more = read();
    if (!more) return std::move(more).error();
    if (!*more) break;
    if (line.empty()) continue;
    auto h = parse_header(line);
    if (!h) return at_line(lineno, h.error().message);
    ++out.collections;
    std::uint64_t left = h->count;
    bool first = true;
    while (left > 0 || first) {
      first = false;
      write_session w(*impl_, control);
      w.allow_vectors();  // `C.__vectors` collections come back as they were dumped
      w.no_read_back();
      auto entry = w.collection(h->collection, true);
      if (!entry) return at_line(lineno, std::move(entry).error().message);
      std::size_t bytes = 0, docs = 0;
      while (left > 0 && bytes < k_load_batch_bytes && docs < k_load_batch_documents) {
        auto m = read();
        if (!m) return std::move(m).error();
        if (!*m) {
          return make_error("the dump ends inside collection `" + h->collection + "`: " + std::to_string(left) +
                            " more document(s) expected");
        }
        auto d = parse_document(line);
        if (!d) return at_line(lineno, d.error().message);
        bytes += line.size();
        ++docs;
        --left;
        auto id = w.insert(**entry, std::move(*d));
        if (!id) return at_line(lineno, id.error().message);
        ++out.documents;
      }
      if (auto p = poll(control, out.documents, 0); !p) return std::move(p).error();
      if (auto c = w.commit(); !c) return std::move(c).error();
    }
    for (auto& spec : h->indexes) {
      auto r = create_index(h->collection, spec, control);
      if (!r) return make_error("collection `" + h->collection + "`: index `" + spec.name + "`: " + r.error().message);
      ++out.indexes;
    }
    if (h->rules) {
      auto r = define_collection(h->collection, *h->rules);
      if (!r) return make_error("collection `" + h->collection + "`: validation rules: " + r.error().message);
    }
  }
  return out;
}

}  // namespace omgdb::engine
