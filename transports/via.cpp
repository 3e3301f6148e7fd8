// omgdb transports — the stdio-to-HTTP bridge (`omgdb mcp --via URL`); see via.hpp.
#include "transports/via.hpp"
#include "common/fd_io.hpp"
#include "transports/line_reader.hpp"

#include <unistd.h>

#include <condition_variable>
#include <csignal>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/url/parse.hpp>

#include "common/json.hpp"
#include "common/log.hpp"
#include "mcp/modern.hpp"

namespace omgdb::transports {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

struct endpoint {
  std::string host, port, target;
  bool tls = false;  // https://: the certificate is verified (system CAs, or SSL_CERT_FILE)
};

result<endpoint> parse_endpoint(const std::string& url) {
  auto u = boost::urls::parse_uri(url);
  if (!u) return make_error("--via `" + url + "` is not a URL; use http://127.0.0.1:41922/mcp");
  bool tls = u->scheme() == "https";
  if (u->scheme() != "http" && !tls) {
    return make_error("--via `" + url + "`: only http:// and https:// URLs are supported, e.g. "
                      "http://127.0.0.1:41922/mcp");
  }
  if (u->host().empty()) return make_error("--via `" + url + "` has no host");
  endpoint e{std::string(u->host()), u->has_port() ? std::string(u->port()) : (tls ? "443" : "80"),
             u->encoded_path().empty() ? "/" : std::string(u->encoded_path()), tls};
  if (e.host.size() > 2 && e.host.front() == '[') e.host = e.host.substr(1, e.host.size() - 2);
  return e;
}

class bridge {
 public:
  bridge(const via_options& o, endpoint e) : o_(o), ep_(std::move(e)) {
    if (!ep_.tls) return;
    tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(tls_->native_handle(), TLS1_2_VERSION);
    boost::system::error_code ignored;
    tls_->set_default_verify_paths(ignored);  // honours SSL_CERT_FILE / SSL_CERT_DIR
    tls_->set_verify_mode(asio::ssl::verify_peer);
  }

