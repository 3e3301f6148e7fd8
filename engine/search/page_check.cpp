// omgdb search — the checksumming VFS, the whole-file page check and the damage marks
// (page_check.hpp).
#include "engine/search/page_check.hpp"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "common/call_budget.hpp"
#include "common/checksum64.hpp"

namespace omgdb::engine::search {
namespace fs = std::filesystem;

namespace {

std::uint64_t get_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
void put_le64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i, v >>= 8) p[i] = static_cast<unsigned char>(v & 0xff);
}
std::uint32_t get_be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
// The page size a database header records (bytes 16–17; 1 means 65536).
std::uint32_t header_page_size(const unsigned char* h) {
  const std::uint32_t v = (std::uint32_t{h[16]} << 8) | h[17];
  return v == 1 ? 65536 : v;
}

// The page that holds SQLite's lock bytes (offset 2^30) is never written.
constexpr std::uint64_t k_lock_byte = 0x40000000ULL;

// --- the VFS ---

struct checked_file {
  sqlite3_file base;         // pMethods: the checked methods
  sqlite3_file* real;        // the default VFS's file, right after this header
  const char* name;          // the main database's path (SQLite keeps it until xClose)
  bool main_db;
  bool checked;              // page 1 says every page carries a checksum (sticky)
  std::uint32_t page_size;
};
constexpr std::size_t k_head = (sizeof(checked_file) + 15) & ~std::size_t{15};

sqlite3_vfs g_vfs{};
sqlite3_io_methods g_io{};
std::once_flag g_once;

sqlite3_vfs* base_vfs() { return static_cast<sqlite3_vfs*>(g_vfs.pAppData); }
checked_file* as(sqlite3_file* f) { return reinterpret_cast<checked_file*>(f); }
sqlite3_file* real(sqlite3_file* f) { return as(f)->real; }

bool whole_page(const checked_file* p, int amt, sqlite3_int64 off) {
  return p->main_db && p->checked && p->page_size >= 512 && amt > 0 && static_cast<std::uint32_t>(amt) == p->page_size &&
         off % amt == 0 && static_cast<std::uint64_t>(off) != (k_lock_byte / p->page_size) * p->page_size;
}

int x_close(sqlite3_file* f) { return real(f)->pMethods->xClose(real(f)); }

thread_local const read_stop* t_read_stop = nullptr;

int x_read(sqlite3_file* f, void* buf, int amt, sqlite3_int64 off) {
  if (t_read_stop != nullptr && t_read_stop->stop(t_read_stop->ctx)) return SQLITE_IOERR_READ;
  checked_file* p = as(f);
  const int rc = p->real->pMethods->xRead(p->real, buf, amt, off);
  if (rc != SQLITE_OK || !p->main_db) return rc;
  const auto* b = static_cast<const unsigned char*>(buf);
  if (off == 0 && amt >= 100) {
    if (p->checked && b[20] != k_page_reserve) {
      mark_damaged(p->name, "its header no longer reserves the page checksums");
      return SQLITE_IOERR_DATA;
    }
    p->checked = b[20] == k_page_reserve;
    p->page_size = header_page_size(b);
  }
  if (whole_page(p, amt, off)) {
    const auto pgno = static_cast<std::uint64_t>(off / amt) + 1;
    if (get_le64(b + amt - k_page_reserve) != page_checksum(pgno, b, static_cast<std::size_t>(amt))) {
      mark_damaged(p->name, "page " + std::to_string(pgno) + " fails its checksum");
      return SQLITE_IOERR_DATA;
    }
  }
  return rc;
}

int x_write(sqlite3_file* f, const void* buf, int amt, sqlite3_int64 off) {
  checked_file* p = as(f);
  const auto* b = static_cast<const unsigned char*>(buf);
  if (p->main_db && off == 0 && amt >= 100) {
    p->checked = b[20] == k_page_reserve;
    p->page_size = header_page_size(b);
  }
  if (!whole_page(p, amt, off)) return p->real->pMethods->xWrite(p->real, buf, amt, off);
  thread_local std::vector<unsigned char> page;
  page.assign(b, b + amt);
  const auto pgno = static_cast<std::uint64_t>(off / amt) + 1;
  put_le64(page.data() + amt - k_page_reserve, page_checksum(pgno, page.data(), page.size()));
  return p->real->pMethods->xWrite(p->real, page.data(), amt, off);
}

