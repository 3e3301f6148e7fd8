// omgdb auth — the bearer tokens a daemon accepts, each with a name and a scope ceiling.
//
// Tokens come from the config file (`[[http.tokens]]`, held as SHA-256 hashes) and from
// OMGDB_HTTP_TOKEN. A presented token is hashed once and compared in constant time with
// every entry (no early exit), so timing reveals neither the token nor which entry matched.
// The name identifies the token in logs; the token itself is never kept or printed.
// Thread-compatible: the HTTP event loop owns it and replaces it whole on reload.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/scope.hpp"
#include "auth/token.hpp"

namespace omgdb::auth {

struct named_token {
  std::string name;
  sha256_digest hash{};
  scope ceiling = scope::read_write;
};

struct token_verdict {
  credential cred = credential::missing;
  std::string_view name;           // the matching entry's name (valid only)
  scope ceiling = scope::read;     // the matching entry's scope (valid only)
};

class token_set {
 public:
  void add(named_token t) { tokens_.push_back(std::move(t)); }
  bool empty() const noexcept { return tokens_.empty(); }
  std::size_t size() const noexcept { return tokens_.size(); }
  const std::vector<named_token>& entries() const noexcept { return tokens_; }

  // Judges a whole `Authorization` header value (nullopt: the header is absent).
  token_verdict judge(std::optional<std::string_view> authorization) const noexcept;

 private:
  std::vector<named_token> tokens_;
};

}  // namespace omgdb::auth
