#include <doctest/doctest.h>

#include <string>

#include "config/config.hpp"

using namespace omgdb;
using namespace omgdb::config;

namespace {

// The error text of loading `toml`, or "" when it loads.
std::string error_of(std::string_view toml) {
  auto r = load_string(toml, "test.toml");
  return r ? std::string() : r.error().message;
}

bool contains(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("an empty file gives the defaults") {
  auto s = load_string("", "empty.toml");
  REQUIRE(s);
  CHECK(s->scope == auth::scope::read_write);
  CHECK(s->http.listen == "127.0.0.1:41922");
  CHECK(s->http.max_body_bytes == 4u << 20);
  CHECK(s->http.max_sessions == 512);
  CHECK(s->approvals.enabled);
  CHECK(s->approvals.timeout == std::chrono::seconds(120));
  CHECK(s->logging.format == log_format::text);
  CHECK(s->store_roots.empty());
  CHECK(s->connections.empty());
  CHECK(s->source == "empty.toml");
}

TEST_CASE("every section is read") {
  auto s = load_string(R"(
scope = "read"
max_result_bytes = 2048
workers = 3
[stores]
roots = ["/srv/stores", "/data/x/../y"]
[http]
listen = "127.0.0.1:0"
allow_origins = ["https://tunnel.example"]
allow_hosts = ["tunnel.example"]
max_body_bytes = 2048
session_idle = "2m"
sse_keepalive = 5
shutdown_deadline = "0s"
[[http.tokens]]
name = "laptop"
sha256 = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF"
scope = "read"
[approvals]
enabled = false
timeout = 600
[logging]
level = "debug"
format = "json"
)", "full.toml");
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  CHECK(s->scope == auth::scope::read);
  CHECK(s->max_result_bytes == 2048);
  CHECK(s->workers == 3);
  REQUIRE(s->store_roots.size() == 2);
  CHECK(s->store_roots[1] == "/data/y");
  CHECK(s->http.listen == "127.0.0.1:0");
  CHECK(s->http.allow_origins.size() == 1);
  CHECK(s->http.session_idle == std::chrono::seconds(120));
  CHECK(s->http.sse_keepalive == std::chrono::seconds(5));
  CHECK(s->http.shutdown_deadline == std::chrono::seconds(0));
  REQUIRE(s->http.tokens.size() == 1);
  CHECK(s->http.tokens[0].name == "laptop");
  CHECK(s->http.tokens[0].scope == auth::scope::read);
  CHECK(s->http.tokens[0].hash[0] == 0x00);
  CHECK(s->http.tokens[0].hash[31] == 0xff);
  CHECK_FALSE(s->approvals.enabled);
  CHECK(s->approvals.timeout == std::chrono::seconds(600));
  CHECK(s->logging.level == log::level::debug);
  CHECK(s->logging.format == log_format::json);
}

TEST_CASE("a TOML syntax error names the file, line and column") {
  auto e = error_of("scope = \"read\"\n[http\nlisten = 1\n");
  CHECK(contains(e, "test.toml:2:"));
}

TEST_CASE("an unknown top-level key is an error with its position") {
  auto e = error_of("scope = \"read\"\n\nscoop = \"read\"\n");
  CHECK(contains(e, "test.toml:3:1: unknown key `scoop`"));
}

TEST_CASE("an unknown key inside a section names the section") {
  CHECK(contains(error_of("[http]\nlisten_on = \"127.0.0.1:1\"\n"), "test.toml:2:1: unknown key `http.listen_on`"));
  CHECK(contains(error_of("[logging]\ncolour = true\n"), "unknown key `logging.colour`"));
  CHECK(contains(error_of("[approvals]\nwait = 3\n"), "unknown key `approvals.wait`"));
  CHECK(contains(error_of("[stores]\nroot = []\n"), "unknown key `stores.root`"));
}

TEST_CASE("a value of the wrong type is an error at the value") {
  CHECK(contains(error_of("scope = 3\n"), "test.toml:1:9: `scope` must be a string"));
  CHECK(contains(error_of("workers = \"two\"\n"), "`workers` must be an integer"));
  CHECK(contains(error_of("[approvals]\nenabled = \"yes\"\n"), "`approvals.enabled` must be true or false"));
  CHECK(contains(error_of("[http]\nallow_hosts = \"x\"\n"), "`http.allow_hosts` must be an array of strings"));
  CHECK(contains(error_of("[http]\nallow_hosts = [1]\n"), "`http.allow_hosts` must contain only strings"));
  CHECK(contains(error_of("http = 1\n"), "`http` must be a table"));
  CHECK(contains(error_of("connections = 1\n"), "`connections` must be an array of tables"));
}

TEST_CASE("bad values are errors that say what is allowed") {
  CHECK(contains(error_of("scope = \"admin\"\n"), "`scope` must be read, read-write or dangerous, not `admin`"));
  CHECK(contains(error_of("workers = 1000\n"), "`workers` must be between 0 and 256, not 1000"));
  CHECK(contains(error_of("max_result_bytes = 10\n"), "between 1024 and"));
  CHECK(contains(error_of("[http]\nlisten = \"nowhere\"\n"), "`http.listen` must be HOST:PORT"));
  CHECK(contains(error_of("[http]\nallow_origins = [\"tunnel.example\"]\n"), "is not an origin"));
  CHECK(contains(error_of("[http]\nsession_idle = \"soon\"\n"), "`http.session_idle` is not a duration"));
  CHECK(contains(error_of("[http]\nsse_keepalive = \"1500ms\"\n"), "must be whole seconds"));
  CHECK(contains(error_of("[approvals]\ntimeout = 601\n"), "`approvals.timeout` must be between"));
  CHECK(contains(error_of("[approvals]\ntimeout = 0\n"), "`approvals.timeout` must be between"));
  CHECK(contains(error_of("[logging]\nlevel = \"loud\"\n"), "`logging.level` must be debug"));
  CHECK(contains(error_of("[logging]\nformat = \"xml\"\n"), "`logging.format` must be text or json"));
  CHECK(contains(error_of("[stores]\nroots = [\"relative/dir\"]\n"), "must be an absolute path"));
}

TEST_CASE("a non-loopback listen address needs allow_remote and TLS") {
  CHECK(contains(error_of("[http]\nlisten = \"0.0.0.0:41922\"\n"), "set `allow_remote = true`"));
  CHECK(contains(error_of("[http]\nlisten = \"0.0.0.0:41922\"\nallow_remote = true\n"), "`http.tls_cert` and `http.tls_key` are required"));
  CHECK(contains(error_of("[http]\ntls_cert = \"/c.pem\"\n"), "set both or neither"));
  CHECK(error_of("[http]\nlisten = \"0.0.0.0:41922\"\nallow_remote = true\ntls_cert = \"/c\"\ntls_key = \"/k\"\n").empty());
}

TEST_CASE("tokens need a valid unique name and exactly one of sha256 or value") {
  CHECK(contains(error_of("[[http.tokens]]\nsha256 = \"00\"\n"), "`http.tokens[0].name` is required"));
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a b\"\nsha256 = \"00\"\n"), "must match [A-Za-z0-9_.-]{1,64}"));
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a\"\n"), "needs exactly one of `sha256`"));
  std::string h(64, 'a');
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a\"\nsha256 = \"" + h + "\"\nvalue = \"0123456789abcdef\"\n"),
                 "needs exactly one of"));
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a\"\nsha256 = \"abc\"\n"), "must be 64 hexadecimal digits"));
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a\"\nsha256 = \"" + std::string(64, 'g') + "\"\n"), "64 hexadecimal"));
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a\"\nsha256 = \"" + h + "\"\n[[http.tokens]]\nname = \"a\"\nsha256 = \"" + h + "\"\n"),
                 "test.toml:5:8: a second token is named `a`"));
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a\"\nsha256 = \"" + h + "\"\nscope = \"root\"\n"), "must be read, read-write or dangerous"));
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a\"\nsha256 = \"" + h + "\"\nnote = \"x\"\n"), "unknown key `http.tokens[0].note`"));
}

