// `omgdb approvals list|show|approve|reject|watch`, `omgdb sql use|edit|show`, `omgdb history`.
#include "daemon/cli_sql.hpp"

#include <unistd.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/json.hpp"
#include "config/config.hpp"
#include "sql/admin.hpp"
#include "sql/history.hpp"
#include "sql/worksheet.hpp"

namespace omgdb::daemon {
namespace bj = boost::json;
namespace fs = std::filesystem;

namespace {

struct sql_cli_args {
  std::string id;
  std::string name;
  std::string file = "-";
  std::string connection;
  std::string config_file;
  std::size_t limit = 50;
  bool as_json = false;
};

std::string str(const bj::object& o, std::string_view key) {
  auto it = o.find(key);
  if (it == o.end()) return {};
  if (it->value().is_string()) return std::string(it->value().get_string());
  return json::serialize(it->value());
}

std::string one_line(std::string s, std::size_t max) {
  for (auto& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

int no_server() {
  std::cerr << "omgdb: no omgdb process is listening for approvals (no live socket in "
            << sql::admin_socket_dir().string()
            << ").\nStart `omgdb serve` or `omgdb mcp` with SQL connections configured and `[approvals] enabled = true`.\n";
  return 1;
}

// Every pending approval of every live process.
std::vector<bj::object> all_pending(bool& reached) {
  std::vector<bj::object> out;
  reached = false;
  for (const auto& sock : sql::admin_sockets(sql::admin_socket_dir())) {
    auto r = sql::admin_request(sock, bj::object{{"op", "list"}});
    if (!r || !r->contains("pending")) continue;
    reached = true;
    for (auto& a : r->at("pending").as_array()) out.push_back(a.as_object());
  }
  return out;
}

long long seconds_left(const bj::object& a) {
  auto it = a.find("expiresInMs");
  return it != a.end() && it->value().is_int64() ? it->value().get_int64() / 1000 : 0;
}

void print_line(const bj::object& a) {
  std::cout << str(a, "id") << "  " << str(a, "kind") << "  " << str(a, "connection") << "  "
            << (seconds_left(a)) << "s  " << one_line(str(a, "sql"), 70) << "\n";
}

void print_detail(const bj::object& a) {
  std::cout << "approval:   " << str(a, "id") << " (" << str(a, "kind") << ")\n"
            << "connection: " << str(a, "connection") << " (" << str(a, "label") << ", " << str(a, "dialect") << ")\n"
            << "asked by:   session " << str(a, "session") << ", request " << str(a, "request") << "\n"
            << "expires in: " << (seconds_left(a)) << " s\n";
  if (str(a, "kind") == "edit") {
    std::cout << "rationale:  " << str(a, "rationale") << "\n--- worksheet now\n"
              << str(a, "before") << "\n+++ proposed\n" << str(a, "sql") << "\n";
  } else {
    std::cout << "statement:  " << str(a, "keyword") << (str(a, "write") == "true" ? " (writes)" : " (read-only)")
              << ", up to " << str(a, "limit") << " rows\n--- SQL (runs exactly as shown)\n"
              << str(a, "sql") << "\n";
  }
  std::cout << "decide:     omgdb approvals approve " << str(a, "id") << "   |   omgdb approvals reject "
            << str(a, "id") << "\n";
}

int approvals_list(const sql_cli_args& a) {
  bool reached = false;
  auto pending = all_pending(reached);
  if (!reached) return no_server();
  if (a.as_json) {
    bj::array arr;
    for (auto& p : pending) arr.push_back(p);
    std::cout << json::serialize(bj::object{{"pending", std::move(arr)}}) << "\n";
    return 0;
  }
  if (pending.empty()) std::cout << "no pending approvals\n";
  for (const auto& p : pending) print_line(p);
  return 0;
}

int approvals_show(const sql_cli_args& a) {
  bool reached = false;
  for (const auto& p : all_pending(reached)) {
    if (str(p, "id") != a.id) continue;
    if (a.as_json) std::cout << json::serialize(p) << "\n";
    else print_detail(p);
    return 0;
  }
  if (!reached) return no_server();
  std::cerr << "omgdb: no pending approval `" << a.id << "`\n";
  return 1;
}

int approvals_decide(const sql_cli_args& a, bool approve) {
  auto sockets = sql::admin_sockets(sql::admin_socket_dir());
  if (sockets.empty()) return no_server();
  std::string last_error = "no pending approval `" + a.id + "`";
  for (const auto& sock : sockets) {
    auto r = sql::admin_request(sock, bj::object{{"op", approve ? "approve" : "reject"}, {"id", a.id}});
    if (!r) continue;
    if (r->contains("ok") && r->at("ok").as_bool()) {
      std::cout << (approve ? "approved " : "rejected ") << a.id
                << (approve ? ": the server runs the SQL it stored\n" : ": nothing runs\n");
      return 0;
    }
    std::string e = str(*r, "error");
    if (e.find("no pending approval") == std::string::npos) last_error = e;  // the process that had it
  }
  std::cerr << "omgdb: " << last_error << "\n";
  return 1;
}

int approvals_watch(const sql_cli_args& a) {
  const fs::path dir = sql::admin_socket_dir();
  if (sql::admin_sockets(dir).empty()) return no_server();
  std::cerr << "omgdb: watching for approvals (processes that start later are picked up); Ctrl-C to stop\n";
  auto seen = std::make_shared<std::set<std::string>>();
  auto mu = std::make_shared<std::mutex>();
  std::set<fs::path> watched;
  // One thread per server process; the directory is scanned again every second. The threads
  // end with their process, or with this one (Ctrl-C).
  for (;;) {
    for (const auto& sock : sql::admin_sockets(dir)) {
      if (!watched.insert(sock).second) continue;
      std::thread([sock, seen, mu, json_out = a.as_json] {
        (void)sql::admin_watch(sock, [&](const bj::object& o) {
          if (!o.contains("pending")) return true;
          std::lock_guard lock(*mu);
          for (const auto& v : o.at("pending").as_array()) {
            const auto& p = v.as_object();
            if (!seen->insert(str(p, "id")).second) continue;
            if (json_out) {
              std::cout << json::serialize(p) << "\n";
            } else {
              print_detail(p);
              std::cout << "\n";
            }
            std::cout.flush();
          }
          return true;
        });
      }).detach();
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// The configured connections (from --config or the usual search), or nullopt after a warning
// when the config cannot be read here (e.g. a password's ${env:…} is not set in this shell):
// the name is then saved unchecked — the daemon treats an unknown name as off.
std::optional<std::vector<config::connection>> connections(const sql_cli_args& a) {
  std::optional<fs::path> file;
  if (!a.config_file.empty()) file = fs::path(a.config_file);
  auto s = config::resolve(file);
  if (!s) {
    std::cerr << "omgdb: warning: cannot check `" << a.name << "` against the config (" << s.error().message
              << "); saving it unchecked\n";
    return std::nullopt;
  }
  return s->connections;
}

const config::connection* find(const std::vector<config::connection>& all, const std::string& name) {
  for (const auto& c : all) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

int unknown_connection(const std::string& name, const std::vector<config::connection>& all) {
  std::cerr << "omgdb: no connection `" << name << "` in the config";
  if (!all.empty()) {
    std::cerr << " (configured:";
    for (const auto& c : all) std::cerr << " " << c.name;
    std::cerr << ")";
  }
  std::cerr << "\n";
  return 1;
}

int sql_use(const sql_cli_args& a) {
  auto all = connections(a);
  const config::connection* c = all ? find(*all, a.name) : nullptr;
  if (all && !c) return unknown_connection(a.name, *all);
  if (!config::valid_name(a.name)) {
    std::cerr << "omgdb: `" << a.name << "` is not a connection name ([A-Za-z0-9_.-]{1,64})\n";
    return 2;
  }
  sql::worksheet_store sheets(sql::default_state_dir());
  if (auto s = sheets.set_active(a.name); !s) {
    std::cerr << "omgdb: " << s.error().message << "\n";
    return 1;
  }
  std::cout << "active connection: " << a.name;
  if (c) std::cout << " (mcp_access " << config::to_string(c->access) << ")";
  std::cout << "\n";
  if (c && c->access == config::mcp_access::off) {
    std::cerr << "omgdb: note: its mcp_access is \"off\", so no SQL tool answers for it\n";
  }
  return 0;
}

int sql_edit(const sql_cli_args& a) {
  auto all = connections(a);
  if (all && !find(*all, a.name)) return unknown_connection(a.name, *all);
  if (!config::valid_name(a.name)) {
    std::cerr << "omgdb: `" << a.name << "` is not a connection name ([A-Za-z0-9_.-]{1,64})\n";
    return 2;
  }
  std::string text;
  if (a.file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(a.file, std::ios::binary);
    if (!in) {
      std::cerr << "omgdb: cannot read " << a.file << "\n";
      return 1;
    }
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  sql::worksheet_store sheets(sql::default_state_dir());
  if (auto s = sheets.set_sheet(a.name, text); !s) {
    std::cerr << "omgdb: " << s.error().message << "\n";
    return 1;
  }
  std::cout << "worksheet of " << a.name << ": " << text.size() << " bytes\n";
  return 0;
}

int sql_show(const sql_cli_args& a) {
  sql::worksheet_store sheets(sql::default_state_dir());
  std::string name = a.name.empty() ? sheets.active() : a.name;
  if (a.as_json) {
    std::cout << json::serialize(bj::object{{"active", sheets.active()}, {"connection", name},
                                            {"sql", name.empty() ? std::string() : sheets.sheet(name)}})
              << "\n";
    return 0;
  }
  std::cout << "active connection: " << (sheets.active().empty() ? "(none chosen)" : sheets.active()) << "\n";
  if (name.empty()) return 0;
  std::cout << "--- worksheet of " << name << "\n" << sheets.sheet(name);
  std::string w = sheets.sheet(name);
  if (!w.empty() && w.back() != '\n') std::cout << "\n";
  return 0;
}

int history(const sql_cli_args& a) {
  sql::history_log log(sql::default_state_dir());
  auto entries = log.read(a.connection, a.limit);
  for (const auto& e : entries) {
    if (a.as_json) {
      std::cout << json::serialize(e) << "\n";
      continue;
    }
    std::cout << str(e, "time") << "  " << str(e, "connection") << "  " << str(e, "tool") << "  " << str(e, "outcome")
              << "  " << str(e, "durationMs") << " ms";
    if (e.contains("keyword")) std::cout << "  " << str(e, "keyword");
    if (e.contains("digest")) std::cout << "  sha256:" << str(e, "digest");
    if (e.contains("detail")) std::cout << "  (" << one_line(str(e, "detail"), 80) << ")";
    std::cout << "\n";
  }
  if (entries.empty() && !a.as_json) std::cout << "no SQL tool calls recorded\n";
  return 0;
}

}  // namespace

std::function<std::optional<int>()> add_sql_commands(CLI::App& app) {
  auto a = std::make_shared<sql_cli_args>();

  auto* approvals = app.add_subcommand("approvals", "See and decide pending SQL approvals of running servers");
  approvals->require_subcommand(1);
  auto* list = approvals->add_subcommand("list", "Pending approvals, oldest first");
  list->add_flag("--json", a->as_json, "Print JSON");
  auto* show = approvals->add_subcommand("show", "One approval in full: the exact SQL, connection, who asked");
  show->add_option("ID", a->id)->required();
  show->add_flag("--json", a->as_json, "Print JSON");
  auto* approve = approvals->add_subcommand("approve", "Approve: the server runs the SQL it stored");
  approve->add_option("ID", a->id)->required();
  auto* reject = approvals->add_subcommand("reject", "Reject: nothing runs");
  reject->add_option("ID", a->id)->required();
  auto* watch = approvals->add_subcommand("watch", "Print each new approval as it arrives (Ctrl-C stops)");
  watch->add_flag("--json", a->as_json, "One JSON object per approval");

  auto* sqlc = app.add_subcommand("sql", "The active SQL connection and worksheets");
  sqlc->require_subcommand(1);
  auto* use = sqlc->add_subcommand("use", "Make NAME the active connection (from the next request)");
  use->add_option("NAME", a->name)->required();
  use->add_option("--config", a->config_file, "Config file (default: the usual search)");
  auto* edit = sqlc->add_subcommand("edit", "Replace NAME's worksheet with FILE (or stdin: -)");
  edit->add_option("NAME", a->name)->required();
  edit->add_option("FILE", a->file, "File to read, - for stdin (default)");
  edit->add_option("--config", a->config_file, "Config file (default: the usual search)");
  auto* sshow = sqlc->add_subcommand("show", "The active connection and its (or NAME's) worksheet");
  sshow->add_option("NAME", a->name);
  sshow->add_flag("--json", a->as_json, "Print JSON");

  auto* hist = app.add_subcommand("history", "SQL tool calls per connection (never rows)");
  hist->add_option("--connection", a->connection, "Only this connection");
  hist->add_option("--limit", a->limit, "Newest entries shown (default 50)")->check(CLI::Range(1, 100000));
  hist->add_flag("--json", a->as_json, "One JSON object per line");

  return [=]() -> std::optional<int> {
    if (*list) return approvals_list(*a);
    if (*show) return approvals_show(*a);
    if (*approve) return approvals_decide(*a, true);
    if (*reject) return approvals_decide(*a, false);
    if (*watch) return approvals_watch(*a);
    if (*use) return sql_use(*a);
    if (*edit) return sql_edit(*a);
    if (*sshow) return sql_show(*a);
    if (*hist) return history(*a);
    return std::nullopt;
  };
}

}  // namespace omgdb::daemon
