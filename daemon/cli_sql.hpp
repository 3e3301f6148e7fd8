// omgdb daemon — the SQL commands a person runs: `omgdb approvals …`, `omgdb sql …` and
// `omgdb history` (docs/sql-tools.md "Command line").
#pragma once

#include <functional>
#include <optional>

namespace CLI {
class App;
}

namespace omgdb::daemon {

// Adds the subcommands to `app`. The returned function, called after parsing, runs the one
// that was chosen and returns its exit status, or nullopt when none of them was.
std::function<std::optional<int>()> add_sql_commands(CLI::App& app);

}  // namespace omgdb::daemon
