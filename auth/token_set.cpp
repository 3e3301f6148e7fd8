// omgdb auth — the bearer tokens a daemon accepts, each with a name and a scope ceiling.
#include "auth/token_set.hpp"

#include <openssl/crypto.h>

namespace omgdb::auth {

token_verdict token_set::judge(std::optional<std::string_view> authorization) const noexcept {
  token_verdict v;
  if (!authorization) return v;
  auto token = bearer_token_of(*authorization);
  if (!token) return v;
  v.cred = credential::wrong;
  sha256_digest presented = sha256(*token);
  const named_token* match = nullptr;
  for (const auto& t : tokens_) {
    bool same = CRYPTO_memcmp(presented.data(), t.hash.data(), presented.size()) == 0;
    if (same && !match) match = &t;
  }
  if (match) {
    v.cred = credential::valid;
    v.name = match->name;
    v.ceiling = match->ceiling;
  }
  return v;
}

}  // namespace omgdb::auth
