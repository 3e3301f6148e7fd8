// omgdb — Levenshtein distance between two byte strings, for the "did you mean" hints of
// tools, arguments, collections, indexes, stages and Markdown section ids.
#pragma once

#include <cstddef>
#include <string_view>

namespace omgdb {

std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace omgdb
