// `omgdb doctor`: checks a setup — the config, store roots and their permissions, the HTTP
// port, token strength, SQL connections reachable (a TCP or Unix-socket connect, or a
// readable SQLite file; no login is attempted) — and says what to fix. Exit status 1 when a
// check fails. Never prints a secret.
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>

#include "auth/origin.hpp"
#include "auth/token.hpp"
#include "daemon/commands.hpp"
#include "daemon/http_setup.hpp"
#include "daemon/runtime.hpp"

namespace omgdb::daemon {
namespace {

struct report {
  int failures = 0, warnings = 0;
  void ok(const std::string& what) { std::cout << "ok    " << what << "\n"; }
  void warn(const std::string& what, const std::string& fix) {
    ++warnings;
    std::cout << "warn  " << what << "\n      fix: " << fix << "\n";
  }
  void fail(const std::string& what, const std::string& fix) {
    ++failures;
    std::cout << "FAIL  " << what << "\n      fix: " << fix << "\n";
  }
};

// Connects to host:port (TCP) within 2 s; "" on success, else why not.
std::string tcp_reachable(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0) return std::string("cannot resolve: ") + ::gai_strerror(rc);
  std::string why = "no address";
  for (addrinfo* a = res; a; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int r = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (r != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      r = ::poll(&p, 1, 2000) == 1 ? 0 : -1;
      int err = 0;
      socklen_t len = sizeof err;
      if (r == 0 && (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)) {
        errno = err;
        r = -1;
      } else if (r != 0) {
        errno = ETIMEDOUT;
      }
    }
    why = r == 0 ? "" : std::strerror(errno);
    ::close(fd);
    if (why.empty()) break;
  }
  ::freeaddrinfo(res);
  return why;
}

std::string unix_reachable(const std::string& path) {
  sockaddr_un sa{};
  if (path.size() >= sizeof sa.sun_path) return "socket path too long";
  sa.sun_family = AF_UNIX;
  std::memcpy(sa.sun_path, path.c_str(), path.size());
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::strerror(errno);
  int r = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  std::string why = r == 0 ? "" : std::strerror(errno);
  ::close(fd);
  return why;
}

void check_connection(report& out, const config::connection& c) {
  std::string who = "connection `" + c.name + "` (" + std::string(config::kind_name(c)) + ")";
  if (config::text_check_only(c)) {
    // Seed 003: SQL Server and ODBC rely on the text check alone; say so for each one.
    out.warn(who + ": " + std::string(config::k_text_check_notice),
             "connect as a database user that has no write rights (the database does not back omgdb's "
             "read-only check up on this kind; docs/sql-safety.md)");
    if (!c.odbc.empty()) return out.ok(who + ": ODBC connection string set (the driver is loaded and the login tried "
                                             "on first use, not here)");
  }
  if (c.dialect == config::sql_dialect::sqlite && !config::text_check_only(c)) {
    if (::access(c.file.c_str(), R_OK) != 0) {
      return out.fail(who + ": cannot read " + c.file + ": " + std::strerror(errno),
                      "create the database file or fix `file`, and let the daemon's user read it");
    }
    if (c.access == config::mcp_access::read_write && ::access(c.file.c_str(), W_OK) != 0) {
      return out.warn(who + ": " + c.file + " is not writable but mcp_access is read-write",
                      "grant write permission, or set mcp_access = \"read-only\"");
    }
    return out.ok(who + ": " + c.file + " is readable");
  }
  std::uint16_t port = c.port                                      ? c.port
                       : c.dialect == config::sql_dialect::postgres ? 5432
                       : c.dialect == config::sql_dialect::mssql    ? 1433
                                                                    : 3306;
  std::string why, target;
  if (!c.host.empty() && c.host[0] == '/') {
    struct stat st {};
    bool dir = ::stat(c.host.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    target = dir && c.dialect == config::sql_dialect::postgres ? c.host + "/.s.PGSQL." + std::to_string(port) : c.host;
    why = unix_reachable(target);
  } else {
    target = c.host + ":" + std::to_string(port);
    why = tcp_reachable(c.host, port);
  }
  if (!why.empty()) {
    return out.fail(who + ": cannot connect to " + target + ": " + why,
                    "start the database server, or fix `host`/`port` in [[connections]]");
  }
  out.ok(who + ": " + target + " accepts connections (login not tried)");
}

void check_roots(report& out, const config::settings& s) {
  auto roots = http_store_roots(s);  // what `omgdb serve` confines to
  if (roots.empty()) {
    return out.warn("[stores] unconfined = true: over HTTP a tool may open a store anywhere the daemon's user can write",
                    "set [stores] roots = [\"/var/lib/omgdb/stores\"] (or --store-root), or remove `unconfined`");
  }
  if (s.store_roots.empty()) {
    out.ok("no store roots configured: over HTTP stores and imported files are confined to the data directory " +
           roots.front().string());
    struct stat st {};
    if (::stat(roots.front().c_str(), &st) != 0) return out.ok(roots.front().string() + " will be created by serve");
  }
  for (const auto& root : roots) {
    struct stat st {};
    if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      out.fail("store root " + root.string() + " is not a directory", "mkdir -p " + root.string() + " (owned by the daemon's user)");
    } else if (::access(root.c_str(), W_OK | X_OK) != 0) {
      out.fail("store root " + root.string() + " is not writable by this user", "chown it to the user that runs omgdb");
    } else if (st.st_mode & S_IWOTH) {
      out.warn("store root " + root.string() + " is world-writable", "chmod o-w " + root.string());
    } else {
      out.ok("store root " + root.string() + " is a writable directory");
    }
  }
}

void check_port(report& out, const config::settings& s) {
  auto address = auth::parse_listen_address(s.http.listen);
  if (!address) return out.fail("http.listen: " + address.error().message, "use HOST:PORT, e.g. 127.0.0.1:41922");
  if (address->port == 0) return out.ok("http.listen " + s.http.listen + ": the OS picks a port");
  std::string host = address->host == "localhost" ? "127.0.0.1" : address->host;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(address->port).c_str(), &hints, &res) != 0 || !res) {
    return out.fail("http.listen " + s.http.listen + " is not a numeric address", "use 127.0.0.1:PORT or [::1]:PORT");
  }
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  bool free = fd >= 0 && ::bind(fd, res->ai_addr, res->ai_addrlen) == 0;
  int err = errno;
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(res);
  if (free) return out.ok("port " + s.http.listen + " is free");
  out.warn("cannot bind " + s.http.listen + ": " + std::strerror(err) + " (is omgdb serve already running?)",
           "stop the other process, or choose another port in http.listen / --listen");
}

