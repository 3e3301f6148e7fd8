#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "config/config.hpp"

using namespace omgdb;
using namespace omgdb::config;

namespace {

struct fake_env {
  std::map<std::string, std::string> vars;
  getenv_fn fn() const {
    return [this](const char* name) -> const char* {
      auto it = vars.find(name);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

bool contains(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("env references are replaced in any string value") {
  ::setenv("OMGDB_TEST_PG_PASSWORD", "s3cret", 1);
  ::setenv("OMGDB_TEST_HOST", "db.internal", 1);
  auto s = load_string(R"(
[[connections]]
name = "app"
dialect = "postgres"
host = "${env:OMGDB_TEST_HOST}"
user = "u-${env:OMGDB_TEST_HOST}-x"
password = "${env:OMGDB_TEST_PG_PASSWORD}"
)", "e.toml");
  REQUIRE(s);
  CHECK(s->connections[0].host == "db.internal");
  CHECK(s->connections[0].user == "u-db.internal-x");
  CHECK(s->connections[0].password == "s3cret");
}

TEST_CASE("a missing environment variable is an error naming it and its position") {
  ::unsetenv("OMGDB_TEST_SURELY_UNSET");
  auto s = load_string("[http]\nstate_dir = \"${env:OMGDB_TEST_SURELY_UNSET}\"\n", "e.toml");
  REQUIRE_FALSE(s);
  CHECK(contains(s.error().message, "e.toml:2:13:"));
  CHECK(contains(s.error().message, "OMGDB_TEST_SURELY_UNSET is not set"));
}

TEST_CASE("a malformed env reference is an error") {
  CHECK_FALSE(load_string("[http]\nstate_dir = \"${HOME}\"\n", "e.toml"));
  CHECK_FALSE(load_string("[http]\nstate_dir = \"${env:A-B}\"\n", "e.toml"));
  CHECK_FALSE(load_string("[http]\nstate_dir = \"${env:UNCLOSED\"\n", "e.toml"));
  CHECK(load_string("[http]\nstate_dir = \"/a/$b\"\n", "e.toml"));
}

TEST_CASE("a token value from the environment is hashed") {
  ::setenv("OMGDB_TEST_TOKEN", "abcdefghijklmnopqrstuvwxyz", 1);
  auto s = load_string("[[http.tokens]]\nname = \"ci\"\nvalue = \"${env:OMGDB_TEST_TOKEN}\"\n", "e.toml");
  REQUIRE(s);
  CHECK(s->http.tokens[0].hash == auth::sha256("abcdefghijklmnopqrstuvwxyz"));
}

TEST_CASE("the environment overrides the file and the command line overrides both") {
  auto s = load_string("scope = \"dangerous\"\n[http]\nlisten = \"127.0.0.1:1000\"\n[logging]\nlevel = \"error\"\n", "p.toml");
  REQUIRE(s);
  fake_env env;
  env.vars["OMGDB_SCOPE"] = "read-write";
  env.vars["OMGDB_LISTEN"] = "127.0.0.1:2000";
  env.vars["OMGDB_STORE_ROOTS"] = "/a:/b";
  REQUIRE(apply_environment(*s, env.fn()));
  CHECK(s->scope == auth::scope::read_write);
  CHECK(s->http.listen == "127.0.0.1:2000");
  CHECK(s->store_roots.size() == 2);
  CHECK(s->logging.level == log::level::error);  // the file's, not overridden
  overrides o;
  o.scope = "read";
  o.store_roots = std::vector<std::string>{"/c"};
  REQUIRE(apply_overrides(*s, o));
  CHECK(s->scope == auth::scope::read);
  CHECK(s->http.listen == "127.0.0.1:2000");  // the environment's
  REQUIRE(s->store_roots.size() == 1);
  CHECK(s->store_roots[0] == "/c");
}

TEST_CASE("an unusable environment value is an error naming the variable") {
  settings s;
  fake_env env;
  env.vars["OMGDB_SCOPE"] = "root";
  auto r = apply_environment(s, env.fn());
  REQUIRE_FALSE(r);
  CHECK(contains(r.error().message, "OMGDB_SCOPE"));
  env.vars = {{"OMGDB_STORE_ROOTS", "rel"}};
  CHECK_FALSE(apply_environment(s, env.fn()));
  env.vars = {{"OMGDB_LOG_FORMAT", "xml"}};
  CHECK_FALSE(apply_environment(s, env.fn()));
  env.vars = {{"OMGDB_WORKERS", "many"}};
  CHECK_FALSE(apply_environment(s, env.fn()));
  env.vars = {{"OMGDB_LISTEN", "x"}};
  CHECK_FALSE(apply_environment(s, env.fn()));
}

TEST_CASE("a bad command-line override is an error naming the option") {
  settings s;
  overrides o;
  o.allow_origins = {"not an origin"};
  auto r = apply_overrides(s, o);
  REQUIRE_FALSE(r);
  CHECK(contains(r.error().message, "--allow-origin"));
}

TEST_CASE("the file is found under XDG_CONFIG_HOME, else ~/.config, else none") {
  auto dir = std::filesystem::temp_directory_path() / ("omgdb_cfg_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "xdg" / "omgdb");
  std::filesystem::create_directories(dir / "home" / ".config" / "omgdb");
  std::ofstream(dir / "home" / ".config" / "omgdb" / "omgdb.toml") << "scope = \"read\"\n";
  fake_env env;
  env.vars["HOME"] = (dir / "home").string();
  auto found = find_config_file(env.fn());
  REQUIRE(found);
  CHECK(*found == dir / "home" / ".config" / "omgdb" / "omgdb.toml");
  env.vars["XDG_CONFIG_HOME"] = (dir / "xdg").string();
  found = find_config_file(env.fn());
  CHECK((!found || *found == "/etc/omgdb/omgdb.toml"));  // XDG wins over ~/.config even when empty
  std::ofstream(dir / "xdg" / "omgdb" / "omgdb.toml") << "scope = \"dangerous\"\n";
  auto s = resolve(std::nullopt, env.fn());
  REQUIRE(s);
  CHECK(s->scope == auth::scope::dangerous);
  auto directory = load_file(dir);
  REQUIRE_FALSE(directory);
  CHECK(contains(directory.error().message, "not a regular file"));
  auto missing = resolve(dir / "nope.toml", env.fn());
  REQUIRE_FALSE(missing);
  CHECK(contains(missing.error().message, "no such config file"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("changed sections are named, never their values") {
  settings a, b;
  CHECK(changed_sections(a, b).empty());
  b.http.tokens.push_back(token_entry{"x", {}, auth::scope::read});
  b.connections.push_back(connection{});
  auto c = changed_sections(a, b);
  REQUIRE(c.size() == 2);
  CHECK(c[0] == "http.tokens");
  CHECK(c[1] == "connections");
}

TEST_CASE("durations accept seconds, ms, minutes and hours") {
  CHECK(parse_duration("90") == std::chrono::milliseconds(90000));
  CHECK(parse_duration("1500ms") == std::chrono::milliseconds(1500));
  CHECK(parse_duration("2m") == std::chrono::milliseconds(120000));
  CHECK(parse_duration("1h") == std::chrono::milliseconds(3600000));
  CHECK_FALSE(parse_duration("-1s"));
  CHECK_FALSE(parse_duration("1d"));
  CHECK_FALSE(parse_duration("99999999999999999999s"));
}
