#include "mcp/modern.hpp"

#include "mcp/session_state.hpp"

namespace omgdb::mcp {
namespace bj = boost::json;

std::optional<std::string_view> declared_version(const bj::object* params) noexcept {
  if (!params) return std::nullopt;
  auto m = params->find("_meta");
  if (m == params->end() || !m->value().is_object()) return std::nullopt;
  const bj::object& meta = m->value().get_object();
  auto v = meta.find(meta_protocol_version);
  if (v == meta.end()) return std::nullopt;
  if (!v->value().is_string()) return std::string_view();
  const bj::string& s = v->value().get_string();
  return std::string_view(s.data(), s.size());
}

bool declares_capabilities(const bj::object* params) noexcept {
  if (!params) return false;
  auto m = params->find("_meta");
  if (m == params->end() || !m->value().is_object()) return false;
  auto c = m->value().get_object().find("io.modelcontextprotocol/clientCapabilities");
  return c != m->value().get_object().end() && c->value().is_object();
}

bool modern_version_supported(std::string_view version) noexcept {
  for (auto v : modern_versions) {
    if (v == version) return true;
  }
  return false;
}

bj::array all_versions() {
  bj::array out;
  for (auto v : modern_versions) out.emplace_back(v);
  for (auto v : supported_versions) out.emplace_back(v);
  return out;
}

bool modern_method_known(std::string_view method) noexcept {
  return method == "server/discover" || method == "tools/list" || method == "tools/call";
}

bj::object unsupported_version_error(std::string_view requested) {
  return bj::object{{"code", unsupported_protocol_version},
                    {"message", "Unsupported protocol version"},
                    {"data", bj::object{{"supported", all_versions()}, {"requested", requested}}}};
}

}  // namespace omgdb::mcp
