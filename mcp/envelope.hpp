// omgdb mcp — the JSON-RPC envelope of one incoming message, read once: what it is, its id,
// and whether the envelope rules refuse it. The session dispatches by it; a transport routes
// by it (an HTTP POST of a request waits for its response, anything else is 202) without
// knowing method names.
//
// Envelope rules (seeds/000 "Running the server" and "Error handling", issue 16 item 12):
//  - not an object, or an object with no string `method` that is not a response: ignored;
//  - a request's `id` must be a string or a number: -32600;
//  - `jsonrpc` must be the string "2.0": -32600 (a notification is ignored instead);
//  - a key repeated in the envelope itself (two `method`s, two `id`s): -32600.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/json/fwd.hpp>

namespace omgdb::mcp {

enum class inbound_kind {
  ignored,       // not a JSON-RPC message this server acts on
  request,       // `method` and `id`
  notification,  // `method`, no `id`
  response,      // no `method`; `id` and `result` or `error` (a client's answer)
};

struct envelope {
  inbound_kind kind = inbound_kind::ignored;
  std::string_view method;                 // requests and notifications; views into the message
  const boost::json::value* id = nullptr;  // the message's `id` member when it has one
  std::string key;                         // the serialized id of a request or response
  const boost::json::object* params = nullptr;  // null when absent or JSON null
  bool params_not_object = false;               // `params` is there but neither object nor null
  bool opens_session = false;                   // an `initialize` request
  // When the envelope rules refuse the message: the JSON-RPC error code and message (a
  // request is answered with them, a notification is dropped).
  int error_code = 0;
  std::string error;
  // Why an ignored message is ignored, for the log ("not a JSON object", …).
  std::string_view ignored_because;
};

// `envelope_violation`: json::parse's violation when it lies in the top-level object itself
// (violation_depth 1), else "". The envelope points into `msg`, which must outlive it.
envelope read_envelope(const boost::json::value& msg, std::string_view envelope_violation);

// The `id` of a request whose text was cut after `prefix` (a line over the size limit), when
// the prefix already holds the top-level `"id":` member whole; nullopt otherwise.
std::optional<boost::json::value> recover_id(std::string_view prefix);

}  // namespace omgdb::mcp
