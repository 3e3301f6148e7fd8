// omgdb auth — bearer tokens and the random identifiers the HTTP transport hands out.
//
// A token is kept only as its SHA-256 hash; a presented token is hashed and the two hashes
// are compared in constant time (CRYPTO_memcmp), so neither the comparison time nor a log
// line can leak the secret. Nothing here logs or formats a token.
// Randomness comes from OpenSSL's RAND_bytes (the OS CSPRNG); all functions are thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace omgdb::auth {

inline constexpr std::size_t min_token_chars = 16;
inline constexpr std::size_t max_token_chars = 4096;

using sha256_digest = std::array<std::uint8_t, 32>;

sha256_digest sha256(std::string_view data) noexcept;

// A token is acceptable when it has 16..4096 characters, all visible ASCII (0x21..0x7E: no
// whitespace, no control characters). The error names the rule broken, never the token.
status check_token_text(std::string_view token);

// `bytes` bytes from the OS CSPRNG; fails only when OpenSSL cannot seed (then the caller
// must refuse to continue rather than hand out guessable identifiers).
result<std::string> random_bytes(std::size_t bytes);
// 16 random bytes as 32 lowercase hex digits: a session id (128 bits).
result<std::string> random_hex_id();
// 32 random bytes, base64url without padding (43 characters): a fresh bearer token.
result<std::string> new_token();

std::string to_hex(std::string_view bytes);
std::string base64url(std::string_view bytes);

// What an `Authorization` header value proves.
enum class credential {
  missing,  // no header, or not of the form "Bearer <token>"
  wrong,    // a bearer token that does not match
  valid,
};

// The daemon's accepted token, held as a hash. An empty verifier (no token configured)
// accepts nothing.
class token_verifier {
 public:
  token_verifier() = default;
  explicit token_verifier(std::string_view token) : hash_(sha256(token)), set_(true) {}

  bool configured() const noexcept { return set_; }
  // Constant time in the length of the presented token's hash (always 32 bytes).
  bool matches(std::string_view presented) const noexcept;
  // Judges a whole `Authorization` header value (nullopt: the header is absent).
  // The scheme is case-insensitive; exactly one space-separated token is expected.
  credential judge(std::optional<std::string_view> authorization) const noexcept;

 private:
  sha256_digest hash_{};
  bool set_ = false;
};

// The token part of "Bearer <token>", or nullopt when the value has another shape.
std::optional<std::string_view> bearer_token_of(std::string_view authorization) noexcept;

}  // namespace omgdb::auth
