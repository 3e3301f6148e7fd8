// omgdb daemon — `omgdb model add NAME PATH`, `omgdb model list [--json]`, `omgdb model
// remove NAME` (daemon/model_commands.cpp): the embedding models of the data directory.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>


namespace CLI {
class App;
}  // namespace CLI

namespace omgdb::daemon {

// <data dir>/models: OMGDB_MODELS_DIR when set, else the data directory's `models`
// (daemon/http_setup.hpp data_dir(): systemd's STATE_DIRECTORY, $XDG_DATA_HOME/omgdb or
// ~/.local/share/omgdb). "" when none is known.
std::filesystem::path models_dir();

// Adds the `model` subcommands to `app`; the returned function runs the one given (nullopt
// when no `model` subcommand was).
std::function<std::optional<int>()> add_model_commands(CLI::App& app);

}  // namespace omgdb::daemon
