// omgdb transports — HTTPS for the Streamable HTTP listener (OpenSSL through Asio).
//
// Internal to transports/. `make_tls_context` loads a PEM certificate chain and an
// unencrypted PEM private key, checks that they belong together and returns a server context
// with TLS 1.2 as the minimum version and forward-secret AEAD cipher suites for TLS 1.2
// (TLS 1.3 keeps OpenSSL's defaults). Every failure is an error naming the file and the cause,
// reported at start-up. `serve_tls_connection` runs one accepted connection over TLS; a client
// speaking plain HTTP to it gets a plain-text 400 and is closed.
#pragma once

#include <memory>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "common/result.hpp"

namespace boost::asio::ssl {
class context;
}

namespace omgdb::transports::http {

struct server_context;

result<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(const std::string& cert_file,
                                                                   const std::string& key_file);

boost::asio::awaitable<void> serve_tls_connection(std::shared_ptr<server_context> ctx,
                                                  std::shared_ptr<boost::asio::ssl::context> tls,
                                                  boost::asio::ip::tcp::socket socket);

}  // namespace omgdb::transports::http
