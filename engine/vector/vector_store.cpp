// omgdb vectors — the documents of `C.__vectors` and reading them back.
#include <bit>
#include <cstring>

#include "common/fnv1a.hpp"
#include "engine/index/keystring.hpp"
#include "engine/value/ejson.hpp"
#include "engine/vector/vector_detail.hpp"

namespace omgdb::engine::vector {

std::string vectors_collection(std::string_view collection) { return std::string(collection) + std::string(k_vectors_suffix); }

bool is_vectors_collection(std::string_view name) {
  return name.size() > k_vectors_suffix.size() && name.substr(name.size() - k_vectors_suffix.size()) == k_vectors_suffix;
}

std::string text_hash(std::string_view text) {
  return fnv1a64_hex(text);
}

namespace detail {

value binding_id(std::string_view field) { return value(document{{"binding", value(field)}}); }
value vector_id(std::string_view field, const value& source_id) {
  return value(document{{"field", value(field)}, {"id", source_id}});
}

document binding_document(const binding& b) {
  return document{{"_id", binding_id(b.field)},
                  {"field", value(b.field)},
                  {"model", value(b.model)},
                  {"modelSha256", value(b.model_sha256)},
                  {"dim", value(static_cast<std::int64_t>(b.dim))},
                  {"generation", value(static_cast<std::int64_t>(b.generation))}};
}

document vector_document(std::string_view field, const value& source_id, const binding& b, std::string_view hash,
                         std::span<const float> v) {
  binary bin;
  bin.bytes.resize(v.size() * 4);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(v[i]);
    for (int j = 0; j < 4; ++j) bin.bytes[i * 4 + static_cast<std::size_t>(j)] = static_cast<char>((bits >> (8 * j)) & 0xff);
  }
  return document{{"_id", vector_id(field, source_id)},
                  {"field", value(field)},
                  {"model", value(b.model)},
                  {"modelSha256", value(b.model_sha256)},
                  {"dim", value(static_cast<std::int64_t>(b.dim))},
                  {"textHash", value(hash)},
                  {"vector", value(std::move(bin))}};
}

std::optional<std::string_view> text_at(const document& doc, std::string_view field) {
  const document* at = &doc;
  std::size_t start = 0;
  while (true) {
    const auto dot = field.find('.', start);
    const std::string_view name = field.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    const value* found = nullptr;
    for (const auto& f : *at) {
      if (f.name == name) {
        found = &f.val;
        break;
      }
    }
    if (found == nullptr) return std::nullopt;
    if (dot == std::string_view::npos) {
      if (!found->is_string()) return std::nullopt;
      return std::string_view(found->as_string());
    }
    if (!found->is_document()) return std::nullopt;
    at = &found->as_document();
    start = dot + 1;
  }
}

bool decode_floats(std::string_view bytes, std::uint32_t dim, std::vector<float>& out) {
  if (bytes.size() != std::size_t{dim} * 4) return false;
  out.resize(dim);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (std::uint32_t i = 0; i < dim; ++i) {
    const std::uint32_t bits = std::uint32_t{p[i * 4]} | (std::uint32_t{p[i * 4 + 1]} << 8) |
                               (std::uint32_t{p[i * 4 + 2]} << 16) | (std::uint32_t{p[i * 4 + 3]} << 24);
    out[i] = std::bit_cast<float>(bits);
  }
  return true;
}

namespace {

const value* get(const document& d, std::string_view name) {
  for (const auto& f : d) {
    if (f.name == name) return &f.val;
  }
  return nullptr;
}
std::string string_of(const document& d, std::string_view name) {
  const value* v = get(d, name);
  return v != nullptr && v->is_string() ? v->as_string() : std::string();
}

}  // namespace

binding parse_binding(std::string_view field, const document& d) {
  binding b;
  b.field = std::string(field);
  b.model = string_of(d, "model");
  b.model_sha256 = string_of(d, "modelSha256");
  const value* dim = get(d, "dim");
  b.dim = dim != nullptr && dim->is_number() ? static_cast<std::uint32_t>(dim->number_as_double()) : 0;
  const value* gen = get(d, "generation");
  b.generation = gen != nullptr && gen->is_number() ? static_cast<std::uint64_t>(gen->number_as_double()) : 0;
  return b;
}

status scan_source(const store::impl& s, const read_view& view, std::string_view collection, const document* filter,
                   const scan_control& control, const std::function<bool(document&&)>& visit) {
  OMGDB_TRY(entry, view.collection(collection));
  if (!entry) return {};
  auto compiled = filter::compile(filter != nullptr ? *filter : document{});
  if (!compiled) return std::move(compiled).error();
  engine::detail::collection_scan scan(s, view.snapshot(), collection, *entry, control);
  return scan.run_matching(*compiled, nullptr, [&](document&& d) { return visit(std::move(d)); });
}

result<field_vectors> read_field_vectors(const store::impl& s, const read_view& view, std::string_view collection,
                                         std::string_view field, bool with_floats, const scan_control& control) {
  field_vectors out;
  const std::string vc = vectors_collection(collection);
  // Only this field's documents: {field: FIELD} (the binding carries it too).
  const document only{{"field", value(field)}};
  std::optional<failure> bad;
  auto st = scan_source(s, view, vc, &only, control, [&](document&& d) {
    const value* id = get(d, "_id");
    if (id == nullptr || !id->is_document()) return true;
    const document& key = id->as_document();
    if (const value* bf = get(key, "binding"); bf != nullptr) {
      out.bound = parse_binding(field, d);
      return true;
    }
    const value* src = get(key, "id");
    if (src == nullptr) return true;
    stored_vector v;
    v.id = *src;
    v.model = string_of(d, "model");
    v.model_sha256 = string_of(d, "modelSha256");
    v.text_hash = string_of(d, "textHash");
    if (with_floats) {
      const value* vec = get(d, "vector");
      const value* dim = get(d, "dim");
      const std::uint32_t n = dim != nullptr && dim->is_number() ? static_cast<std::uint32_t>(dim->number_as_double()) : 0;
      if (vec == nullptr || vec->type() != kind::binary ||
          !decode_floats(std::get<binary>(vec->raw()).bytes, n, v.data)) {
        bad = make_error("a vector of field `" + std::string(field) + "` in `" + vc + "` is damaged (" + to_json(*id) +
                             "); run vsync to rewrite it",
                         failure_kind::corrupt);
        return false;
      }
    }
    out.rows.emplace(encode_key(*src), std::move(v));
    return true;
  });
  if (!st) return std::move(st).error();
  if (bad) return *bad;
  return out;
}

result<std::optional<binding>> read_binding(const store::impl& impl, const read_view& view, std::string_view collection,
                                            std::string_view field) {
  OMGDB_TRY(entry, view.collection(vectors_collection(collection), false));
  if (!entry) return std::optional<binding>();
  OMGDB_TRY(doc, impl.read_document(view.options(), vectors_collection(collection), entry->id, binding_id(field)));
  if (!doc) return std::optional<binding>();
  return std::optional<binding>(parse_binding(field, *doc));
}

}  // namespace detail

result<std::optional<binding>> read_binding(const store& s, std::string_view collection, std::string_view field) {
  const auto& impl = engine::detail::store_access::of(const_cast<store&>(s));
  detail::read_view view(impl);
  return detail::read_binding(impl, view, collection, field);
}

}  // namespace omgdb::engine::vector
