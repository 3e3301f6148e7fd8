// The admin channel's server side: a POSIX thread polling a Unix socket (sql/admin.hpp).
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>
#include <thread>

#include "common/json.hpp"
#include "common/log.hpp"
#include "sql/admin.hpp"

namespace omgdb::sql {
namespace fs = std::filesystem;
namespace bj = boost::json;

fs::path admin_socket_dir() {
  if (const char* rt = std::getenv("RUNTIME_DIRECTORY"); rt && *rt == '/') {
    std::string s(rt);
    return fs::path(s.substr(0, s.find(':'))) / "admin";
  }
  if (const char* rt = std::getenv("XDG_RUNTIME_DIR"); rt && *rt == '/') return fs::path(rt) / "omgdb" / "admin";
  if (const char* sd = std::getenv("STATE_DIRECTORY"); sd && *sd == '/') {
    std::string s(sd);
    return fs::path(s.substr(0, s.find(':'))) / "admin";
  }
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg == '/') return fs::path(xdg) / "omgdb" / "admin";
  if (const char* home = std::getenv("HOME"); home && *home == '/') {
    return fs::path(home) / ".local" / "state" / "omgdb" / "admin";
  }
  return {};
}

namespace {

constexpr std::size_t max_clients = 16;
constexpr std::size_t max_line = 64 * 1024;

bj::object refuse(std::string message) { return bj::object{{"ok", false}, {"error", std::move(message)}}; }

bool peer_is_owner(int fd) {
  struct ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  return cred.uid == ::geteuid();
}

}  // namespace

namespace {

std::mutex extension_mu;
admin_extension extension;

}  // namespace

void set_admin_extension(admin_extension handler) {
  std::lock_guard<std::mutex> lk(extension_mu);
  extension = std::move(handler);
}

bj::object admin_answer(approval_queue& queue, const bj::object& req) {
  auto op_it = req.find("op");
  if (op_it == req.end() || !op_it->value().is_string()) return refuse("missing `op`");
  std::string op(op_it->value().get_string());
  if (op != "ping" && op != "list" && op != "watch" && op != "show" && op != "approve" && op != "reject") {
    admin_extension handler;
    {
      std::lock_guard<std::mutex> lk(extension_mu);
      handler = extension;
    }
    if (handler) {
      if (auto answer = handler(req)) return std::move(*answer);
    }
  }
  bool takes_id = op == "show" || op == "approve" || op == "reject";
  for (const auto& kv : req) {
    if (kv.key() == "op" || (takes_id && kv.key() == "id")) continue;
    return refuse("unknown field `" + std::string(kv.key()) + "` for `" + op +
                  "`: a decision carries only the approval id; the daemon runs the SQL it stored");
  }
  std::string id;
  if (takes_id) {
    auto it = req.find("id");
    if (it == req.end() || !it->value().is_string() || it->value().get_string().empty()) {
      return refuse("`" + op + "` needs an `id`");
    }
    id = std::string(it->value().get_string());
  }
  if (op == "ping") return bj::object{{"ok", true}, {"pid", ::getpid()}};
  if (op == "list" || op == "watch") {
    bj::array pending;
    for (auto& a : queue.list()) pending.push_back(std::move(a));
    return bj::object{{"ok", true}, {"pid", ::getpid()}, {"pending", std::move(pending)}};
  }
  if (op == "show") {
    auto a = queue.show(id);
    if (!a) return refuse("no pending approval `" + id + "`");
    return bj::object{{"ok", true}, {"approval", std::move(*a)}};
  }
  if (op == "approve" || op == "reject") {
    auto s = queue.decide(id, op == "approve");
    if (!s) return refuse(s.error().message);
    return bj::object{{"ok", true}, {"id", id}, {"decision", op == "approve" ? "approved" : "rejected"}};
  }
  return refuse("unknown op `" + op + "`: use ping, list, show, approve, reject or watch");
}

struct admin_server::impl {
  approval_queue& queue;
  fs::path path;
  int listen_fd = -1;
  std::atomic<bool> stop{false};
  std::thread acceptor;
  std::mutex mu;
  struct client {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<client> clients;
  std::atomic<std::size_t> live{0};

  explicit impl(approval_queue& q) : queue(q) {}

