#include "engine/query/expr_detail.hpp"
namespace omgdb::engine::expr_detail {
namespace { constexpr op_info ops[] = {{"$__none", 0, 0, nullptr}}; }
op_table date_ops() { return {ops, ops}; }
}
