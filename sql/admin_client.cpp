// The admin channel's client side, used by `omgdb approvals …` (sql/admin.hpp).
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/json.hpp"
#include "sql/admin.hpp"

namespace omgdb::sql {
namespace fs = std::filesystem;
namespace bj = boost::json;

namespace {

// A connected socket, or -1 with errno set.
int connect_to(const fs::path& socket) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket.string().size() >= sizeof addr.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::strcpy(addr.sun_path, socket.c_str());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    ::close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

// Reads one line; `timeout_ms` < 0 waits forever. Empty optional on EOF/timeout/error.
std::optional<std::string> read_line(int fd, std::string& buf, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (auto nl = buf.find('\n'); nl != std::string::npos) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      return line;
    }
    int wait = -1;
    if (timeout_ms >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return std::nullopt;
      wait = static_cast<int>(left);
    }
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, wait);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return std::nullopt;
    char chunk[4096];
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return std::nullopt;
    buf.append(chunk, static_cast<std::size_t>(n));
    if (buf.size() > (16u << 20)) return std::nullopt;
  }
}

}  // namespace

bool admin_send_line(int fd, const bj::object& message) {
  std::string text = json::serialize(message) + "\n";
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::send(fd, p, left, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

std::vector<fs::path> admin_sockets(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".sock") continue;
    int fd = connect_to(e.path());
    if (fd < 0) {
      if (errno == ECONNREFUSED) fs::remove(e.path(), ec);  // its process is gone
      continue;
    }
    ::close(fd);
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

result<bj::object> admin_request(const fs::path& socket, const bj::object& request, int timeout_ms) {
  int fd = connect_to(socket);
  if (fd < 0) return make_error("cannot reach " + socket.string() + ": " + std::strerror(errno), failure_kind::unavailable);
  std::string buf;
  std::optional<std::string> line;
  if (admin_send_line(fd, request)) line = read_line(fd, buf, timeout_ms);
  ::close(fd);
  if (!line) return make_error("no answer from " + socket.string(), failure_kind::unavailable);
  auto v = json::parse_strict(*line);
  if (!v || !v->is_object()) return make_error("unreadable answer from " + socket.string(), failure_kind::unavailable);
  return std::move(v->get_object());
}

status admin_watch(const fs::path& socket, const std::function<bool(const bj::object&)>& on_update) {
  int fd = connect_to(socket);
  if (fd < 0) return make_error("cannot reach " + socket.string() + ": " + std::strerror(errno), failure_kind::unavailable);
  std::string buf;
  status result_status;
  if (!admin_send_line(fd, bj::object{{"op", "watch"}})) result_status = make_error("cannot send to " + socket.string(), failure_kind::unavailable);
  while (result_status) {
    auto line = read_line(fd, buf, -1);
    if (!line) break;
    auto v = json::parse_strict(*line);
    if (!v || !v->is_object()) {
      result_status = make_error("unreadable answer from " + socket.string(), failure_kind::unavailable);
      break;
    }
    if (!on_update(v->get_object())) break;
  }
  ::close(fd);
  return result_status;
}

}  // namespace omgdb::sql
