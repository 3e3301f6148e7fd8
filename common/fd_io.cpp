#include "common/fd_io.hpp"

#include <unistd.h>

#include <cerrno>

namespace omgdb::fd_io {

bool write_all(int fd, std::string_view bytes) noexcept {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace omgdb::fd_io
