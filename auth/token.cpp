#include "auth/token.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

namespace omgdb::auth {

sha256_digest sha256(std::string_view data) noexcept {
  sha256_digest out{};
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data());
  return out;
}

status check_token_text(std::string_view token) {
  if (token.size() < min_token_chars) {
    return make_error("the token is too short: it has " + std::to_string(token.size()) +
                      " characters, at least " + std::to_string(min_token_chars) +
                      " are required (create one with `omgdb token new`)");
  }
  if (token.size() > max_token_chars) {
    return make_error("the token is too long: at most " + std::to_string(max_token_chars) +
                      " characters are allowed");
  }
  for (std::size_t i = 0; i < token.size(); ++i) {
    auto c = static_cast<unsigned char>(token[i]);
    if (c < 0x21 || c > 0x7E) {
      return make_error("the token contains whitespace or a non-printable character at position " +
                        std::to_string(i + 1) + ": use visible ASCII only");
    }
  }
  return {};
}

result<std::string> random_bytes(std::size_t bytes) {
  std::string out(bytes, '\0');
  if (bytes > 0 && RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(bytes)) != 1) {
    return make_error("the system random number generator is unavailable");
  }
  return out;
}

result<std::string> random_hex_id() {
  auto raw = random_bytes(16);
  if (!raw) return std::move(raw).error();
  return to_hex(*raw);
}

result<std::string> new_token() {
  auto raw = random_bytes(32);
  if (!raw) return std::move(raw).error();
  return base64url(*raw);
}

std::string to_hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 0x0F]);
  }
  return out;
}

std::string base64url(std::string_view bytes) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(alphabet[(v >> shift) & 0x3F]);
  }
  std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    std::uint32_t v = at(i) << 16;
    out.push_back(alphabet[(v >> 18) & 0x3F]);
    out.push_back(alphabet[(v >> 12) & 0x3F]);
  } else if (rest == 2) {
    std::uint32_t v = at(i) << 16 | at(i + 1) << 8;
    out.push_back(alphabet[(v >> 18) & 0x3F]);
    out.push_back(alphabet[(v >> 12) & 0x3F]);
    out.push_back(alphabet[(v >> 6) & 0x3F]);
  }
  return out;
}

bool token_verifier::matches(std::string_view presented) const noexcept {
  if (!set_) return false;
  sha256_digest h = sha256(presented);
  return CRYPTO_memcmp(h.data(), hash_.data(), h.size()) == 0;
}

std::optional<std::string_view> bearer_token_of(std::string_view value) noexcept {
  constexpr std::string_view scheme = "bearer";
  if (value.size() <= scheme.size() + 1) return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i) {
    char c = value[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != scheme[i]) return std::nullopt;
  }
  std::size_t i = scheme.size();
  if (value[i] != ' ') return std::nullopt;
  while (i < value.size() && value[i] == ' ') ++i;
  std::size_t end = value.size();
  while (end > i && (value[end - 1] == ' ' || value[end - 1] == '\t')) --end;
  std::string_view token = value.substr(i, end - i);
  if (token.empty() || token.find_first_of(" \t") != std::string_view::npos) return std::nullopt;
  return token;
}

credential token_verifier::judge(std::optional<std::string_view> authorization) const noexcept {
  if (!authorization) return credential::missing;
  auto token = bearer_token_of(*authorization);
  if (!token) return credential::missing;
  return matches(*token) ? credential::valid : credential::wrong;
}

}  // namespace omgdb::auth
