// The web console's view of the HTTP session table (transports/console_site.hpp): the live
// sessions as JSON and "end session". Defined apart from http_sessions.cpp so that the
// console's needs stay out of the table's own file.
#include <boost/json/object.hpp>

#include "auth/scope.hpp"
#include "transports/http_sessions.hpp"

namespace omgdb::transports::http {
namespace bj = boost::json;

bj::array session_table::describe() const {
  bj::array out;
  std::int64_t t = now_();
  for (const auto& [id, hs] : live_) {
    std::string version = hs->mcp().negotiated_version();
    out.push_back(bj::object{{"handle", id.substr(0, 8)},
                             {"mcpSession", hs->mcp().id()},
                             {"name", hs->mcp().name()},
                             {"token", hs->token_name.empty() ? std::string("(no auth)") : hs->token_name},
                             {"scope", std::string(auth::to_string(hs->granted))},
                             {"protocolVersion", version},
                             {"ageMs", t - hs->created_ms},
                             {"idleMs", t - hs->last_used_ms},
                             {"inFlight", hs->open_requests()},
                             {"stream", hs->has_get_stream()}});
  }
  return out;
}

bool session_table::end_session(std::string_view label) {
  if (label.size() != 8) return false;
  std::string found;
  for (const auto& [id, hs] : live_) {
    if (id.compare(0, 8, label) != 0) continue;
    if (!found.empty()) return false;  // ambiguous: end nothing
    found = id;
  }
  if (found.empty()) return false;
  remove(found, "the session was ended from the omgdb console");
  return true;
}

}  // namespace omgdb::transports::http
