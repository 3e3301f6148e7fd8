#include <doctest/doctest.h>

#include <set>
#include <string>

#include "auth/token.hpp"

using namespace omgdb::auth;

TEST_CASE("a token needs 16 to 4096 visible ASCII characters") {
  CHECK(check_token_text(std::string(16, 'a')).ok());
  CHECK(check_token_text(std::string(4096, 'a')).ok());
  CHECK_FALSE(check_token_text(std::string(15, 'a')).ok());
  CHECK_FALSE(check_token_text(std::string(4097, 'a')).ok());
  CHECK_FALSE(check_token_text("").ok());
  CHECK_FALSE(check_token_text("0123456789abcdef 0123").ok());
  CHECK_FALSE(check_token_text("0123456789abcdef\t0123").ok());
  CHECK_FALSE(check_token_text("0123456789abcdef\n").ok());
  CHECK_FALSE(check_token_text("0123456789abcdef\x7f").ok());
  CHECK_FALSE(check_token_text("0123456789abcdef\xc3\xa9").ok());
}

TEST_CASE("the reason a token is refused never contains the token") {
  std::string secret = "secret-but-short";
  secret.pop_back();
  auto r = check_token_text(secret);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find(secret) == std::string::npos);
  CHECK(r.error().message.find("too short") != std::string::npos);
}

TEST_CASE("sha256 matches the published test vectors") {
  CHECK(to_hex(std::string_view(reinterpret_cast<const char*>(sha256("abc").data()), 32)) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(to_hex(std::string_view(reinterpret_cast<const char*>(sha256("").data()), 32)) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("base64url encodes without padding") {
  CHECK(base64url("") == "");
  CHECK(base64url("f") == "Zg");
  CHECK(base64url("fo") == "Zm8");
  CHECK(base64url("foo") == "Zm9v");
  CHECK(base64url("foob") == "Zm9vYg");
  CHECK(base64url("\xfb\xff\xfe") == "-__-");
}

TEST_CASE("fresh tokens are 43 base64url characters and never repeat") {
  std::set<std::string> seen;
  for (int i = 0; i < 64; ++i) {
    auto t = new_token();
    REQUIRE(t.ok());
    CHECK(t->size() == 43);
    CHECK(t->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == std::string::npos);
    CHECK(check_token_text(*t).ok());
    seen.insert(*t);
  }
  CHECK(seen.size() == 64);
}

TEST_CASE("session ids are 32 lowercase hex digits (128 bits)") {
  auto a = random_hex_id();
  auto b = random_hex_id();
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->size() == 32);
  CHECK(a->find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(*a != *b);
}

TEST_CASE("the bearer scheme is case-insensitive and takes exactly one token") {
  CHECK(bearer_token_of("Bearer abc") == std::optional<std::string_view>("abc"));
  CHECK(bearer_token_of("bearer abc") == std::optional<std::string_view>("abc"));
  CHECK(bearer_token_of("BEARER   abc  ") == std::optional<std::string_view>("abc"));
  CHECK_FALSE(bearer_token_of("Bearer").has_value());
  CHECK_FALSE(bearer_token_of("Bearer ").has_value());
  CHECK_FALSE(bearer_token_of("Bearerabc").has_value());
  CHECK_FALSE(bearer_token_of("Basic abc").has_value());
  CHECK_FALSE(bearer_token_of("Bearer abc def").has_value());
}

TEST_CASE("a verifier accepts only its token and tells missing from wrong") {
  token_verifier v("the-right-token-0123456789");
  CHECK(v.configured());
  CHECK(v.matches("the-right-token-0123456789"));
  CHECK_FALSE(v.matches("the-right-token-012345678"));
  CHECK_FALSE(v.matches("the-right-token-01234567890"));
  CHECK(v.judge(std::string_view("Bearer the-right-token-0123456789")) == credential::valid);
  CHECK(v.judge(std::string_view("Bearer the-wrong-token-0123456789")) == credential::wrong);
  CHECK(v.judge(std::string_view("Basic dXNlcjpwYXNz")) == credential::missing);
  CHECK(v.judge(std::nullopt) == credential::missing);
}

TEST_CASE("an empty verifier accepts nothing, not even an empty token") {
  token_verifier v;
  CHECK_FALSE(v.configured());
  CHECK_FALSE(v.matches(""));
  CHECK(v.judge(std::string_view("Bearer x")) == credential::wrong);
}
