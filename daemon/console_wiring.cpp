#include "daemon/console_wiring.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <ctime>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "common/log.hpp"
#include "engine/search/search.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::daemon {
namespace bj = boost::json;
namespace console = transports::console;

void record_calls(mcp::server_options& opts, std::shared_ptr<mcp::call_history> history) {
  auto before = std::move(opts.on_call);
  opts.on_call = [before = std::move(before), history = std::move(history)](const mcp::call_event& e) {
    if (before) before(e);
    try {
      history->record(e);
    } catch (...) {
    }
  };
}

namespace {

// A TCP connect within 1 s (or a Unix socket path that exists), as a sign of life only.
bool tcp_reachable(const std::string& host, std::uint16_t port) {
  if (!host.empty() && host.front() == '/') return std::filesystem::exists(host);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  if (::getaddrinfo(host.empty() ? "localhost" : host.c_str(), std::to_string(port).c_str(), &hints, &list) != 0) {
    return false;
  }
  bool ok = false;
  for (addrinfo* a = list; a && !ok; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      ok = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof err;
      ok = ::poll(&p, 1, 1000) == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
    }
    ::close(fd);
  }
  ::freeaddrinfo(list);
  return ok;
}

std::string probe(const config::connection& c) {
  if (config::text_check_only(c) && !c.odbc.empty()) return "not probed (ODBC connection string)";
  if (c.dialect == config::sql_dialect::sqlite && !config::text_check_only(c)) {
    std::error_code ec;
    return std::filesystem::is_regular_file(c.file, ec) ? "yes (file present)" : "no (file missing)";
  }
  std::uint16_t port = c.port                                      ? c.port
                       : c.dialect == config::sql_dialect::postgres ? 5432
                       : c.dialect == config::sql_dialect::mssql    ? 1433
                                                                    : 3306;
  return tcp_reachable(c.host, port) ? "yes (accepts connections)" : "no (nothing answers)";
}

struct reachability {
  std::mutex mu;
  std::map<std::string, std::string> last;  // by connection name
  std::chrono::steady_clock::time_point probed{};
  bool running = false;
};

reachability& probes() {
  static reachability r;
  return r;
}

}  // namespace

bj::array console_connections(const std::vector<config::connection>& connections) {
  auto& r = probes();
  std::map<std::string, std::string> known;
  {
    std::lock_guard lock(r.mu);
    known = r.last;
    if (!r.running && std::chrono::steady_clock::now() - r.probed > std::chrono::seconds(30)) {
      r.running = true;
      std::thread([connections] {
        std::map<std::string, std::string> found;
        for (const auto& c : connections) {
          if (c.access != config::mcp_access::off) found[c.name] = probe(c);
        }
        auto& rr = probes();
        std::lock_guard l(rr.mu);
        rr.last = std::move(found);
        rr.probed = std::chrono::steady_clock::now();
        rr.running = false;
      }).detach();
    }
  }
  bj::array out;
  for (const auto& c : connections) {
    auto it = known.find(c.name);
    std::string reach = c.access == config::mcp_access::off ? "not probed (off)"
                        : it != known.end()                 ? it->second
                                                            : "checking…";
    bj::object entry{{"name", c.name},
                     {"label", c.label.empty() ? c.name : c.label},
                     {"dialect", std::string(config::to_string(c.dialect))},
                     {"kind", std::string(config::kind_name(c))},
                     {"access", std::string(config::to_string(c.access))},
                     {"approve", std::string(config::to_string(c.approve))},
                     {"reachable", reach}};
    if (config::text_check_only(c)) entry["readOnlyNotice"] = std::string(config::k_text_check_notice);
    out.push_back(std::move(entry));
  }
  return out;
}

