// omgdb mcp — did-you-mean hints for names (tools, arguments).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/edit_distance.hpp"

namespace omgdb::mcp {

using omgdb::edit_distance;  // common/edit_distance.hpp

// The candidate closest to `name` when it is within distance 2 (or 1 for names of up to
// 4 bytes), ties broken by candidate order; "" when none is close enough.
std::string closest(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace omgdb::mcp
