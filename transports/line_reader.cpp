// omgdb transports — newline-delimited input (see line_reader.hpp).
#include "transports/line_reader.hpp"

#include <unistd.h>

#include <cerrno>

namespace omgdb::transports {

void read_lines(int fd, std::size_t max_line_bytes, const std::function<void(std::string&)>& on_line,
                const std::function<void(std::string_view)>& on_too_long,
                const std::function<void()>& on_read_done) {
  std::string buf;
  std::string chunk(64 * 1024, '\0');
  bool discarding = false;
  for (;;) {
    ssize_t n = ::read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::size_t start = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
      if (chunk[i] != '\n') continue;
      if (!discarding) {
        buf.append(chunk, start, i - start);
        // The limit holds for a line that ends in the read that crosses it, too.
        if (buf.size() > max_line_bytes) {
          on_too_long(buf);
        } else {
          on_line(buf);
        }
      }
      buf.clear();
      discarding = false;
      start = i + 1;
    }
    if (!discarding) buf.append(chunk, start, static_cast<std::size_t>(n) - start);
    if (!discarding && buf.size() > max_line_bytes) {
      on_too_long(buf);
      buf = std::string();
      discarding = true;
    }
    if (on_read_done) on_read_done();
  }
  if (!discarding && !buf.empty()) on_line(buf);
}

}  // namespace omgdb::transports
