// `omgdb console [--config F] [--listen HOST:PORT]` (docs/console.md): the web console for a
// setup whose servers speak stdio only. It serves /console on its own loopback listener (no
// /mcp), prints a one-time login link to its own stdout (the person's terminal), and reaches
// the running servers through their admin sockets (sql/admin.hpp): the approvals of every
// live process, decided with the same single-use, bound, fail-closed rules as `omgdb
// approvals`; the SQL call history from the state directory; the configured SQL connections.
#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>

#include "common/json.hpp"
#include "common/log.hpp"
#include "daemon/console_cmd.hpp"
#include "daemon/console_wiring.hpp"
#include "daemon/http_setup.hpp"
#include "daemon/logging.hpp"
#include "daemon/runtime.hpp"
#include "sql/admin.hpp"
#include "sql/history.hpp"
#include "sql/worksheet.hpp"
#include "transports/http_server.hpp"

namespace omgdb::daemon {
namespace bj = boost::json;
namespace console = transports::console;

namespace {

// The pending approvals of every live server, polled every 500 ms on a thread of its own so
// that the event loop never waits on a socket.
class admin_poller {
 public:
  admin_poller() : thread_([this] { run(); }) {}
  ~admin_poller() {
    stop_ = true;
    thread_.join();
  }
  bj::array pending() const {
    std::lock_guard lock(mu_);
    return pending_;
  }
  std::uint64_t version() const {
    std::lock_guard lock(mu_);
    return version_;
  }
  status decide(std::string_view id, bool approve) {
    auto sockets = sql::admin_sockets(sql::admin_socket_dir());
    if (sockets.empty()) return make_error("no omgdb server is listening for approvals", failure_kind::unavailable);
    std::string last_error = "no pending approval `" + std::string(id) + "`";
    for (const auto& sock : sockets) {
      auto r = sql::admin_request(sock, bj::object{{"op", approve ? "approve" : "reject"}, {"id", id}});
      if (!r) continue;
      if (auto it = r->find("ok"); it != r->end() && it->value().is_bool() && it->value().get_bool()) {
        refresh();
        return {};
      }
      if (auto it = r->find("error"); it != r->end() && it->value().is_string()) {
        std::string e(it->value().get_string());
        if (e.find("no pending approval") == std::string::npos) last_error = e;  // the process that had it
      }
    }
    return make_error(last_error);
  }

 private:
  void refresh() {
    bj::array all;
    for (const auto& sock : sql::admin_sockets(sql::admin_socket_dir())) {
      auto r = sql::admin_request(sock, bj::object{{"op", "list"}});
      if (!r) continue;
      auto it = r->find("pending");
      if (it == r->end() || !it->value().is_array()) continue;
      for (auto& a : it->value().get_array()) {
        if (!a.is_object()) continue;
        bj::object o = a.get_object();
        o["server"] = sock.stem().string();  // the server's pid
        all.push_back(std::move(o));
        if (all.size() >= 256) break;
      }
    }
    // expiresInMs changes on every poll; the version follows the ids only.
    std::string ids;
    for (const auto& a : all) ids += json::serialize(a.as_object().at("id")) + ",";
    std::lock_guard lock(mu_);
    pending_ = std::move(all);
    if (ids != ids_) {
      ids_ = std::move(ids);
      ++version_;
    }
  }
  void run() {
    while (!stop_) {
      try {
        refresh();
      } catch (...) {
      }
      for (int i = 0; i < 5 && !stop_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  mutable std::mutex mu_;
  bj::array pending_;
  std::string ids_;
  std::uint64_t version_ = 1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

struct console_args {
  std::optional<std::string> config_file;
  std::string listen = "127.0.0.1:0";
};

int run_console(const console_args& a) {
  config::overrides given;
  auto loaded = effective_settings(a.config_file, given);
  if (!loaded) {
    std::cerr << "omgdb: " << loaded.error().message << "\n";
    return 2;
  }
  apply_logging(*loaded);
  auto configured = http_options_of(*loaded, a.listen, true, false);
  if (!configured) {
    std::cerr << "omgdb: " << configured.error().message << "\n";
    return 2;
  }
  transports::http_options http = std::move(*configured);
  http.no_auth = false;  // nothing but /console is served; /metrics stays behind a token nobody has
  http.tokens = {};
  http.serve_mcp = false;
  http.state_dir.clear();
  auto poller = std::make_shared<admin_poller>();
  auto settings = std::make_shared<const config::settings>(*loaded);
  auto history = std::make_shared<sql::history_log>(sql::default_state_dir());
  console::backend b;
  b.approvals = [poller] { return poller->pending(); };
  b.approvals_version = [poller] { return poller->version(); };
  b.decide = [poller](std::string_view id, bool approve) { return poller->decide(id, approve); };
  b.history = [history](const std::string& store, const std::string& connection) {
    bj::array out;
    if (!store.empty()) return out;  // the servers' document-store calls live in their own memory
    auto rows = history->read(connection, 500);
    for (auto it = rows.rbegin(); it != rows.rend(); ++it) {  // newest first, as the page expects
      bj::object o{{"time", it->contains("time") ? it->at("time") : bj::value("")},
                   {"tool", it->contains("tool") ? it->at("tool") : bj::value("")},
                   {"session", it->contains("session") ? it->at("session") : bj::value("")},
                   {"connection", it->contains("connection") ? it->at("connection") : bj::value("")},
                   {"durationMs", it->contains("durationMs") ? it->at("durationMs") : bj::value(0)},
                   {"outcome", it->contains("outcome") ? it->at("outcome") : bj::value("")}};
      if (it->contains("detail")) o["error"] = it->at("detail");
      out.push_back(std::move(o));
    }
    return out;
  };
  b.stores = [settings] {
    return bj::object{{"stores", bj::array()}, {"connections", console_connections(settings->connections)}};
  };
  http.on_listening = nullptr;
  enable_console(http, *loaded, std::move(b), print_to_stdout());
  auto inner = std::move(http.on_listening);
  http.on_listening = [inner = std::move(inner)](const std::string& url) {
    inner(url);
    std::cerr << "omgdb: console for the servers reachable through " << sql::admin_socket_dir().string()
              << "; Ctrl-C to stop\n";
  };
  mcp::server_options opts;
  opts.workers = 1;
  mcp::server srv(opts, {});
  return transports::run_http(srv, auth::scope::read, http);
}

}  // namespace

std::function<std::optional<int>()> add_console_command(CLI::App& app) {
  auto a = std::make_shared<console_args>();
  auto* cmd = app.add_subcommand("console", "Serve the local web console for the servers of this user (docs/console.md)");
  cmd->add_option_function<std::string>("--config", [a](const std::string& v) { a->config_file = v; },
                                        "Config file (default: the search list)");
  cmd->add_option("--listen", a->listen, "HOST:PORT, loopback only (default 127.0.0.1:0: the OS picks a port)");
  return [a, cmd]() -> std::optional<int> {
    if (!*cmd) return std::nullopt;
    return run_console(*a);
  };
}

}  // namespace omgdb::daemon
