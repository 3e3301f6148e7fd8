#include "auth/scope.hpp"

namespace omgdb::auth {

std::optional<scope> parse_scope(std::string_view text) noexcept {
  if (text == "read" || text == "ro") return scope::read;
  if (text == "read-write" || text == "write" || text == "rw") return scope::read_write;
  if (text == "dangerous" || text == "all") return scope::dangerous;
  return std::nullopt;
}

std::string_view to_string(scope s) noexcept {
  switch (s) {
    case scope::read: return "read";
    case scope::read_write: return "read-write";
    case scope::dangerous: return "dangerous";
  }
  return "read";
}

}  // namespace omgdb::auth
