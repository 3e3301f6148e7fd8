// omgdb engine — process-wide defaults the daemon sets from its config file at start-up
// (`[limits] write_budget_bytes`, `[limits] aggregation_stage_bytes`; docs/config.md).
// Stores opened afterwards take the write budget; the aggregate tool takes the stage limit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace omgdb::engine {

void set_default_write_budget(std::uint64_t bytes) noexcept;
std::uint64_t default_write_budget() noexcept;  // store_options::k_default_max_write_bytes until set
void set_default_stage_bytes(std::size_t bytes) noexcept;
std::size_t default_stage_bytes() noexcept;     // k_max_sort_bytes until set

}  // namespace omgdb::engine
