// omgdb engine — the bounded JSON Lines reader of import_jsonl.
#include "engine/store/line_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace omgdb::engine {
namespace {

constexpr std::size_t k_chunk = 64 << 10;

std::string quote(const std::string& file) { return "`" + file + "`"; }

// Why `mode` is refused, or "" for a regular file.
std::string not_regular(const std::string& file, mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return quote(file) + " is a directory, not a JSON Lines file";
  const char* what = S_ISFIFO(mode)  ? "a FIFO (named pipe)"
                     : S_ISCHR(mode) ? "a character device"
                     : S_ISBLK(mode) ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "not a regular file";
  return quote(file) + " is " + what + ", not a regular file: import_jsonl reads regular files only";
}

}  // namespace

result<line_reader> line_reader::open(const std::string& file, std::size_t max_line,
                                      const std::atomic<bool>* cancelled) {
  struct stat st {};
  // A missing file is not_found, one this user may not read permission_denied, else io.
  auto open_kind = [](int err) {
    return err == ENOENT || err == ENOTDIR ? failure_kind::not_found
           : err == EACCES || err == EPERM ? failure_kind::permission_denied
                                           : failure_kind::io;
  };
  if (::stat(file.c_str(), &st) != 0) {
    const int err = errno;
    return make_error("cannot open " + quote(file) + ": " + std::strerror(err), open_kind(err));
  }
  if (auto why = not_regular(file, st.st_mode); !why.empty()) return make_error(why);
  // O_NONBLOCK: should the path have become a FIFO since the stat, opening it does not wait
  // for a writer (and the fstat below refuses it).
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    return make_error("cannot open " + quote(file) + ": " + std::strerror(err), open_kind(err));
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    std::string why = not_regular(file, st.st_mode);
    ::close(fd);
    return make_error(why.empty() ? "cannot read " + quote(file) : why);
  }
  return line_reader(fd, file, static_cast<std::uint64_t>(st.st_size), max_line, cancelled);
}

line_reader::line_reader(int fd, std::string file, std::uint64_t size, std::size_t max_line,
                         const std::atomic<bool>* cancelled)
    : fd_(fd), file_(std::move(file)), size_(size), max_line_(max_line), cancelled_(cancelled) {}

line_reader::line_reader(line_reader&& o) noexcept
    : fd_(o.fd_), file_(std::move(o.file_)), size_(o.size_), max_line_(o.max_line_), cancelled_(o.cancelled_),
      buf_(std::move(o.buf_)), pos_(o.pos_), eof_(o.eof_), started_(o.started_), consumed_(o.consumed_) {
  o.fd_ = -1;
}

line_reader::~line_reader() {
  if (fd_ >= 0) ::close(fd_);
}

status line_reader::refill() {
  if (cancelled_ != nullptr && cancelled_->load(std::memory_order_relaxed)) return make_error("cancelled", failure_kind::cancelled);
  buf_.resize(k_chunk);
  ssize_t n;
  do {
    n = ::read(fd_, buf_.data(), k_chunk);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return make_error("cannot read " + quote(file_) + ": " + std::strerror(errno));
  buf_.resize(static_cast<std::size_t>(n));
  pos_ = 0;
  eof_ = n == 0;
  if (!started_) {
    started_ = true;
    if (buf_.compare(0, 3, "\xEF\xBB\xBF") == 0) {  // a byte order mark is not part of line 1
      pos_ = 3;
      consumed_ += 3;
    }
  }
  return {};
}

result<line_reader::got> line_reader::next(std::string& line) {
  line.clear();
  bool too_long = false, any = false;
  while (true) {
    if (pos_ == buf_.size()) {
      if (eof_) break;
      if (auto r = refill(); !r) return std::move(r).error();
      if (eof_) break;
    }
    any = true;
    const char* start = buf_.data() + pos_;
    std::size_t avail = buf_.size() - pos_;
    const void* nl = std::memchr(start, '\n', avail);
    std::size_t take = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : avail;
    if (!too_long && line.size() + take > max_line_) {
      too_long = true;
      line.clear();
    }
    if (!too_long) line.append(start, take);
    pos_ += take + (nl ? 1 : 0);
    consumed_ += take + (nl ? 1 : 0);
    if (nl) break;
  }
  if (!any) return got::end;
  return too_long ? got::too_long : got::line;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > n) return i;
    // The second byte's range rules out overlong forms, surrogates and code points past U+10FFFF.
    unsigned char lo = 0x80, hi = 0xBF;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return std::nullopt;
}

}  // namespace omgdb::engine
