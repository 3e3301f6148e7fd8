// omgdb common — writing a whole buffer to a file descriptor.
#pragma once

#include <string_view>

namespace omgdb::fd_io {

// Writes all of `bytes` to `fd`, retrying after EINTR and short writes. False on the first
// failure, with errno saying why (EIO when write(2) returned 0).
bool write_all(int fd, std::string_view bytes) noexcept;

}  // namespace omgdb::fd_io
