// $setWindowFields (not implemented yet: refused with a clear error).
#include "engine/aggregate/stage.hpp"

namespace omgdb::engine::aggregate_detail {

result<stage_ptr> compile_set_window_fields(const value&, const compile_ctx&) {
  return make_error("`$setWindowFields` is not supported yet");
}

}  // namespace omgdb::engine::aggregate_detail
