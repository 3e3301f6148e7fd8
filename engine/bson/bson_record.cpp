// omgdb engine — BSON record building shared by the op-log and change records.
#include "engine/bson/bson_record.hpp"

#include <cstdint>

#include "engine/bson/bson_codec.hpp"

namespace omgdb::engine::detail {

bool append_embedded(bson_t* out, const char* key, std::string_view bytes) {
  bson_t inner;
  if (!bson_init_static(&inner, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size())) {
    return false;
  }
  return bson_append_document(out, key, -1, &inner);
}

status append_id(bson_t* out, const value& id) {
  auto one = to_bson(document{field{"_id", id}});
  if (!one) return std::move(one).error();
  bson_t wrapper;
  bson_iter_t it;
  if (!bson_init_static(&wrapper, reinterpret_cast<const std::uint8_t*>(one->data()), one->size()) ||
      !bson_iter_init_find(&it, &wrapper, "_id") || !bson_append_iter(out, "_id", 3, &it)) {
    return make_error("cannot encode _id for the op-log");
  }
  return {};
}

}  // namespace omgdb::engine::detail
