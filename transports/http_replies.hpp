// omgdb transports — HTTP replies outside a parsed exchange, and the operations endpoints.
//
// Internal to the HTTP transport (includes Beast).
#pragma once

#include <string_view>

#include <boost/asio/awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "transports/http_rules.hpp"

namespace omgdb::transports::http {

struct server_context;

// Writes a complete raw HTTP/1.1 reply (`status` as "400 Bad Request", `extra_headers` as
// whole "Name: value\r\n" lines), then reads briefly what the peer sent, so that closing does
// not reset the connection before the reply is read; then closes.
boost::asio::awaitable<void> reply_and_close(boost::beast::tcp_stream& stream, std::string_view status,
                                             std::string_view type, std::string_view body,
                                             std::string_view extra_headers);

// `/healthz` and `/metrics`, once screen_ops has let the request through.
http_reply ops_reply(server_context& ctx, ops_endpoint which, bool head);

}  // namespace omgdb::transports::http
