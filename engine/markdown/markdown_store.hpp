// omgdb engine — Markdown in a store: `omgdb import-markdown` and the two Markdown edits, each
// through the one write path (engine/store/write_session.hpp): one atomic batch per import
// batch, one per edit, op-log records included (docs/markdown.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "engine/markdown/markdown.hpp"
#include "engine/store/store.hpp"

namespace omgdb::engine::markdown {

struct import_options {
  std::string glob = "*.md";          // fnmatch on the file name (on the relative path when it holds '/')
  std::size_t batch_files = 100;      // files per atomic batch
  std::uint64_t batch_bytes = 32u << 20;  // source bytes per batch (a batch closes at either bound)
  std::uint64_t max_file_bytes = 16u << 20;  // larger files are skipped, with the reason
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
};

struct import_report {
  std::uint64_t files = 0;      // matched
  std::uint64_t inserted = 0;
  std::uint64_t updated = 0;    // changed since the last import (hash of the text)
  std::uint64_t unchanged = 0;  // nothing written
  std::uint64_t batches = 0;    // committed
  struct skip {
    std::string file;
    std::string reason;
  };
  std::vector<skip> skipped;  // not UTF-8, too large, bad frontmatter, an `_id` held by another document
};

// The files under `paths` (files, and directories walked recursively, symlinked directories
// not followed) whose names match the glob, each as {absolute file, `_id`}: the path relative
// to the argument it was found under (a file argument: its name), '/'-separated, in byte
// order of the `_id`. Errors: a path that does not exist.
struct source_file {
  std::string file;
  std::string id;
};
result<std::vector<source_file>> list_sources(const std::vector<std::string>& paths, const std::string& glob);

// Imports the files into `collection`: a new file is inserted, a changed one replaces the
// fields the import owns (title, frontmatter, text, _sections, _markdown) and keeps the
// others, an unchanged one writes nothing. A crash leaves every committed batch whole.
result<import_report> import_files(store& s, std::string_view collection, const std::vector<source_file>& files,
                                   const import_options& options = {});

struct edit_result {
  bool modified = false;
  std::vector<section> sections;  // after the edit
};
// markdown_set_section and markdown_patch_frontmatter: one atomic write of the document (text,
// `_sections`, `_markdown`, frontmatter, title) and its op-log record; nothing when the text
// would not change. Errors: no such collection or document, a document not imported as
// Markdown, and the errors of markdown::set_section / patch_frontmatter.
result<edit_result> store_set_section(store& s, std::string_view collection, const value& id,
                                      std::string_view section_id, std::string_view body);
result<edit_result> store_patch_frontmatter(store& s, std::string_view collection, const value& id,
                                            const document& patch, const std::vector<std::string>& remove);

}  // namespace omgdb::engine::markdown
