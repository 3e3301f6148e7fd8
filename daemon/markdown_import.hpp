// omgdb daemon — `omgdb import-markdown STORE COLLECTION PATH… [--glob G] [--batch-size N]`
// (docs/markdown.md): Markdown files as documents, in atomic batches.
#pragma once

#include <functional>
#include <optional>

namespace CLI {
class App;
}

namespace omgdb::daemon {

// Adds the subcommand to `app`. The returned function, called after parsing, runs it when it
// was chosen and returns its exit status, else nullopt.
std::function<std::optional<int>()> add_markdown_commands(CLI::App& app);

}  // namespace omgdb::daemon
