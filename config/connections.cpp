// omgdb config — `[[connections]]`: SQL connections, validated per dialect.
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <vector>

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

// The keys of an ODBC connection string (`Key=value;…`, values possibly in {braces} with `}}`
// for `}`), upper-cased; nullopt when the text is not a connection string.
std::optional<std::vector<std::string>> odbc_keys(std::string_view text) {
  std::vector<std::string> keys;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ';' || text[i] == ' ')) ++i;
    if (i >= text.size()) break;
    const std::size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) return std::nullopt;
    std::string key;
    for (char ch : text.substr(i, eq - i)) {
      if (ch != ' ') key.push_back(static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 32 : ch));
    }
    if (key.empty()) return std::nullopt;
    keys.push_back(std::move(key));
    i = eq + 1;
    if (i < text.size() && text[i] == '{') {
      ++i;
      for (;;) {
        const std::size_t close = text.find('}', i);
        if (close == std::string_view::npos) return std::nullopt;
        if (close + 1 < text.size() && text[close + 1] == '}') { i = close + 2; continue; }
        i = close + 1;
        break;
      }
    }
    while (i < text.size() && text[i] != ';') ++i;
  }
  return keys;
}

// `password_file`: the secret's file (absolute path, at most 4 KiB, one trailing newline
// dropped). The message never holds the file's content.
std::optional<std::string> read_secret_file(const std::string& path, std::string& why) {
  if (path.empty() || path[0] != '/') return why = "must be an absolute path", std::nullopt;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return why = "`" + path + "` is not a readable file", std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string text(4097, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return why = "`" + path + "` cannot be read", std::nullopt;
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > 4096) return why = "`" + path + "` is longer than 4096 bytes", std::nullopt;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  return text;
}

// `dialect` in the file: the three native kinds, or "mssql" / "odbc" (through unixODBC).
struct kind_choice {
  connection_kind kind = connection_kind::native;
  sql_dialect dialect = sql_dialect::sqlite;
};
std::optional<kind_choice> parse_kind(std::string_view s) noexcept {
  if (s == "odbc") return kind_choice{connection_kind::odbc, sql_dialect::ansi};
  auto d = parse_dialect(s);
  if (!d || *d == sql_dialect::ansi) return std::nullopt;
  return kind_choice{*d == sql_dialect::mssql ? connection_kind::odbc : connection_kind::native, *d};
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
  if (!r.has("dialect")) return r.fail_here(who + " needs `dialect` (postgres, mysql, sqlite, mssql or odbc)");
  kind_choice kind;
  read_enum(r, "dialect", "postgres, mysql (mariadb), sqlite, mssql (SQL Server through ODBC) or odbc", parse_kind, kind);
  c.kind = kind.kind;
  c.dialect = kind.dialect;
  r.str("host", c.host);
  std::int64_t port = 0;
  r.integer("port", 1, 65535, port);
  c.port = static_cast<std::uint16_t>(port);
  r.str("user", c.user);
  r.str("database", c.database);
  r.str("password", c.password);
  std::string password_file;
  r.str("password_file", password_file);
  r.str("file", c.file);
  r.str("odbc", c.odbc);
  r.str("odbc_driver", c.odbc_driver);
  const bool generic_odbc = c.kind == connection_kind::odbc && c.dialect == sql_dialect::ansi;
  if (generic_odbc) {
    if (!r.has("odbc_dialect"))
      return r.fail_here(who + " (odbc) needs `odbc_dialect`: the SQL its data source speaks (postgres, mysql, sqlite, "
                               "mssql or ansi)");
    read_enum(r, "odbc_dialect", "postgres, mysql, sqlite, mssql or ansi", parse_dialect, c.dialect);
  }
  read_enum(r, "mcp_access", "off, read-only or read-write", parse_access, c.access);
  read_enum(r, "approve", "all or writes", parse_approve, c.approve);
  r.duration("statement_timeout", 1ms, std::chrono::hours(1), c.statement_timeout);
  r.count("pool_size", 1, 16, c.pool_size);
  if (sink.failed()) return;
  if (!password_file.empty()) {
    if (t.contains("password")) return r.fail("password_file", who + " takes `password` or `password_file`, not both");
    std::string why;
    auto secret = read_secret_file(password_file, why);
    if (!secret) return r.fail("password_file", who + ": `password_file` " + why);
    c.password = std::move(*secret);
  }
  const std::string kind_text(kind_name(c));
  if (c.kind == connection_kind::odbc) {
    for (const char* key : {"file"}) {
      if (t.contains(key)) return r.fail(key, who + " (" + kind_text + ") takes no `" + std::string(key) + "`");
    }
    if (!c.odbc.empty()) {
      for (const char* key : {"host", "port", "database", "odbc_driver"}) {
        if (t.contains(key))
          return r.fail(key, who + " (" + kind_text + ") with `odbc` takes its `" + std::string(key) +
                                 "` inside the connection string");
      }
      auto keys = odbc_keys(c.odbc);
      if (!keys) return r.fail("odbc", who + ": `odbc` must be an ODBC connection string (Key=value;Key={value};…)");
      bool names_source = false;
      for (const auto& k : *keys) {
        if (k == "PWD" || k == "PASSWORD")
          return r.fail("odbc", who + ": `odbc` must not hold the password; put it in `password` (\"${env:NAME}\") or "
                                      "`password_file`, which omgdb adds when it connects and never shows");
        if (k == "SAVEFILE") return r.fail("odbc", who + ": `odbc` must not ask the driver manager to SAVEFILE");
        if (k == "UID" && !c.user.empty()) return r.fail("odbc", who + ": give the user once, as `user` or UID in `odbc`");
        names_source = names_source || k == "DRIVER" || k == "DSN" || k == "FILEDSN";
      }
      if (!names_source) return r.fail("odbc", who + ": `odbc` must name a Driver={…} or a DSN=…");
    } else if (generic_odbc || c.dialect != sql_dialect::mssql) {
      return r.fail_here(who + " (odbc) needs `odbc`, its connection string without the password");
    } else {
      if (c.host.empty()) return r.fail_here(who + " (mssql) needs `host` (or a whole connection string in `odbc`)");
      if (c.user.empty()) return r.fail_here(who + " (mssql) needs `user`");
    }
  } else if (c.dialect == sql_dialect::sqlite) {
    if (c.file.empty()) return r.fail_here(who + " (sqlite) needs `file`, the database file");
    for (const char* key : {"host", "port", "user", "database", "password", "password_file", "odbc", "odbc_driver"}) {
      if (t.contains(key)) return r.fail(key, who + " (sqlite) takes `file`, not `" + std::string(key) + "`");
    }
  } else {
    if (c.host.empty()) return r.fail_here(who + " (" + kind_text + ") needs `host` (a name, an address or a Unix socket path)");
    if (c.user.empty()) return r.fail_here(who + " (" + kind_text + ") needs `user`");
    if (t.contains("file")) return r.fail("file", who + " (" + kind_text + ") takes host, port, user and database, not `file`");
    for (const char* key : {"odbc", "odbc_driver"}) {
      if (t.contains(key))
        return r.fail(key, who + " (" + kind_text + ") connects natively; `" + std::string(key) +
                               "` is for dialect = \"mssql\" or \"odbc\"");
    }
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