int x_truncate(sqlite3_file* f, sqlite3_int64 size) { return real(f)->pMethods->xTruncate(real(f), size); }
int x_sync(sqlite3_file* f, int flags) { return real(f)->pMethods->xSync(real(f), flags); }
int x_file_size(sqlite3_file* f, sqlite3_int64* size) { return real(f)->pMethods->xFileSize(real(f), size); }
int x_lock(sqlite3_file* f, int level) { return real(f)->pMethods->xLock(real(f), level); }
int x_unlock(sqlite3_file* f, int level) { return real(f)->pMethods->xUnlock(real(f), level); }
int x_check_reserved(sqlite3_file* f, int* out) { return real(f)->pMethods->xCheckReservedLock(real(f), out); }
int x_file_control(sqlite3_file* f, int op, void* arg) { return real(f)->pMethods->xFileControl(real(f), op, arg); }
int x_sector_size(sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); }
int x_device(sqlite3_file* f) { return real(f)->pMethods->xDeviceCharacteristics(real(f)); }
int x_shm_map(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  if (real(f)->pMethods->iVersion < 2) return SQLITE_IOERR;
  return real(f)->pMethods->xShmMap(real(f), page, size, extend, out);
}
int x_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  if (real(f)->pMethods->iVersion < 2) return SQLITE_IOERR;
  return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
}
void x_shm_barrier(sqlite3_file* f) {
  if (real(f)->pMethods->iVersion >= 2) real(f)->pMethods->xShmBarrier(real(f));
}
int x_shm_unmap(sqlite3_file* f, int del) {
  if (real(f)->pMethods->iVersion < 2) return SQLITE_OK;
  return real(f)->pMethods->xShmUnmap(real(f), del);
}
// No memory maps: every page comes through x_read, where it is checked.
int x_fetch(sqlite3_file*, sqlite3_int64, int, void** out) {
  *out = nullptr;
  return SQLITE_OK;
}
int x_unfetch(sqlite3_file*, sqlite3_int64, void*) { return SQLITE_OK; }

int x_open(sqlite3_vfs*, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  checked_file* p = as(f);
  std::memset(p, 0, sizeof *p);
  p->real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(p) + k_head);
  p->name = name;
  p->main_db = (flags & SQLITE_OPEN_MAIN_DB) != 0;
  const int rc = base_vfs()->xOpen(base_vfs(), name, p->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    if (p->real->pMethods != nullptr) p->real->pMethods->xClose(p->real);
    p->base.pMethods = nullptr;
    return rc;
  }
  p->base.pMethods = &g_io;
  return SQLITE_OK;
}

int v_delete(sqlite3_vfs*, const char* n, int sync) { return base_vfs()->xDelete(base_vfs(), n, sync); }
int v_access(sqlite3_vfs*, const char* n, int flags, int* out) { return base_vfs()->xAccess(base_vfs(), n, flags, out); }
int v_full(sqlite3_vfs*, const char* n, int size, char* out) { return base_vfs()->xFullPathname(base_vfs(), n, size, out); }
void* v_dlopen(sqlite3_vfs*, const char* n) { return base_vfs()->xDlOpen(base_vfs(), n); }
void v_dlerror(sqlite3_vfs*, int n, char* out) { base_vfs()->xDlError(base_vfs(), n, out); }
void (*v_dlsym(sqlite3_vfs*, void* h, const char* s))(void) { return base_vfs()->xDlSym(base_vfs(), h, s); }
void v_dlclose(sqlite3_vfs*, void* h) { base_vfs()->xDlClose(base_vfs(), h); }
int v_random(sqlite3_vfs*, int n, char* out) { return base_vfs()->xRandomness(base_vfs(), n, out); }
int v_sleep(sqlite3_vfs*, int us) { return base_vfs()->xSleep(base_vfs(), us); }
int v_time(sqlite3_vfs*, double* out) { return base_vfs()->xCurrentTime(base_vfs(), out); }
int v_last_error(sqlite3_vfs*, int n, char* out) { return base_vfs()->xGetLastError(base_vfs(), n, out); }
int v_time64(sqlite3_vfs*, sqlite3_int64* out) { return base_vfs()->xCurrentTimeInt64(base_vfs(), out); }

