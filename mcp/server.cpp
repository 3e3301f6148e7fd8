#include "mcp/server.hpp"

#include <stdexcept>
#include <thread>

namespace omgdb::mcp {

server::server(server_options options, std::vector<tool> tools)
    : options_(std::move(options)), tools_(std::move(tools)) {
  for (std::size_t i = 0; i < tools_.size(); ++i) {
    if (!by_name_.emplace(tools_[i].name, i).second) {
      throw std::logic_error("duplicate tool name " + tools_[i].name);
    }
  }
  std::size_t n = options_.workers;
  if (n == 0) n = std::max<std::size_t>(2, std::thread::hardware_concurrency());
  std::size_t share = options_.session_workers;
  if (share == 0) share = n > 1 ? n - 1 : 1;
  deadlines_ = std::make_unique<deadline_timer>();
  pool_ = std::make_unique<worker_pool>(n, options_.max_queue, share);
}

const tool* server::find(std::string_view name) const noexcept {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &tools_[it->second];
}

std::vector<const tool*> server::visible(auth::scope ceiling) const {
  std::vector<const tool*> out;
  for (const auto& t : tools_) {
    if (auth::allows(ceiling, t.required_scope)) out.push_back(&t);
  }
  return out;
}

}  // namespace omgdb::mcp
