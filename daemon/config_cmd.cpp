// `omgdb config check` and `omgdb config example`.
#include <iostream>

#include "daemon/commands.hpp"
#include "daemon/http_setup.hpp"
#include "daemon/runtime.hpp"

namespace omgdb::daemon {

int run_config_example() {
  std::cout << config::example_text();
  std::cout.flush();
  return std::cout ? 0 : 1;
}

int run_config_check(const std::optional<std::string>& config_file) {
  auto s = effective_settings(config_file, config::overrides{});
  if (!s) {
    std::cerr << "omgdb: " << s.error().message << "\n";
    return 1;
  }
  std::cout << "config: " << (s->source.empty() ? std::string("none found; using the defaults") : s->source) << "\n"
            << "scope: " << auth::to_string(s->scope) << "\n"
            << "store roots: ";
  if (s->store_roots.empty()) {
    auto roots = http_store_roots(*s);
    std::cout << "none (over HTTP: "
              << (roots.empty() ? std::string("not confined, [stores] unconfined = true")
                                : "confined to the data directory " + roots.front().string())
              << "; stdio: not confined)";
  }
  for (std::size_t i = 0; i < s->store_roots.size(); ++i) std::cout << (i ? ", " : "") << s->store_roots[i].string();
  std::cout << "\nhttp: listen " << s->http.listen << ", " << s->http.tokens.size() << " token(s)";
  for (const auto& t : s->http.tokens) std::cout << " " << t.name << "(" << auth::to_string(t.scope) << ")";
  std::cout << "\nconnections: " << s->connections.size();
  for (const auto& c : s->connections) {
    std::cout << "\n  " << c.name << ": " << config::kind_name(c);
    if (c.kind == config::connection_kind::odbc) std::cout << " (SQL: " << config::to_string(c.dialect) << ")";
    std::cout << ", " << config::to_string(c.access) << ", approve " << config::to_string(c.approve);
    if (config::text_check_only(c)) std::cout << "\n    note: " << config::k_text_check_notice;
  }
  std::cout << "\napprovals: " << (s->approvals.enabled ? "on" : "off") << ", timeout " << s->approvals.timeout.count()
            << " s\nlogging: " << (s->logging.format == config::log_format::json ? "json" : "text") << "\nOK\n";
  return 0;
}

}  // namespace omgdb::daemon
