// omgdb config — `[[connections]]`: SQL connections, validated per dialect.
#include <set>

#include "config/config.hpp"
#include "config/toml_reader.hpp"

namespace omgdb::config::detail {
namespace {
using namespace std::chrono_literals;

template <class T, class Parse>
void read_enum(table_reader& r, std::string_view key, std::string_view choices, Parse parse, T& out) {
  if (!r.has(key)) return;
  std::string text;
  r.str(key, text);
  if (r.sink().failed()) return;
  auto v = parse(text);
  if (!v) return r.fail(key, "`" + r.name(key) + "` must be " + std::string(choices) + ", not `" + text + "`");
  out = *v;
}

void read_one(const toml::table& t, std::size_t index, problem_sink& sink, std::set<std::string>& names,
              std::vector<connection>& out) {
  table_reader r(t, "connections[" + std::to_string(index) + "]", sink);
  connection c;
  if (!r.has("name")) return r.fail_here("`" + r.name("name") + "` is required");
  r.str("name", c.name);
  if (!sink.failed() && !valid_name(c.name)) return r.fail("name", "connection name `" + c.name + "` must match [A-Za-z0-9_.-]{1,64}");
  if (!sink.failed() && !names.insert(c.name).second) return r.fail("name", "a second connection is named `" + c.name + "`");
  std::string who = "connection `" + c.name + "`";
  r.str("label", c.label);
  if (c.label.empty()) c.label = c.name;
  if (!r.has("dialect")) return r.fail_here(who + " needs `dialect` (postgres, mysql or sqlite)");
  read_enum(r, "dialect", "postgres, mysql (mariadb) or sqlite", parse_dialect, c.dialect);
  r.str("host", c.host);
  std::int64_t port = 0;
  r.integer("port", 1, 65535, port);
  c.port = static_cast<std::uint16_t>(port);
  r.str("user", c.user);
  r.str("database", c.database);
  r.str("password", c.password);
  r.str("file", c.file);
  read_enum(r, "mcp_access", "off, read-only or read-write", parse_access, c.access);
  read_enum(r, "approve", "all or writes", parse_approve, c.approve);
  r.duration("statement_timeout", 1ms, std::chrono::hours(1), c.statement_timeout);
  r.count("pool_size", 1, 16, c.pool_size);
  if (sink.failed()) return;
  if (c.dialect == sql_dialect::sqlite) {
    if (c.file.empty()) return r.fail_here(who + " (sqlite) needs `file`, the database file");
    for (const char* key : {"host", "port", "user", "database", "password"}) {
      if (t.contains(key)) return r.fail(key, who + " (sqlite) takes `file`, not `" + std::string(key) + "`");
    }
  } else {
    if (c.host.empty()) return r.fail_here(who + " (" + std::string(to_string(c.dialect)) + ") needs `host` (a name, an address or a Unix socket path)");
    if (c.user.empty()) return r.fail_here(who + " (" + std::string(to_string(c.dialect)) + ") needs `user`");
    if (t.contains("file")) return r.fail("file", who + " (" + std::string(to_string(c.dialect)) + ") takes host, port, user and database, not `file`");
  }
  r.finish();
  if (!sink.failed()) out.push_back(std::move(c));
}

}  // namespace

void read_connections(table_reader& root, std::vector<connection>& out) {
  std::set<std::string> names;
  auto list = root.tables("connections");
  for (std::size_t i = 0; i < list.size() && !root.sink().failed(); ++i) read_one(*list[i], i, root.sink(), names, out);
}

}  // namespace omgdb::config::detail
