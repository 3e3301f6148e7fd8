// omgdb search — the FTS5 tokenizer `omgdb`: FTS5's unicode61 (Unicode case folding,
// diacritics removed: remove_diacritics 2) followed by a Snowball stemmer (libstemmer).
// Table argument: the language ("english", …, or "none" for no stemming). Prefix query terms
// (`run*`) are not stemmed.
#pragma once

#include <sqlite3.h>

#include <string>
#include <vector>

#include "common/result.hpp"

namespace omgdb::engine::search {

// Registers the tokenizer on one connection (every connection that opens a generation).
status register_tokenizer(sqlite3* db);

// The tokens `text` gives in `language` (what the index stores): for tests and explain.
result<std::vector<std::string>> tokenize(sqlite3* db, const std::string& language, const std::string& text);

}  // namespace omgdb::engine::search
