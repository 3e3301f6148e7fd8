// omgdb search — what verify (engine/store/store_verify.cpp) reports of the search
// generations: each one as a cache, fresh / behind / missing / corrupt / definitionMismatch
// with the expected and indexed counts. Read-only: nothing is built, caught up or removed.
#pragma once

#include "engine/store/store.hpp"

namespace omgdb::engine::search {

void verify_caches(const store::impl& s, const rocksdb::ReadOptions& ro, std::vector<store::verify_cache>& out);

}  // namespace omgdb::engine::search