TEST_CASE("a token given by value is checked, hashed and never kept in the error") {
  CHECK(contains(error_of("[[http.tokens]]\nname = \"a\"\nvalue = \"short-secret\"\n"), "too short"));
  CHECK_FALSE(contains(error_of("[[http.tokens]]\nname = \"a\"\nvalue = \"short-secret\"\n"), "short-secret"));
  auto s = load_string("[[http.tokens]]\nname = \"a\"\nvalue = \"0123456789abcdefXYZ\"\n", "t.toml");
  REQUIRE(s);
  CHECK(s->http.tokens[0].hash == auth::sha256("0123456789abcdefXYZ"));
  CHECK(s->http.tokens[0].scope == auth::scope::read_write);
}

TEST_CASE("tools.profile takes one profile or a list, and refuses an unknown one") {
  auto one = config::load_string("[tools]\nprofile = \"core\"\n", "test.toml");
  REQUIRE(one.ok());
  CHECK(one->tool_profiles == std::vector<std::string>{"core"});
  auto two = config::load_string("[tools]\nprofile = [\"search\", \"sql\"]\n", "test.toml");
  REQUIRE(two.ok());
  CHECK(two->tool_profiles == std::vector<std::string>{"search", "sql"});
  auto none = config::load_string("scope = \"read\"\n", "test.toml");
  REQUIRE(none.ok());
  CHECK(none->tool_profiles == std::vector<std::string>{"all"});
  CHECK(contains(error_of("[tools]\nprofile = \"everything\"\n"), "`tools.profile` `everything` is not a profile"));
}

TEST_CASE("[vectors] default_model names the model vsync binds when a call names none, and must be a model name") {
  auto s = load_string("[vectors]\ndefault_model = \"minilm-L6\"\n", "v.toml");
  REQUIRE(s);
  CHECK(s->default_model == "minilm-L6");
  auto none = load_string("", "v.toml");
  REQUIRE(none);
  CHECK(none->default_model.empty());
  CHECK(contains(error_of("[vectors]\ndefault_model = \"../x\"\n"), "vectors.default_model"));
  CHECK(contains(error_of("[vectors]\ndefault_model = \"\"\n"), "vectors.default_model"));
  CHECK(contains(error_of("[vectors]\nmodel = \"x\"\n"), "model"));
}
