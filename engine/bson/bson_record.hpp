// omgdb engine — building the BSON records the store writes beside documents (op-log records,
// change records): an owning builder and the two appends both kinds of record need.
#pragma once

#include <string_view>

#include <bson/bson.h>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::detail {

// Owns a bson_t built with bson_init.
struct bson_builder {
  bson_t doc;
  bson_builder() { bson_init(&doc); }
  ~bson_builder() { bson_destroy(&doc); }
  bson_builder(const bson_builder&) = delete;
  bson_builder& operator=(const bson_builder&) = delete;
  std::string_view bytes() const { return {reinterpret_cast<const char*>(bson_get_data(&doc)), doc.len}; }
};

// Appends the BSON document `bytes` under `key`; false when `bytes` is not a BSON document.
bool append_embedded(bson_t* out, const char* key, std::string_view bytes);

// Appends `id` under "_id", encoded by the shared codec (so every value kind is covered).
status append_id(bson_t* out, const value& id);

}  // namespace omgdb::engine::detail