  void handle_line(std::string line) {
    auto parsed = json::parse_strict(line);
    boost::json::value id;
    std::string method;
    if (parsed && parsed->is_object()) {
      const auto& obj = parsed->get_object();
      if (auto it = obj.find("id"); it != obj.end()) id = it->value();
      if (auto it = obj.find("method"); it != obj.end() && it->value().is_string()) method = it->value().get_string();
    }
    if (method == "initialize") return post(std::move(line), id, true);  // others need its session id
    modern_request modern = parsed ? modern_of(*parsed, method) : modern_request{};
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return running_ < o_.max_in_flight; });
    ++running_;
    lock.unlock();
    std::thread([this, line = std::move(line), id, modern = std::move(modern)]() mutable {
      post(std::move(line), id, false, modern);
      // This thread's OpenSSL state is freed now, before finish() can see it done: left to the
      // thread's exit, its cleanup could run after the main thread began the process's exit
      // and tore OpenSSL down (a crash at exit, seen under load).
      OPENSSL_thread_stop();
      std::lock_guard done(mu_);
      --running_;
      cv_.notify_all();
    }).detach();
  }

  void finish() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return running_ == 0; });
    std::string session = session_;
    lock.unlock();
    if (session.empty()) return;
    try {
      with_stream([&](auto& stream) {
        http::request<http::empty_body> req{http::verb::delete_, ep_.target, 11};
        add_headers(req, session);
        http::write(stream, req);
        beast::flat_buffer buf;
        http::response<http::string_body> res;
        http::read(stream, buf, res);
      });
    } catch (const std::exception& e) {
      log::warning(std::string("could not end the daemon session: ") + e.what());
    }
  }

 private:
  void write_line(std::string_view text) {
    std::lock_guard lock(out_mu_);
    std::string line(text);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    line.push_back('\n');
    fd_io::write_all(o_.out_fd, line);  // a client that went away: nothing more to do
  }

  void reply_error(const boost::json::value& id, const std::string& message) {
    log::warning(message);
    if (id.is_null()) return;  // a notification gets no reply
    boost::json::object err{{"jsonrpc", "2.0"}, {"id", id},
                            {"error", boost::json::object{{"code", -32000}, {"message", message}}}};
    write_line(json::serialize(err));
  }

  void connect(beast::tcp_stream& stream) {
    tcp::resolver resolver(ioc_);
    stream.expires_after(o_.connect_timeout);
    stream.connect(resolver.resolve(ep_.host, ep_.port));
    stream.expires_never();
  }

  // Connects (and for https:// verifies the certificate and its name), then runs `f(stream)`.
  template <class F>
  void with_stream(F&& f) {
    if (!tls_) {
      beast::tcp_stream stream(ioc_);
      connect(stream);
      return f(stream);
    }
    beast::ssl_stream<beast::tcp_stream> stream(ioc_, *tls_);
    connect(beast::get_lowest_layer(stream));
    boost::system::error_code ec;
    asio::ip::make_address(ep_.host, ec);
    if (ec && !SSL_set_tlsext_host_name(stream.native_handle(), ep_.host.c_str())) {
      throw std::runtime_error("cannot set the TLS server name " + ep_.host);
    }
    stream.set_verify_callback(asio::ssl::host_name_verification(ep_.host));
    stream.handshake(asio::ssl::stream_base::client);
    f(stream);
  }

  template <class Req>
  void add_headers(Req& req, const std::string& session) {
    req.set(http::field::host, ep_.host + ":" + ep_.port);
    req.set(http::field::user_agent, "omgdb-via");
    if (!o_.token.empty()) req.set(http::field::authorization, "Bearer " + o_.token);
    if (!session.empty()) req.set("Mcp-Session-Id", session);
    std::lock_guard lock(mu_);
    if (!version_.empty()) req.set("MCP-Protocol-Version", version_);
  }

  // Writes each `data:` payload of the complete SSE events in `pending` and keeps the rest.
  void drain_events(std::string& pending) {
    for (;;) {
      std::size_t end = pending.find("\n\n");
      if (end == std::string::npos) return;
      std::string event = pending.substr(0, end);
      pending.erase(0, end + 2);
      std::string data;
      std::size_t pos = 0;
      while (pos <= event.size()) {
        std::size_t nl = event.find('\n', pos);
        std::string_view field(event.data() + pos, (nl == std::string::npos ? event.size() : nl) - pos);
        if (field.starts_with("data:")) {
          field.remove_prefix(field.size() > 5 && field[5] == ' ' ? 6 : 5);
          if (!data.empty()) data.push_back('\n');
          data.append(field);
        }
        if (nl == std::string::npos) break;
        pos = nl + 1;
      }
      if (!data.empty()) {
        remember_version(data);
        write_line(data);
      }
    }
  }

  void remember_version(std::string_view message) {
    auto v = json::parse_strict(message);
    if (!v || !v->is_object()) return;
    auto* result = v->get_object().if_contains("result");
    if (!result || !result->is_object()) return;
    auto* pv = result->get_object().if_contains("protocolVersion");
    if (pv && pv->is_string()) {
      std::lock_guard lock(mu_);
      version_ = pv->get_string();
    }
  }

  // A 2026-07-28 request (params._meta declares its version) goes without the session, with
  // the revision's headers mirrored from its body (transports/http_modern.hpp).
  struct modern_request {
    std::string version, method, name;  // version "" = a legacy request
  };
  static modern_request modern_of(const boost::json::value& msg, const std::string& method) {
    modern_request m;
    const auto* params = msg.get_object().if_contains("params");
    if (!params || !params->is_object()) return m;
    auto v = mcp::declared_version(&params->get_object());
    if (!v || v->empty()) return m;
    m.version = std::string(*v);
    m.method = method;
    if (const auto* n = params->get_object().if_contains("name"); n && n->is_string()) m.name = n->get_string();
    return m;
  }

  void post(std::string line, const boost::json::value& id, bool is_initialize, const modern_request& modern = {}) {
    std::string session;
    {
      std::lock_guard lock(mu_);
      session = session_;
    }
    try {
      with_stream([&](auto& stream) {
        http::request<http::string_body> req{http::verb::post, ep_.target, 11};
        add_headers(req, modern.version.empty() ? session : std::string());
        if (!modern.version.empty()) {
          req.set("MCP-Protocol-Version", modern.version);
          req.set("Mcp-Method", modern.method);
          if (!modern.name.empty()) req.set("Mcp-Name", modern.name);
        }
        req.set(http::field::content_type, "application/json");
        req.set(http::field::accept, "application/json, text/event-stream");
        req.body() = std::move(line);
        req.prepare_payload();
        http::write(stream, req);

        beast::flat_buffer buf;
        http::response_parser<http::buffer_body> parser;
        parser.body_limit(boost::none);
        http::read_header(stream, buf, parser);
        const auto& head = parser.get();
        if (is_initialize) {
          if (auto sid = head.find("Mcp-Session-Id"); sid != head.end()) {
            std::lock_guard lock(mu_);
            session_ = std::string(sid->value());
          }
        }
        bool sse = head[http::field::content_type].starts_with("text/event-stream");
        unsigned status = head.result_int();
        std::string body, pending;
        char chunk[16384];
        while (!parser.is_done()) {
          parser.get().body().data = chunk;
          parser.get().body().size = sizeof(chunk);
          beast::error_code ec;
          http::read(stream, buf, parser, ec);
          if (ec && ec != http::error::need_buffer) throw beast::system_error(ec);
          std::size_t got = sizeof(chunk) - parser.get().body().size;
          if (sse && status == 200) {
            pending.append(chunk, got);
            drain_events(pending);
          } else if (body.size() < (1u << 26)) {
            body.append(chunk, got);
          }
        }
        if (sse && status == 200) return;
        if (status == 202) return;
        if (status == 200) {
          remember_version(body);
          return write_line(body);
        }
        // An error status: forward a JSON-RPC error as it is (with the request's id when the
        // daemon could not read one), else explain.
        std::string why = "the omgdb daemon at " + o_.url + " answered HTTP " + std::to_string(status);
        if (auto v = json::parse_strict(body); v && v->is_object() && v->get_object().contains("jsonrpc")) {
          auto& obj = v->get_object();
          auto* has_id = obj.if_contains("id");
          if (status != 401 && (!id.is_null() || (has_id && !has_id->is_null()))) {
            if (!has_id || has_id->is_null()) obj["id"] = id;
            return write_line(json::serialize(obj));
          }
          if (status != 401) return write_line(body);
        }
        if (status == 401) why += ": the bearer token was refused; set OMGDB_HTTP_TOKEN to the daemon's token";
        else if (status == 404) why += ": it does not know this session (it expired); restart the client to initialize again";
        else if (!body.empty()) why += ": " + body.substr(0, 300);
        reply_error(id, why);
      });
    } catch (const std::exception& e) {
      reply_error(id, "cannot reach the omgdb daemon at " + o_.url + ": " + e.what() +
                          "; start it with `omgdb serve` or check --via");
    }
  }

  const via_options& o_;
  endpoint ep_;
  asio::io_context ioc_;  // only for blocking sockets and the resolver; never run
  std::unique_ptr<asio::ssl::context> tls_;  // https:// only
  std::mutex mu_, out_mu_;
  std::condition_variable cv_;
  std::size_t running_ = 0;
  std::string session_, version_;
};

}  // namespace

result<void> check_via_url(const std::string& url) {
  auto e = parse_endpoint(url);
  if (!e) return std::move(e).error();
  return {};
}

int run_via(const via_options& options) {
  auto ep = parse_endpoint(options.url);
  if (!ep) {
    log::error(ep.error().message);
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  bridge b(options, std::move(*ep));
  read_lines(
      options.in_fd, options.max_line_bytes,
      [&](std::string& line) {
        if (line.find_first_not_of(" \t\r") != std::string::npos) b.handle_line(std::move(line));
      },
      [&](std::string_view) {
        log::warning("discarding an input line longer than " + std::to_string(options.max_line_bytes) + " bytes");
      });
  b.finish();
  return 0;
}

}  // namespace omgdb::transports
