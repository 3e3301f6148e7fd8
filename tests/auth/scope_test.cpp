#include <doctest/doctest.h>

#include "auth/scope.hpp"

using namespace omgdb::auth;

TEST_CASE("scope names and their aliases parse to the three ordered scopes") {
  CHECK(parse_scope("read") == scope::read);
  CHECK(parse_scope("ro") == scope::read);
  CHECK(parse_scope("read-write") == scope::read_write);
  CHECK(parse_scope("write") == scope::read_write);
  CHECK(parse_scope("rw") == scope::read_write);
  CHECK(parse_scope("dangerous") == scope::dangerous);
  CHECK(parse_scope("all") == scope::dangerous);
}

TEST_CASE("anything else is not a scope") {
  CHECK_FALSE(parse_scope("").has_value());
  CHECK_FALSE(parse_scope("READ").has_value());
  CHECK_FALSE(parse_scope("admin").has_value());
  CHECK_FALSE(parse_scope("read ").has_value());
}

TEST_CASE("a tool is allowed only at or below the ceiling") {
  CHECK(allows(scope::read, scope::read));
  CHECK_FALSE(allows(scope::read, scope::read_write));
  CHECK(allows(scope::read_write, scope::read));
  CHECK_FALSE(allows(scope::read_write, scope::dangerous));
  CHECK(allows(scope::dangerous, scope::dangerous));
  CHECK(intersect(scope::dangerous, scope::read) == scope::read);
  CHECK(to_string(scope::read_write) == "read-write");
}
