// omgdb search — proof that a generation's bytes are the bytes omgdb wrote (issue 29 item 8;
// docs/decisions.md "Derived data proves itself").
//
// Page checksums. Every generation file is opened through the SQLite VFS `omgdb-checked`, a
// shim over the default VFS. A generation is created with 8 reserved bytes at the end of every
// page (SQLITE_FCNTL_RESERVE_BYTES); the shim writes there, for every page it writes, the
// checksum64 of the page number and the rest of the page, and checks it for every whole page
// it reads: a page that does not match is an SQLITE_IOERR_DATA error, never data. So a query
// answers only from pages omgdb wrote, and a page changed by anything else (a byte flipped on
// disk, a row changed with the sqlite3 shell) fails the query that reads it.
//
// Damage marks. A generation found damaged (a page that fails its checksum, SQLite reporting
// corruption, or verify's row check) is marked in this process's memory, never on disk (verify
// writes nothing): generation::open refuses a marked file, so it is never served again; the
// next search rebuilds the index (a new file), which removes it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "common/result.hpp"

namespace omgdb::engine::search {

inline constexpr int k_page_reserve = 8;  // reserved bytes per page: the checksum

// Registers the VFS once; returns its name for sqlite3_open_v2.
const char* checked_vfs();

// The checksum of page `pgno` (1-based) whose bytes are `page` (`size` bytes, the last
// k_page_reserve of them not included).
std::uint64_t page_checksum(std::uint64_t pgno, const unsigned char* page, std::size_t size);

// Reads `file` whole and checks every page's checksum (what a search does once per open;
// cost measured in docs/search.md). `old_format`: the file has no reserved checksum bytes
// (built before page checksums), so it cannot be proven. Polls the call's cancellation.
struct page_report {
  bool ok = false;
  bool old_format = false;
  std::uint64_t pages = 0;
  std::string why;  // the first failure, naming the page
};
result<page_report> check_pages(const std::filesystem::path& file);

// A stop check for the reads of this thread (a search's ranking, run.cpp): while one is
// installed and says stop, every read fails with SQLITE_IOERR_READ (the file is not marked:
// nothing is wrong with it). FTS5 merges the doclists of prefix terms inside one step, where
// SQLite's progress handler is never called; the pages it reads are read here, so a broad
// prefix query stops within a page read of its deadline. nullptr removes it.
struct read_stop {
  bool (*stop)(void* ctx) = nullptr;
  void* ctx = nullptr;
};
void set_read_stop(const read_stop* s) noexcept;

// The damage marks (by path and the file's device and inode, so a new file at the same path
// is not refused). mark_damaged keeps the first reason; at most 4096 marks are kept.
void mark_damaged(const std::filesystem::path& file, const std::string& why);
std::optional<std::string> damage_of(const std::filesystem::path& file);
void forget_damage(const std::filesystem::path& file);

}  // namespace omgdb::engine::search
