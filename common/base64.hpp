// omgdb — standard base64 (RFC 4648 §4) decoding, shared by Extended JSON's `$binary`, the
// 2026-07-28 `Mcp-Name` header's `=?base64?…?=` form and the o200k rank file.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace omgdb {

// The bytes of `text`: the standard alphabet with '=' padding to a multiple of four characters.
// nullopt for any other character, a wrong length or misplaced padding.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace omgdb
