// omgdb daemon — `omgdb import-markdown`: lists the files, imports them in atomic batches
// (engine/markdown/markdown_store.hpp), shows progress on a terminal, prints a JSON summary.
#include "daemon/markdown_import.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "engine/markdown/markdown_store.hpp"

namespace omgdb::daemon {
namespace {

struct import_markdown_args {
  std::string store;
  std::string collection;
  std::vector<std::string> paths;
  std::string glob = "*.md";
  std::size_t batch = 100;
  bool quiet = false;
};

int run_import_markdown(const import_markdown_args& a) {
  auto files = engine::markdown::list_sources(a.paths, a.glob);
  if (!files) {
    std::cerr << "omgdb: " << files.error().message << "\n";
    return 1;
  }
  auto st = engine::store::open(a.store);
  if (!st) {
    std::cerr << "omgdb: " << st.error().message << "\n";
    return 1;
  }
  engine::markdown::import_options o;
  o.glob = a.glob;
  o.batch_files = a.batch;
  const bool terminal = !a.quiet && isatty(STDERR_FILENO) == 1;
  if (terminal) {
    o.progress = [](std::uint64_t done, std::uint64_t total) {
      std::cerr << "\rimport-markdown: " << done << " / " << total << " files" << std::flush;
    };
  }
  auto r = engine::markdown::import_files(**st, a.collection, *files, o);
  if (terminal) std::cerr << "\n";
  if (!r) {
    std::cerr << "omgdb: " << r.error().message << " (the batches committed before it are kept; run the same "
              << "command again to finish: unchanged files are not written twice)\n";
    return 1;
  }
  boost::json::array skipped;
  for (const auto& s : r->skipped) {
    skipped.push_back(boost::json::object{{"file", s.file}, {"reason", s.reason}});
    std::cerr << "omgdb: skipped " << s.file << ": " << s.reason << "\n";
  }
  std::cout << json::serialize(boost::json::object{{"files", r->files},
                                                   {"inserted", r->inserted},
                                                   {"updated", r->updated},
                                                   {"unchanged", r->unchanged},
                                                   {"batches", r->batches},
                                                   {"skipped", std::move(skipped)}})
            << "\n";
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace

std::function<std::optional<int>()> add_markdown_commands(CLI::App& app) {
  auto a = std::make_shared<import_markdown_args>();
  auto* cmd = app.add_subcommand("import-markdown",
                                 "Import Markdown files (recursively) as documents with sections and frontmatter "
                                 "(docs/markdown.md)");
  cmd->add_option("STORE", a->store, "Store directory")->required();
  cmd->add_option("COLLECTION", a->collection)->required();
  cmd->add_option("PATH", a->paths, "Files and directories; `_id` is the path relative to the argument")
      ->required();
  cmd->add_option("--glob", a->glob, "File names to import (fnmatch; matched on the relative path when it holds "
                                     "'/'); default *.md");
  cmd->add_option("--batch-size", a->batch, "Files per atomic batch (default 100)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{100000}));
  cmd->add_flag("--quiet", a->quiet, "No progress line on a terminal");
  return [a, cmd]() -> std::optional<int> {
    if (!*cmd) return std::nullopt;
    return run_import_markdown(*a);
  };
}

}  // namespace omgdb::daemon
