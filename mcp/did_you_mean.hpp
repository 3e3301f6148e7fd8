// omgdb mcp — did-you-mean hints for names (tools, arguments).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace omgdb::mcp {

// Levenshtein distance between two byte strings.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `name` when it is within distance 2 (or 1 for names of up to
// 4 bytes), ties broken by candidate order; "" when none is close enough.
std::string closest(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace omgdb::mcp
