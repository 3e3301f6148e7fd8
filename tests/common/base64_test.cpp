// common/base64: RFC 4648 test vectors, and what is refused.
#include <doctest/doctest.h>

#include "common/base64.hpp"

using omgdb::decode_base64;

TEST_CASE("base64 decodes the RFC 4648 test vectors") {
  CHECK(decode_base64("") == std::string());
  CHECK(decode_base64("Zg==") == std::string("f"));
  CHECK(decode_base64("Zm8=") == std::string("fo"));
  CHECK(decode_base64("Zm9v") == std::string("foo"));
  CHECK(decode_base64("Zm9vYg==") == std::string("foob"));
  CHECK(decode_base64("Zm9vYmE=") == std::string("fooba"));
  CHECK(decode_base64("Zm9vYmFy") == std::string("foobar"));
  CHECK(decode_base64("+/8=") == std::string("\xfb\xff"));
}

TEST_CASE("base64 refuses other characters, a wrong length and misplaced padding") {
  CHECK_FALSE(decode_base64("Zm9").has_value());
  CHECK_FALSE(decode_base64("Zm9v!A==").has_value());
  CHECK_FALSE(decode_base64("Zg=a").has_value());
  CHECK_FALSE(decode_base64("Z===").has_value());
  CHECK_FALSE(decode_base64("-_8=").has_value());  // base64url is not this alphabet
}
