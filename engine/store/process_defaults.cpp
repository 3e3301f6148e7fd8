// omgdb engine — process-wide defaults from the config file (process_defaults.hpp).
#include "engine/store/process_defaults.hpp"

#include <atomic>

#include "engine/query/sort.hpp"
#include "engine/store/store.hpp"

namespace omgdb::engine {
namespace {

std::atomic<std::uint64_t> write_budget{store_options::k_default_max_write_bytes};
std::atomic<std::size_t> stage_bytes{k_max_sort_bytes};

}  // namespace

void set_default_write_budget(std::uint64_t bytes) noexcept { write_budget.store(bytes); }
std::uint64_t default_write_budget() noexcept { return write_budget.load(); }
void set_default_stage_bytes(std::size_t bytes) noexcept { stage_bytes.store(bytes); }
std::size_t default_stage_bytes() noexcept { return stage_bytes.load(); }

}  // namespace omgdb::engine
