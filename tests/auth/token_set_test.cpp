#include <doctest/doctest.h>

#include "auth/token_set.hpp"

using namespace omgdb::auth;

TEST_CASE("a token set tells which named token a bearer header carries, and its scope") {
  token_set set;
  set.add({"reader", sha256("reader-token-0123456789"), scope::read});
  set.add({"writer", sha256("writer-token-0123456789"), scope::read_write});
  auto v = set.judge(std::string_view("Bearer writer-token-0123456789"));
  CHECK(v.cred == credential::valid);
  CHECK(v.name == "writer");
  CHECK(v.ceiling == scope::read_write);
  v = set.judge(std::string_view("bearer reader-token-0123456789"));
  CHECK(v.name == "reader");
  CHECK(v.ceiling == scope::read);
}

TEST_CASE("a wrong, malformed or absent credential matches no entry") {
  token_set set;
  set.add({"reader", sha256("reader-token-0123456789"), scope::read});
  CHECK(set.judge(std::string_view("Bearer nope-nope-nope-nope")).cred == credential::wrong);
  CHECK(set.judge(std::string_view("Basic abc")).cred == credential::missing);
  CHECK(set.judge(std::nullopt).cred == credential::missing);
  CHECK(set.judge(std::string_view("Bearer wrong")).name.empty());
}

TEST_CASE("an empty token set accepts nothing") {
  token_set set;
  CHECK(set.empty());
  CHECK(set.judge(std::string_view("Bearer anything-at-all-here")).cred == credential::wrong);
}
