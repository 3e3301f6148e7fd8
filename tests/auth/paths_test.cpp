#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "auth/paths.hpp"

using namespace omgdb::auth;
namespace fs = std::filesystem;

namespace {

struct temp_tree {
  fs::path dir = fs::temp_directory_path() / ("omgdb_paths_" + std::to_string(::getpid()));
  temp_tree() {
    fs::remove_all(dir);
    fs::create_directories(dir / "root" / "app.omgdb");
    fs::create_directories(dir / "outside");
  }
  ~temp_tree() { fs::remove_all(dir); }
};

bool contains(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("without roots every path is accepted unchanged") {
  auto r = confine_path("../x/y", {});
  REQUIRE(r);
  CHECK(*r == "../x/y");
}

TEST_CASE("a path under a root is accepted, a relative one is taken from the first root") {
  temp_tree t;
  std::vector<fs::path> roots{t.dir / "root"};
  auto abs = confine_path((t.dir / "root" / "app.omgdb").string(), roots);
  REQUIRE(abs);
  CHECK(*abs == (fs::canonical(t.dir / "root") / "app.omgdb").string());
  auto rel = confine_path("new.omgdb", roots);
  REQUIRE(rel);
  CHECK(*rel == (fs::canonical(t.dir / "root") / "new.omgdb").string());
}

TEST_CASE("a path outside every root is refused with the roots named") {
  temp_tree t;
  std::vector<fs::path> roots{t.dir / "root"};
  auto r = confine_path((t.dir / "outside" / "x.omgdb").string(), roots);
  REQUIRE_FALSE(r);
  CHECK(contains(r.error().message, "is outside the store roots"));
  CHECK(contains(r.error().message, (t.dir / "root").string()));
  CHECK_FALSE(confine_path((t.dir / "rootx").string(), roots));
  CHECK_FALSE(confine_path("/etc/passwd", roots));
}

TEST_CASE("a path with .. is refused even when it would land inside") {
  temp_tree t;
  std::vector<fs::path> roots{t.dir / "root"};
  auto r = confine_path((t.dir / "root" / "a" / ".." / "app.omgdb").string(), roots);
  REQUIRE_FALSE(r);
  CHECK(contains(r.error().message, "must not contain `..`"));
  CHECK_FALSE(confine_path("../outside", roots));
}

TEST_CASE("a symlink inside a root that points outside is refused") {
  temp_tree t;
  fs::create_directory_symlink(t.dir / "outside", t.dir / "root" / "escape");
  std::vector<fs::path> roots{t.dir / "root"};
  auto r = confine_path("escape/x.omgdb", roots);
  REQUIRE_FALSE(r);
  CHECK(contains(r.error().message, "after following symlinks"));
}

TEST_CASE("a root reached through a symlink still confines") {
  temp_tree t;
  fs::create_directory_symlink(t.dir / "root", t.dir / "link");
  std::vector<fs::path> roots{t.dir / "link"};
  CHECK(confine_path("app.omgdb", roots));
  CHECK_FALSE(confine_path((t.dir / "outside").string(), roots));
}

TEST_CASE("a path policy's roots apply to confine and can be replaced") {
  temp_tree t;
  path_policy policy({t.dir / "root"});
  CHECK_FALSE(policy.confine("/etc"));
  CHECK_FALSE(policy.confine("/etc", path_role::file));
  policy.replace({});
  CHECK(policy.confine("/etc"));
}
