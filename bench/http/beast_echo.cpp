// Benchmark baseline (not part of omgdb): a bare Boost.Beast HTTP/1.1 server on one thread that
// reads each POST body, parses it as JSON with Boost.JSON and answers 200 with the same JSON
// serialized again. It is the floor for "HTTP + JSON" on this machine: what omgdb costs beyond
// it is sessions, auth, dispatch, the tool and the store. Built only by `make bench-http`.
//
// Usage: beast_echo PORT   (prints "listening on PORT" on stderr; PORT 0: any)
#include <cstdio>
#include <cstdlib>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

asio::awaitable<void> serve(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  try {
    for (;;) {
      http::request<http::string_body> req;
      co_await http::async_read(stream, buffer, req, asio::use_awaitable);
      http::response<http::string_body> res{http::status::ok, req.version()};
      res.set(http::field::content_type, "application/json");
      boost::system::error_code ec;
      auto v = boost::json::parse(req.body(), ec);
      if (ec) {
        res.result(http::status::bad_request);
        res.body() = R"({"error":"not JSON"})";
      } else {
        res.body() = boost::json::serialize(v);
      }
      res.keep_alive(req.keep_alive());
      res.prepare_payload();
      co_await http::async_write(stream, res, asio::use_awaitable);
      if (!res.keep_alive()) break;
    }
  } catch (const std::exception&) {
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

asio::awaitable<void> listen(tcp::acceptor& acceptor) {
  for (;;) {
    tcp::socket socket = co_await acceptor.async_accept(asio::use_awaitable);
    asio::co_spawn(acceptor.get_executor(), serve(std::move(socket)), asio::detached);
  }
}

int main(int argc, char** argv) {
  unsigned short port = argc > 1 ? static_cast<unsigned short>(std::atoi(argv[1])) : 0;
  asio::io_context ioc(1);
  tcp::acceptor acceptor(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  std::fprintf(stderr, "listening on %u\n", acceptor.local_endpoint().port());
  asio::co_spawn(ioc, listen(acceptor), asio::detached);
  ioc.run();
}