// `make run` keeps its token in a file and passes it as OMGDB_HTTP_TOKEN: true when that file
// holds a usable token (reported), false when there is none.
bool check_token_file(report& out) {
  auto file = make_run_token_file();
  struct stat st {};
  if (file.empty() || ::stat(file.c_str(), &st) != 0 || st.st_size == 0) return false;
  std::ifstream in(file);
  std::string token;
  std::getline(in, token);
  if (auto ok = auth::check_token_text(token); !ok) {
    out.fail(file.string() + " (the token file `make run` uses): " + ok.error().message,
             "omgdb token new > " + file.string());
    return true;
  }
  if (st.st_mode & (S_IRGRP | S_IROTH)) {
    out.warn(file.string() + " holds the bearer token and others can read it", "chmod 600 " + file.string());
  }
  out.ok("bearer token in " + file.string() + ", which `make run` passes as OMGDB_HTTP_TOKEN (not shown); " +
         "`omgdb serve` alone needs OMGDB_HTTP_TOKEN=$(cat " + file.string() + ")");
  return true;
}

void check_tokens(report& out, const config::settings& s) {
  const char* env = std::getenv("OMGDB_HTTP_TOKEN");
  if (env && *env) {
    std::string token(env);
    std::set<char> distinct(token.begin(), token.end());
    if (auto ok = auth::check_token_text(token); !ok) {
      out.fail("OMGDB_HTTP_TOKEN: " + ok.error().message, "export OMGDB_HTTP_TOKEN=$(omgdb token new)");
    } else if (token.size() < 32 || distinct.size() < 10) {
      out.warn("OMGDB_HTTP_TOKEN is weak (" + std::to_string(token.size()) + " characters, " +
                   std::to_string(distinct.size()) + " distinct)",
               "use a random token: export OMGDB_HTTP_TOKEN=$(omgdb token new)");
    } else {
      out.ok("OMGDB_HTTP_TOKEN is set and looks random enough (not shown)");
    }
  }
  if (!s.http.tokens.empty()) out.ok(std::to_string(s.http.tokens.size()) + " token hash(es) in the config");
  if ((!env || !*env) && s.http.tokens.empty() && check_token_file(out)) return;
  if ((!env || !*env) && s.http.tokens.empty()) {
    out.warn("no bearer token: `omgdb serve` will refuse to start",
             "run `omgdb token new --name NAME` and add the printed entry to the config, or export "
             "OMGDB_HTTP_TOKEN=$(omgdb token new) (`make run` keeps one in " + make_run_token_file().string() + ")");
  }
}