void register_vfs() {
  sqlite3_vfs* base = sqlite3_vfs_find(nullptr);
  g_io = sqlite3_io_methods{3,          x_close,          x_read,      x_write,    x_truncate,     x_sync,
                            x_file_size, x_lock,          x_unlock,    x_check_reserved, x_file_control, x_sector_size,
                            x_device,   x_shm_map,        x_shm_lock,  x_shm_barrier, x_shm_unmap, x_fetch,
                            x_unfetch};
  g_vfs.iVersion = 2;
  g_vfs.szOsFile = static_cast<int>(k_head) + base->szOsFile;
  g_vfs.mxPathname = base->mxPathname;
  g_vfs.zName = "omgdb-checked";
  g_vfs.pAppData = base;
  g_vfs.xOpen = x_open;
  g_vfs.xDelete = v_delete;
  g_vfs.xAccess = v_access;
  g_vfs.xFullPathname = v_full;
  g_vfs.xDlOpen = v_dlopen;
  g_vfs.xDlError = v_dlerror;
  g_vfs.xDlSym = v_dlsym;
  g_vfs.xDlClose = v_dlclose;
  g_vfs.xRandomness = v_random;
  g_vfs.xSleep = v_sleep;
  g_vfs.xCurrentTime = v_time;
  g_vfs.xGetLastError = v_last_error;
  g_vfs.xCurrentTimeInt64 = v_time64;
  sqlite3_vfs_register(&g_vfs, 0);
}

// --- damage marks ---

struct file_id {
  dev_t dev = 0;
  ino_t ino = 0;
};
std::optional<file_id> id_of(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  return file_id{st.st_dev, st.st_ino};
}

struct mark {
  file_id id;
  std::string why;
};
std::mutex g_marks_mu;
std::map<std::string, mark> g_marks;  // by path
constexpr std::size_t k_max_marks = 4096;

}  // namespace

void set_read_stop(const read_stop* s) noexcept { t_read_stop = s; }

const char* checked_vfs() {
  std::call_once(g_once, register_vfs);
  return g_vfs.zName;
}

std::uint64_t page_checksum(std::uint64_t pgno, const unsigned char* page, std::size_t size) {
  unsigned char n[8];
  put_le64(n, pgno);
  checksum64 c;
  c.update(n, sizeof n);
  c.update(page, size - k_page_reserve);
  return c.digest();
}

void mark_damaged(const fs::path& file, const std::string& why) {
  const auto id = id_of(file);
  if (!id) return;  // gone: nothing left to serve
  std::lock_guard lock(g_marks_mu);
  auto it = g_marks.find(file.string());
  if (it != g_marks.end() && it->second.id.dev == id->dev && it->second.id.ino == id->ino) return;  // keep the first reason
  if (g_marks.size() >= k_max_marks && it == g_marks.end()) g_marks.erase(g_marks.begin());
  g_marks[file.string()] = mark{*id, why};
}

std::optional<std::string> damage_of(const fs::path& file) {
  std::lock_guard lock(g_marks_mu);
  auto it = g_marks.find(file.string());
  if (it == g_marks.end()) return std::nullopt;
  const auto id = id_of(file);
  if (!id || id->dev != it->second.id.dev || id->ino != it->second.id.ino) {
    g_marks.erase(it);  // another file now (or none)
    return std::nullopt;
  }
  return it->second.why;
}

void forget_damage(const fs::path& file) {
  std::lock_guard lock(g_marks_mu);
  g_marks.erase(file.string());
}

