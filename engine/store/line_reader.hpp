// omgdb engine — reading a JSON Lines file line by line with a bound (import_jsonl).
//
// `line_reader` reads a regular file in 64 KiB chunks. A line longer than `max_line` bytes is
// never held: the reader stops keeping it at the bound and skips to the next newline, so memory
// stays at `max_line` whatever the file holds. The cancellation flag is checked before every
// chunk. A UTF-8 byte order mark at the start of the file is skipped. Not thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace omgdb::engine {

class line_reader {
 public:
  // Opens `file` for reading; refuses what is not a regular file (a directory, a FIFO, a
  // device, a socket) without blocking on it.
  static result<line_reader> open(const std::string& file, std::size_t max_line,
                                  const std::atomic<bool>* cancelled);
  line_reader(line_reader&& other) noexcept;
  line_reader& operator=(line_reader&&) = delete;
  ~line_reader();

  enum class got { line, too_long, end };
  // The next line (without its '\n') in `line`; `too_long` leaves `line` empty. An error is a
  // read failure or "cancelled".
  result<got> next(std::string& line);

  std::uint64_t bytes_read() const noexcept { return consumed_; }
  std::uint64_t file_size() const noexcept { return size_; }

 private:
  line_reader(int fd, std::string file, std::uint64_t size, std::size_t max_line, const std::atomic<bool>* cancelled);
  status refill();

  int fd_ = -1;
  std::string file_;
  std::uint64_t size_ = 0;
  std::size_t max_line_ = 0;
  const std::atomic<bool>* cancelled_ = nullptr;
  std::string buf_;
  std::size_t pos_ = 0;
  bool eof_ = false;
  bool started_ = false;
  std::uint64_t consumed_ = 0;
};

// The offset of the first byte of `text` that is not well-formed UTF-8 (overlong forms,
// surrogates and code points past U+10FFFF are not), or nullopt when it all is.
std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept;

}  // namespace omgdb::engine
