// The session's handling of modern (2026-07-28) requests: mcp/modern.hpp.
#include "common/json.hpp"
#include "mcp/modern.hpp"
#include "mcp/session.hpp"

namespace omgdb::mcp {
namespace bj = boost::json;

call_style session::legacy_style() const {
  call_style s;
  s.result.structured = has_structured_results(negotiated_version());
  return s;
}

void session::dispatch_modern(const envelope& e, std::string_view version, const bj::object& params,
                              const std::string& violation) {
  const bj::value& id = *e.id;
  if (!modern_version_supported(version)) return reply_error_object(id, unsupported_version_error(version));
  if (!declares_capabilities(&params)) {
    return reply_error(id, -32602,
                       "invalid params: params._meta must carry io.modelcontextprotocol/clientCapabilities");
  }
  call_style style;
  style.result = {true, true};
  style.min_log_level = -1;  // no notifications/message unless the request asks for them
  const bj::object& meta = params.at("_meta").get_object();  // declared_version found it
  if (auto lv = meta.find(meta_log_level); lv != meta.end()) {
    int level = lv->value().is_string()
                    ? level_index(std::string_view(lv->value().get_string().data(), lv->value().get_string().size()))
                    : -1;
    if (level < 0) {
      return reply_error(id, -32602,
                         "invalid log level in _meta: expected one of debug, info, notice, warning, error, "
                         "critical, alert, emergency");
    }
    style.min_log_level = level;
  }
  if (e.method == "server/discover") return on_discover(id);
  if (e.method == "tools/list") return on_modern_tools_list(id, params);
  if (e.method == "tools/call") return on_tools_call(id, params, violation, style);
  reply_error(id, -32601, "method not found");
}

void session::on_discover(const bj::value& id) {
  bj::object caps{{"tools", bj::object{{"listChanged", false}}}, {"logging", bj::object{}}};
  bj::object info{{"name", "omgdb"}, {"version", server_.options().version}};
  reply_result(id, bj::object{{"resultType", "complete"},
                              {"supportedVersions", all_versions()},
                              {"capabilities", std::move(caps)},
                              {"_meta", bj::object{{meta_server_info, std::move(info)}}},
                              {"ttlMs", list_ttl_ms},
                              {"cacheScope", "public"}});
}

void session::on_modern_tools_list(const bj::value& id, const bj::object& params) {
  if (auto c = params.find("cursor"); c != params.end() && !c->value().is_null()) {
    return reply_error(id, -32602, "invalid cursor: this server returns every tool in one page");
  }
  bj::array list;
  for (const tool* t : server_.visible(ceiling_)) list.push_back(describe_for(*t, true));
  // The list depends on the caller's scope (its token): "private", never shared across tokens.
  reply_result(id, bj::object{{"resultType", "complete"},
                              {"tools", std::move(list)},
                              {"ttlMs", list_ttl_ms},
                              {"cacheScope", "private"}});
}

void session::reply_error_object(const bj::value& id, bj::object error) {
  bj::object envelope{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
  send(message_kind::response, json::serialize(envelope), json::serialize(id));
}

}  // namespace omgdb::mcp