result<page_report> check_pages(const fs::path& file) {
  page_report out;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open search generation `" + file.string() + "` to check it", failure_kind::io);
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } close_it{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_error("cannot read search generation `" + file.string() + "`", failure_kind::io);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  unsigned char h[100];
  if (size < 100 || ::pread(fd, h, 100, 0) != 100 || std::memcmp(h, "SQLite format 3", 16) != 0) {
    out.why = "it is not a SQLite database";
    return out;
  }
  const std::uint32_t page = header_page_size(h);
  if (page < 512 || (page & (page - 1)) != 0) {
    out.why = "its header records no valid page size";
    return out;
  }
  if (h[20] != k_page_reserve) {
    out.old_format = true;
    out.why = "it has no page checksums (built by an older omgdb), so its content cannot be proven";
    return out;
  }
  if (size % page != 0) {
    out.why = "its size is not a whole number of pages";
    return out;
  }
  std::uint64_t pages = size / page;
  // SQLite reads no page past the database size its header records (when that field is
  // valid: its "version valid for" equals the change counter).
  if (std::memcmp(h + 92, h + 24, 4) == 0 && get_be32(h + 28) != 0) pages = std::min<std::uint64_t>(pages, get_be32(h + 28));
  // Freelist leaf pages may never be written (SQLite skips writing them): they are not
  // checked, and nothing is read from them. The trunk pages are checked like any page.
  std::vector<bool> skip(pages + 1, false);
  if (k_lock_byte / page + 1 <= pages) skip[k_lock_byte / page + 1] = true;
  std::vector<unsigned char> buf(page);
  auto read_page = [&](std::uint64_t pgno) -> bool {
    const auto off = static_cast<off_t>((pgno - 1) * page);
    return ::pread(fd, buf.data(), page, off) == static_cast<ssize_t>(page);
  };
  auto bad_page = [&](std::uint64_t pgno) {
    return get_le64(buf.data() + page - k_page_reserve) != page_checksum(pgno, buf.data(), page);
  };
  std::uint64_t trunk = get_be32(h + 32);
  for (std::uint64_t hops = 0; trunk != 0; ++hops) {
    if (trunk > pages || hops > pages || !read_page(trunk) || bad_page(trunk)) {
      out.why = "its freelist is damaged (page " + std::to_string(trunk) + ")";
      return out;
    }
    const std::uint32_t leaves = get_be32(buf.data() + 4);
    if (leaves > (page - k_page_reserve) / 4 - 2) {
      out.why = "its freelist is damaged (page " + std::to_string(trunk) + ")";
      return out;
    }
    for (std::uint32_t i = 0; i < leaves; ++i) {
      const std::uint32_t leaf = get_be32(buf.data() + 8 + 4 * i);
      if (leaf >= 1 && leaf <= pages) skip[leaf] = true;
    }
    trunk = get_be32(buf.data());
  }
  constexpr std::size_t k_chunk = 1 << 20;
  const std::size_t per_read = std::max<std::size_t>(1, k_chunk / page);
  buf.resize(per_read * page);
  for (std::uint64_t first = 1; first <= pages; first += per_read) {
    OMGDB_CHECK(current_budget().check());  // a deadline or cancellation stops the check
    const std::uint64_t n = std::min<std::uint64_t>(per_read, pages - first + 1);
    const auto want = static_cast<ssize_t>(n * page);
    if (::pread(fd, buf.data(), static_cast<std::size_t>(want), static_cast<off_t>((first - 1) * page)) != want) {
      return make_error("cannot read search generation `" + file.string() + "`", failure_kind::io);
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t pgno = first + i;
      if (skip[pgno]) continue;
      const unsigned char* p = buf.data() + i * page;
      if (get_le64(p + page - k_page_reserve) != page_checksum(pgno, p, page)) {
        out.why = "page " + std::to_string(pgno) + " fails its checksum";
        return out;
      }
    }
  }
  out.pages = pages;
  out.ok = true;
  return out;
}

}  // namespace omgdb::engine::search