console::backend local_console_backend(std::shared_ptr<sql::service> sql, std::shared_ptr<engine::store_registry> stores,
                                       std::shared_ptr<mcp::call_history> history,
                                       std::shared_ptr<live_settings> live) {
  console::backend b;
  if (sql) {
    b.approvals = [sql] {
      bj::array a;
      for (auto& o : sql->approvals().list()) a.push_back(std::move(o));
      return a;
    };
    b.approvals_version = [sql] { return sql->approvals().wait_change(0, std::chrono::milliseconds(0)); };
    b.decide = [sql](std::string_view id, bool approve) { return sql->approvals().decide(id, approve); };
  }
  b.history = [history](const std::string& store, const std::string& connection) {
    return mcp::to_json(history->recent({store, connection, ""}, 500));
  };
  b.history_version = [history] {
    auto last = history->recent({}, 1);
    return last.empty() ? std::uint64_t{0} : last.front().seq;
  };
  b.last_call = [history](std::string_view session) -> std::optional<bj::object> {
    auto r = history->last_of(session);
    if (!r) return std::nullopt;
    return bj::object{{"tool", r->tool}, {"outcome", r->outcome}, {"time", mcp::to_json(*r).at("time")}};
  };
  b.stores = [stores, history, live] {
    bj::array list;
    std::size_t shown = 0;
    for (const auto& path : history->stores()) {
      if (shown >= 20) break;
      // Only stores a call has used successfully: the console never opens a path an agent
      // merely named (a refused or mistyped one).
      auto ok = history->recent({path, "", ""}, 200);
      bool used = false;
      bj::object o{{"path", path}};
      for (const auto& r : ok) used = used || r.outcome == "ok";
      for (const auto& r : ok) {
        if (r.tool == "verify") {
          o["lastVerify"] = bj::object{{"outcome", r.outcome}, {"time", mcp::to_json(r).at("time")},
                                       {"durationMs", r.duration_ms}};
          break;
        }
      }
      std::error_code ec;
      if (!used || !std::filesystem::is_directory(path, ec)) continue;
      ++shown;
      auto st = stores->open(path);
      if (!st) {
        o["error"] = st.error().message;
        list.push_back(std::move(o));
        continue;
      }
      bj::array cols;
      if (auto cs = (*st)->collections()) {
        for (const auto& c : *cs) {
          bj::array idx;
          if (auto ix = (*st)->list_indexes(c.name)) {
            for (const auto& i : *ix) idx.push_back(bj::string(i.spec.name + (i.spec.unique ? " (unique)" : "")));
          }
          // Search indexes with their generation's lag and rebuild state (status reads only).
          bj::array search;
          if (auto ss = engine::search::manager::of(**st)->index_status(c.name, std::nullopt)) {
            for (const auto& d : *ss) {
              bj::value j = engine::to_boost_json(engine::value(d));
              const auto& o = j.as_object();
              bj::object e{{"name", o.at("name")}};
              const auto* gen = o.at("generation").if_object();
              e["lag"] = gen ? gen->at("lag") : bj::value();
              e["state"] = o.at("rebuild").as_object().at("state");
              search.push_back(std::move(e));
            }
          }
          cols.push_back(bj::object{{"name", c.name}, {"documents", c.documents}, {"indexes", std::move(idx)},
                                    {"search", std::move(search)}});
        }
      } else {
        o["error"] = cs.error().message;
      }
      o["collections"] = std::move(cols);
      list.push_back(std::move(o));
    }
    return bj::object{{"stores", std::move(list)}, {"connections", console_connections(live->current()->connections)}};
  };
  return b;
}

link_printer print_to_stderr() {
  return [](const std::string& url) {
    std::cerr << "omgdb: console login link (single use, expires soon; keep it private): " << url << "\n";
    std::cerr.flush();
  };
}

link_printer print_to_terminal() {
  return [](const std::string& url) {
    int fd = ::open("/dev/tty", O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
      log::warning("console: no terminal to print the login link on (it is never written to stderr, which the MCP "
                   "client reads); run `omgdb console` in a terminal instead");
      return;
    }
    std::string line = "omgdb: console login link (single use, expires soon; keep it private): " + url + "\n";
    ssize_t n = ::write(fd, line.data(), line.size());
    (void)n;
    ::close(fd);
  };
}

link_printer print_to_stdout() {
  return [](const std::string& url) {
    std::cout << "Open this one-time login link in your browser (single use, expires soon):\n  " << url << "\n";
    std::cout.flush();
  };
}

namespace {

// The approvals a person decided in this console, kept for the History page ("approved in the
// console at T"): the newest 200, in memory.
class decision_log {
 public:
  static constexpr std::size_t capacity = 200;

