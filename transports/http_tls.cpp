// The TLS server context of the HTTP listener: certificate, key, protocol floor and ciphers.
#include "transports/http_tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <fstream>

#include <boost/asio/ssl/context.hpp>

namespace omgdb::transports::http {
namespace ssl = boost::asio::ssl;

namespace {

// TLS 1.2 suites with forward secrecy and authenticated encryption only.
constexpr const char* tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// OpenSSL's reason for the last failure, without its queue of codes.
std::string openssl_reason(const boost::system::error_code& ec) {
  std::string why = ec.message();
  unsigned long code = ERR_peek_last_error();
  if (code != 0) {
    if (const char* r = ERR_reason_error_string(code)) why = r;
  }
  ERR_clear_error();
  return why;
}

status readable(const std::string& what, const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return make_error("cannot read the TLS " + what + " `" + file + "` (`tls_" + what +
                      "` in [http]): it does not exist or is not readable by this user");
  }
  return {};
}

}  // namespace

result<std::shared_ptr<ssl::context>> make_tls_context(const std::string& cert_file, const std::string& key_file) {
  if (cert_file.empty() || key_file.empty()) {
    return make_error("`tls_cert` and `tls_key` in [http] go together: set both or neither");
  }
  if (auto ok = readable("cert", cert_file); !ok) return std::move(ok).error();
  if (auto ok = readable("key", key_file); !ok) return std::move(ok).error();
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                   ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use |
                   ssl::context::no_compression);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_set_cipher_list(native, tls12_ciphers) != 1) {
    ERR_clear_error();
    return make_error("the TLS library offers none of the TLS 1.2 cipher suites omgdb uses");
  }
  // A passphrase-protected key would make OpenSSL prompt on the terminal (stdin is MCP's):
  // refuse it instead.
  SSL_CTX_set_default_passwd_cb(native, [](char*, int, int, void*) { return 0; });
  // The key first: a certificate loaded after a key that is not its own drops the key, which
  // the check below then reports as a mismatch (rather than as an unusable key).
  boost::system::error_code ec;
  ctx->use_private_key_file(key_file, ssl::context::pem, ec);
  if (ec) {
    return make_error("cannot use the TLS key `" + key_file + "` (`tls_key` in [http]): " + openssl_reason(ec) +
                      "; it must be an unencrypted PEM private key");
  }
  ctx->use_certificate_chain_file(cert_file, ec);
  if (ec) {
    return make_error("cannot use the TLS certificate `" + cert_file + "` (`tls_cert` in [http]): " +
                      openssl_reason(ec) + "; it must be a PEM certificate (chain)");
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    ERR_clear_error();
    return make_error("the TLS key `" + key_file + "` does not match the certificate `" + cert_file +
                      "` (`tls_key` and `tls_cert` in [http])");
  }
  return ctx;
}

}  // namespace omgdb::transports::http