  void serve_client(int fd) {
    std::string buf;
    char chunk[4096];
    bool watching = false;
    std::uint64_t seen = 0;
    while (!stop) {
      if (watching) {
        std::uint64_t now = queue.wait_change(seen, std::chrono::milliseconds(200));
        if (now != seen) {
          seen = now;
          if (!admin_send_line(fd, admin_answer(queue, bj::object{{"op", "watch"}}))) break;
        }
      }
      pollfd p{fd, POLLIN, 0};
      int r = ::poll(&p, 1, watching ? 0 : 200);
      if (r < 0 && errno != EINTR) break;
      if (r <= 0) continue;
      ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      buf.append(chunk, static_cast<std::size_t>(n));
      if (buf.size() > max_line) {
        admin_send_line(fd, refuse("request line too long"));
        break;
      }
      std::size_t nl;
      while ((nl = buf.find('\n')) != std::string::npos) {
        std::string line = buf.substr(0, nl);
        buf.erase(0, nl + 1);
        auto v = json::parse_strict(line);
        bj::object answer;
        if (!v || !v->is_object()) {
          answer = refuse("each request is one JSON object on one line");
        } else {
          answer = admin_answer(queue, v->get_object());
          auto op = v->get_object().find("op");
          if (answer["ok"].as_bool() && op != v->get_object().end() && op->value() == "watch") {
            watching = true;
            seen = queue.wait_change(0, std::chrono::milliseconds(0));
          }
        }
        if (!admin_send_line(fd, answer)) break;
      }
    }
    ::close(fd);
    --live;
  }

  void accept_loop() {
    while (!stop) {
      pollfd p{listen_fd, POLLIN, 0};
      int r = ::poll(&p, 1, 200);
      if (r <= 0) continue;
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (!peer_is_owner(fd)) {
        log::warning("admin channel: dropped a connection from another user");
        ::close(fd);
        continue;
      }
      if (live >= max_clients) {
        admin_send_line(fd, refuse("too many admin clients"));
        ::close(fd);
        continue;
      }
      ++live;
      std::lock_guard lock(mu);
      for (auto it = clients.begin(); it != clients.end();) {  // join the clients that left
        if (!it->done->load()) {
          ++it;
          continue;
        }
        it->thread.join();
        it = clients.erase(it);
      }
      auto done = std::make_shared<std::atomic<bool>>(false);
      clients.push_back(client{std::thread([this, fd, done] {
                                 serve_client(fd);
                                 *done = true;
                               }),
                               done});
    }
  }
};

admin_server::admin_server(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

const fs::path& admin_server::socket_path() const noexcept { return impl_->path; }

result<std::unique_ptr<admin_server>> admin_server::start(const fs::path& dir, approval_queue& queue) {
  if (dir.empty()) return make_error("no directory for the admin socket (set XDG_RUNTIME_DIR or HOME)");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create " + dir.string() + ": " + ec.message());
  if (::chmod(dir.c_str(), 0700) != 0) return make_error("cannot make " + dir.string() + " private");
  auto p = std::make_unique<impl>(queue);
  p->path = dir / (std::to_string(::getpid()) + ".sock");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (p->path.string().size() >= sizeof addr.sun_path) {
    return make_error("the admin socket path " + p->path.string() + " is too long for a Unix socket");
  }
  std::strcpy(addr.sun_path, p->path.c_str());
  ::unlink(p->path.c_str());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(std::string("cannot create the admin socket: ") + std::strerror(errno));
  mode_t old = ::umask(0177);
  int b = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::umask(old);
  if (b != 0 || ::chmod(p->path.c_str(), 0600) != 0 || ::listen(fd, 16) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return make_error("cannot listen on " + p->path.string() + ": " + why);
  }
  p->listen_fd = fd;
  auto* raw = p.get();
  p->acceptor = std::thread([raw] { raw->accept_loop(); });
  return std::unique_ptr<admin_server>(new admin_server(std::move(p)));
}

admin_server::~admin_server() {
  impl_->stop = true;
  if (impl_->acceptor.joinable()) impl_->acceptor.join();
  {
    std::lock_guard lock(impl_->mu);
    for (auto& c : impl_->clients) c.thread.join();
  }
  ::close(impl_->listen_fd);
  ::unlink(impl_->path.c_str());
}

}  // namespace omgdb::sql