  // `approval` is the pending entry as approvals() listed it.
  void add(const bj::object& approval, bool approved) {
    auto text = [&](const char* key) {
      auto* v = approval.if_contains(key);
      return v && v->is_string() ? std::string(v->get_string()) : std::string();
    };
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm utc{};
    ::gmtime_r(&t, &utc);
    char iso[64], shown[40];  // iso: room for any int year (-Wformat-truncation)
    std::snprintf(iso, sizeof iso, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(ms));
    std::strftime(shown, sizeof shown, "%Y-%m-%d %H:%M:%S UTC", &utc);
    const std::string verdict = approved ? "approved" : "rejected";
    bj::object row{{"time", iso},
                   {"session", text("session")},
                   {"label", text("session")},
                   {"tool", text("kind") == "edit" ? "proposeSqlEdit" : "executeSql"},
                   {"connection", text("connection")},
                   {"durationMs", 0},
                   {"outcome", verdict},
                   {"decision", true},
                   {"note", verdict + " in the console at " + shown + " (request " + text("request") + ")"}};
    std::lock_guard lock(mu_);
    rows_.push_front(std::move(row));
    if (rows_.size() > capacity) rows_.pop_back();
    ++count_;
  }

  // `calls` (newest first) with the decisions that pass the filter, newest first.
  bj::array merge(bj::array calls, const std::string& store, const std::string& connection) const {
    std::lock_guard lock(mu_);
    if (!store.empty() || rows_.empty()) return calls;
    bj::array out;
    out.reserve(calls.size() + rows_.size());
    auto time_of = [](const bj::value& v) {
      auto* t = v.is_object() ? v.get_object().if_contains("time") : nullptr;
      return t && t->is_string() ? std::string_view(t->get_string()) : std::string_view();
    };
    std::size_t c = 0;
    for (const auto& d : rows_) {
      if (!connection.empty() && d.at("connection").as_string() != connection) continue;
      while (c < calls.size() && time_of(calls[c]) >= time_of(d)) out.push_back(std::move(calls[c++]));
      out.push_back(d);
    }
    while (c < calls.size()) out.push_back(std::move(calls[c++]));
    return out;
  }

  std::uint64_t count() const {
    std::lock_guard lock(mu_);
    return count_;
  }

 private:
  mutable std::mutex mu_;
  std::deque<bj::object> rows_;  // newest first
  std::uint64_t count_ = 0;
};

// `b` with every decision made through it kept in its history.
console::backend with_decisions(console::backend b) {
  if (!b.decide || !b.approvals) return b;
  auto log = std::make_shared<decision_log>();
  b.decide = [log, decide = std::move(b.decide), list = b.approvals](std::string_view id, bool approve) -> status {
    std::optional<bj::object> which;
    for (const auto& a : list()) {
      if (!a.is_object()) continue;
      auto* v = a.get_object().if_contains("id");
      if (v && v->is_string() && v->get_string() == id) which = a.get_object();
    }
    auto st = decide(id, approve);
    if (st && which) log->add(*which, approve);
    return st;
  };
  auto history = std::move(b.history);
  b.history = [log, history](const std::string& store, const std::string& connection) {
    return log->merge(history ? history(store, connection) : bj::array(), store, connection);
  };
  auto version = std::move(b.history_version);
  b.history_version = [log, version] { return (version ? version() : 0) + log->count(); };
  return b;
}

}  // namespace

void enable_console(transports::http_options& http, const config::settings& s, console::backend b, link_printer print) {
  b = with_decisions(std::move(b));
  auto base = std::make_shared<std::string>();
  console::settings cs;
  cs.login_ttl = s.console.login_ttl;
  cs.on_login_link = [base, print](const std::string& path) { print(*base + path); };
  auto site = std::make_shared<console::site>(std::move(b), std::move(cs));
  http.console = site;
  auto before = std::move(http.on_listening);
  http.on_listening = [before = std::move(before), base, site, path = http.path](const std::string& url) {
    if (before) before(url);
    *base = url.substr(0, url.size() - std::min(url.size(), path.size()));
    std::cerr << "omgdb: web console at " << *base << "/console/\n";
    if (auto link = site->mint_login(); !link) log::error(link.error().message);
  };
}

}  // namespace omgdb::daemon
