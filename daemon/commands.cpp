#include "daemon/commands.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "auth/paths.hpp"
#include "auth/scope.hpp"
#include "common/json.hpp"
#include "common/log.hpp"
#include "daemon/console_wiring.hpp"
#include "daemon/http_setup.hpp"
#include "daemon/observe.hpp"
#include "daemon/runtime.hpp"
#include "daemon/shutdown.hpp"
#include "daemon/sql_runtime.hpp"
#include "engine/store/store.hpp"
#include "mcp/server.hpp"
#include "tools/catalog.hpp"
#include "transports/http_server.hpp"
#include "transports/stdio.hpp"
#include "transports/via.hpp"

namespace omgdb::daemon {
namespace bj = boost::json;

namespace {

std::optional<auth::scope> scope_or_complain(const std::string& text) {
  auto s = auth::parse_scope(text);
  if (!s) {
    std::cerr << "omgdb: unknown scope `" << text
              << "`: use read (alias ro), read-write (aliases write, rw) or dangerous (alias all)\n";
  }
  return s;
}

void write_stdout(std::string_view text) {
  std::cout << text;
  if (text.empty() || text.back() != '\n') std::cout << '\n';
  std::cout.flush();
}

}  // namespace

namespace {

int run_standalone(const mcp_command& cmd) {
  if (!cmd.rejected.empty()) {
    std::cerr << "omgdb: --standalone only lists the tools over stdio; it cannot be combined with " << cmd.rejected.front()
              << "\n";
    return 2;
  }
  // The scope of the server it stands in for (--scope, OMGDB_SCOPE; no file is read), so that
  // it lists exactly what that server lists.
  config::settings s;
  auto ok = config::apply_environment(s);
  if (ok) ok = config::apply_overrides(s, cmd.given);
  if (!ok) {
    std::cerr << "omgdb: " << ok.error().message << "\n";
    return 2;
  }
  mcp::server_options opts;
  opts.scope = s.scope;
  opts.workers = 2;
  mcp::server srv(opts, standalone_catalogue());
  log::info("serving MCP on stdio in standalone mode: tools are listed, every call answers `unavailable`");
  return transports::run_stdio(srv, opts.scope, transports::stdio_options{});
}

}  // namespace

int run_via_bridge(const mcp_command& cmd) {
  if (cmd.given.scope || cmd.config_file) {
    std::cerr << "omgdb: --scope and --config cannot be combined with --via: the daemon's settings and its token's\n"
              << "scope apply; give this client a token created with a narrower scope instead.\n";
    return 2;
  }
  if (auto ok = transports::check_via_url(cmd.via); !ok) {
    std::cerr << "omgdb: " << ok.error().message << "\n";
    return 2;
  }
  transports::via_options o;
  o.url = cmd.via;
  if (const char* t = std::getenv("OMGDB_HTTP_TOKEN")) o.token = t;
  if (o.token.empty()) log::info("OMGDB_HTTP_TOKEN is not set: connecting without a bearer token");
  log::info("forwarding MCP on stdio to " + cmd.via);
  return transports::run_via(o);
}

// The catalogue, plus the test fixture tools with --conformance-fixtures.
static std::vector<mcp::tool> catalogue_of(const mcp_command& cmd, std::shared_ptr<live_settings> live,
                                           std::shared_ptr<engine::store_registry> stores,
                                           std::shared_ptr<sql::service> sql) {
  auto catalogue = build_catalogue(std::move(live), std::move(stores), std::move(sql));
  if (cmd.conformance_fixtures) {
    log::warning("--conformance-fixtures adds the test fixture tools; test runs only");
    for (auto& t : tools::conformance_fixture_tools()) catalogue.push_back(std::move(t));
  }
  return catalogue;
}

// `omgdb mcp --http ADDR`: stdio and HTTP on one event loop and one server.
static int run_mcp_with_http(const mcp_command& cmd, const config::settings& s, mcp::server_options opts,
                             std::shared_ptr<live_settings> live, std::shared_ptr<engine::store_registry> stores,
                             std::shared_ptr<sql::service> sql) {
  auto configured = http_options_of(s, cmd.http, false, false);
  if (!configured) {
    std::cerr << "omgdb: " << configured.error().message << "\n";
    return 2;
  }
  transports::http_options http = std::move(*configured);
  if (http.tokens.empty()) {
    std::cerr << "omgdb: " << missing_token_help("omgdb mcp --http") << "\n";
    return 2;
  }
  // Session records stay in memory: the process lives as long as its stdio client, and a
  // `serve` daemon may own the state directory's file.
  http.state_dir.clear();
  // The HTTP sessions are confined to the store roots; the stdio client is not.
  auto paths = std::make_shared<auth::path_policy>(prepare_http_store_roots(s));
  http.paths = paths;
  http.on_reload = make_reloader(cmd.config_file, cmd.given, false, live, [sql, paths](const config::settings& next) {
    sql->replace_connections(next.connections);
    paths->replace(prepare_http_store_roots(next));
  });
  http.metrics_text = [live, sql] {
    return tool_metrics_text() + store_metrics_text(http_store_roots(*live->current())) + sql_metrics_text(sql.get());
  };
  std::string scope_name(auth::to_string(s.scope));
  std::size_t token_count = http.tokens.size();
  http.on_listening = [&](const std::string& url) {
    std::cerr << "omgdb: serving MCP on stdio and listening on " << url << "\n"
              << "omgdb: HTTP clients authenticate with the header `Authorization: Bearer <token>`; " << token_count
              << " token(s) accepted (not shown); scope " << scope_name << "\n"
              << "omgdb: " << confinement_note(s) << " (over stdio too)\n";
    std::cerr.flush();
  };
  opts.max_in_flight = s.http.max_in_flight;
  end_process_on_abandon(opts, stores);
  auto calls = std::make_shared<mcp::call_history>();
  record_calls(opts, calls);
  // stderr here is read by the MCP client that started us: the login link goes to the terminal only.
  if (s.console.enabled) enable_console(http, s, local_console_backend(sql, stores, calls, live), print_to_terminal());
  int status = 0;
  {
    mcp::server srv(opts, catalogue_of(cmd, live, stores, sql));
    transports::stdio_options io;
    io.on_signal_exit = [stores] { stores->close_all(); };
    io.shutdown_deadline = s.http.shutdown_deadline;
    status = transports::run_stdio_and_http(srv, s.scope, io, http);
  }
  stores->close_all();
  return status;
}

int run_mcp(const mcp_command& cmd) {
  if (cmd.standalone) return run_standalone(cmd);
  if (!cmd.via.empty()) return run_via_bridge(cmd);
  auto loaded = effective_settings(cmd.config_file, cmd.given);
  if (!loaded) {
    std::cerr << "omgdb: " << loaded.error().message << "\n";
    return 2;
  }
  apply_logging(*loaded);
  auth::scope scope = loaded->scope;
  auto live = std::make_shared<live_settings>(*loaded);
  auto sql = make_sql_service(*loaded, true);  // its admin channel lets a person approve
  auto stores = std::make_shared<engine::store_registry>();
  serve_store_admin(stores);
  apply_store_limits(*loaded);
  mcp::server_options opts;
  opts.scope = scope;
  opts.max_result_bytes = loaded->max_result_bytes;
  opts.workers = workers_for(loaded->workers, sql.get());
  opts.call_timeout = loaded->call_timeout;
  opts.person_wait = loaded->approvals.timeout;
  opts.session_workers = loaded->session_workers;
  opts.call_memory_bytes = loaded->call_memory_bytes;
  install_observer(opts);
  if (!cmd.http.empty()) return run_mcp_with_http(cmd, *loaded, opts, live, stores, sql);
  // stdio alone has one session: with no share configured it may use every worker.
  if (opts.session_workers == 0) opts.session_workers = 256;
  end_process_on_abandon(opts, stores);
  int status = 0;
  {
    mcp::server srv(opts, catalogue_of(cmd, live, stores, sql));
    log::info("serving MCP on stdio at scope " + std::string(auth::to_string(scope)));
    transports::stdio_options io;
    io.on_signal_exit = [stores] { stores->close_all(); };
    io.shutdown_deadline = loaded->http.shutdown_deadline;
    status = transports::run_stdio(srv, scope, io);
  }
  stores->close_all();
  return status;
}

int run_tools_list(const std::string& scope_text, bool as_json) {
  auto scope = scope_or_complain(scope_text);
  if (!scope) return 2;
  auto stores = std::make_shared<engine::store_registry>();
  auto all = build_catalogue(std::make_shared<live_settings>(config::settings{}), stores);
  bj::array list;
  std::string table;
  std::size_t shown = 0;
  for (const auto& t : all) {
    if (!auth::allows(*scope, t.required_scope)) continue;
    ++shown;
    if (as_json) {
      list.push_back(mcp::describe(t));
      continue;
    }
    std::string params;
    for (const auto& p : t.params) {
      if (!params.empty()) params += ", ";
      params += p.name + (p.required ? "" : "?");
    }
    table += t.name + std::string(t.name.size() < 20 ? 20 - t.name.size() : 1, ' ') +
             std::string(auth::to_string(t.required_scope)) + "  (" + params + ")\n    " + t.description + "\n";
  }
  if (as_json) {
    write_stdout(json::serialize(bj::object{{"tools", std::move(list)}}));
  } else {
    write_stdout(std::to_string(shown) + " tools at scope " + std::string(auth::to_string(*scope)) + ":\n" + table);
  }
  return 0;
}

int run_create(const std::string& path) {
  auto s = engine::store::create(path);
  if (!s) {
    std::cerr << "omgdb: " << s.error().message << "\n";
    return 1;
  }
  std::cout << "created store " << path << "\n";
  return 0;
}

int run_dump(const std::string& path) {
  auto st = engine::store::open(path);
  if (!st) {
    std::cerr << "omgdb: " << st.error().message << "\n";
    return 1;
  }
  std::string buf;
  auto s = (*st)->dump([&](std::string_view line) {
    buf.append(line);
    buf.push_back('\n');
    if (buf.size() > (1 << 16)) {
      std::cout << buf;
      buf.clear();
    }
    return static_cast<bool>(std::cout);
  });
  std::cout << buf;
  std::cout.flush();
  if (!s) {
    std::cerr << "omgdb: " << s.error().message << "\n";
    return 1;
  }
  return 0;
}

int run_tool_command(const std::string& name, const std::string& arguments_json) {
  auto args = json::parse_strict(arguments_json);
  if (!args || !args->is_object()) {
    std::cerr << "omgdb: invalid arguments: " << (args ? "not an object" : args.error().message) << "\n";
    return 2;
  }
  auto stores = std::make_shared<engine::store_registry>();
  auto all = build_catalogue(std::make_shared<live_settings>(config::settings{}), stores);
  const mcp::tool* t = nullptr;
  for (const auto& candidate : all) {
    if (candidate.name == name) t = &candidate;
  }
  if (!t) {
    std::cerr << "omgdb: no tool `" << name << "`\n";
    return 2;
  }
  mcp::tool_result r;
  if (auto problem = mcp::check_arguments(*t, args->get_object())) {
    r = mcp::tool_result::failure(*problem);
  } else {
    mcp::call_context ctx;
    ctx.scope = auth::scope::dangerous;
    ctx.max_result_bytes = std::numeric_limits<std::size_t>::max() / 2;
    ctx.log = [](mcp::log_level, const std::string& m) { log::debug(m); };
    r = t->handler(args->get_object(), ctx);
  }
  stores->close_all();
  if (r.is_error) {
    for (const auto& text : r.texts) std::cerr << "omgdb: " << text << "\n";
    return 1;
  }
  for (std::size_t i = 0; i < r.texts.size(); ++i) {
    if (i == 0) {
      std::cout << r.texts[i];
      if (!r.texts[i].empty() && r.texts[i].back() != '\n') std::cout << '\n';
    } else {
      std::cerr << r.texts[i] << "\n";
    }
  }
  std::cout.flush();
  return 0;
}

}  // namespace omgdb::daemon
