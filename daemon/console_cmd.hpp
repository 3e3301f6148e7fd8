// omgdb daemon — `omgdb console` (daemon/console_cmd.cpp, docs/console.md).
#pragma once

#include <functional>
#include <optional>

namespace CLI {
class App;
}

namespace omgdb::daemon {

// Adds the subcommand; the returned function runs it after parsing when it was chosen.
std::function<std::optional<int>()> add_console_command(CLI::App& app);

}  // namespace omgdb::daemon