// A config file that others can read must not hold secrets literally (`password = "…"` or
// a token `value = "…"` that is not an `${env:NAME}` reference).
void check_config_secrets(report& out, const std::string& file) {
  struct stat st {};
  if (file.empty() || ::stat(file.c_str(), &st) != 0) return;
  std::ifstream in(file);
  std::string line;
  bool literal = false;
  while (std::getline(in, line)) {
    auto key = line.find_first_not_of(" \t");
    if (key == std::string::npos || line[key] == '#') continue;
    bool secret_key = line.compare(key, 8, "password") == 0 || line.compare(key, 5, "value") == 0;
    auto eq = line.find('=', key);
    if (!secret_key || eq == std::string::npos) continue;
    auto v = line.find_first_not_of(" \t", eq + 1);
    if (v != std::string::npos && line.compare(v, 7, "\"${env:") != 0) literal = true;
  }
  if (!literal) return;
  if (st.st_mode & (S_IRGRP | S_IROTH)) {
    out.fail(file + " holds a password or token literally and others can read it",
             "use \"${env:NAME}\" for secrets (systemd: /etc/omgdb/omgdb.env), or chmod 600 " + file);
  } else {
    out.warn(file + " holds a password or token literally", "prefer \"${env:NAME}\" references for secrets");
  }
}

void check_state_dir(report& out, const config::settings& s) {
  std::string dir = s.http.state_dir;
  if (dir.empty()) {
    const char* sd = std::getenv("STATE_DIRECTORY");
    const char* xdg = std::getenv("XDG_STATE_HOME");
    const char* home = std::getenv("HOME");
    dir = sd && *sd ? std::string(sd) : xdg && *xdg ? std::string(xdg) + "/omgdb" : home ? std::string(home) + "/.local/state/omgdb" : "";
  }
  if (dir.empty()) return out.warn("no state directory: HTTP sessions will not survive a restart", "set http.state_dir");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return out.ok("state directory " + dir + " will be created by serve");
  if (!S_ISDIR(st.st_mode) || ::access(dir.c_str(), W_OK | X_OK) != 0) {
    return out.fail("state directory " + dir + " is not a writable directory", "fix http.state_dir or its owner");
  }
  out.ok("state directory " + dir + " is writable");
}

}  // namespace

int run_doctor(const std::optional<std::string>& config_file) {
  report out;
  auto s = effective_settings(config_file, config::overrides{});
  if (!s) {
    out.fail("config: " + s.error().message, "correct the file (`omgdb config check` repeats this message)");
    std::cout << "\n1 problem to fix.\n";
    return 1;
  }
  out.ok("config: " + (s->source.empty() ? std::string("no file found, defaults in use") : s->source));
  if (::geteuid() == 0) out.warn("running as root", "run omgdb as a dedicated user (the systemd unit uses `omgdb`)");
  check_config_secrets(out, s->source);
  check_roots(out, *s);
  check_state_dir(out, *s);
  check_port(out, *s);
  check_tokens(out, *s);
  for (const auto& c : s->connections) {
    if (c.access == config::mcp_access::off) {
      out.ok("connection `" + c.name + "`: mcp_access is off (not checked)");
      continue;
    }
    check_connection(out, c);
  }
  std::cout << "\n" << out.failures << " problem(s), " << out.warnings << " warning(s).\n";
  return out.failures ? 1 : 0;
}

}  // namespace omgdb::daemon
