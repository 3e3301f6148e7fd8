// omgdb transports — serving one `/console` request on an HTTP connection, for either stream
// type (included by transports/http_connection_serve.hpp, after write_reply/write_piece).
// The rules are console::site's (transports/console_site.hpp); this only moves bytes: a
// plain reply, or the console's event stream (SSE, polled every 500 ms on the event loop,
// a comment line every 5 s when idle, ended when the console session ends or the server
// stops). A stream closes its connection when it ends.
#pragma once

#include <chrono>
#include <string>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http.hpp>

#include "transports/console_site.hpp"

namespace omgdb::transports::http::detail {

inline console::session_view console_sessions(server_context& ctx) {
  return console::session_view{[&ctx] { return ctx.sessions.describe(); },
                               [&ctx](std::string_view handle) { return ctx.sessions.end_session(handle); }};
}

template <class C>
asio::awaitable<bool> serve_console(C& c, server_context& ctx, const parser_type& parser, const request_view& view) {
  console::site& site = *ctx.options.console;
  console::request r;
  r.method = view.method;
  r.target = view.target;
  r.host = view.host;
  r.origin = view.origin;
  r.authorization = view.authorization;
  r.has_body = view.has_body();
  const auto& req = parser.get();
  if (auto it = req.find(bhttp::field::cookie); it != req.end()) r.cookie = std::string(it->value());
  if (auto it = req.find("X-Omgdb-Csrf"); it != req.end()) r.csrf = std::string(it->value());
  auto sessions = console_sessions(ctx);
  console::answer a = site.handle(r, ctx.gate.origins, sessions);
  if (r.has_body) a.reply.close = true;  // its body is never read
  if (log::enabled(log::level::debug)) {
    log::debug(view.method + " " + std::string(path_of(view.target)) + " -> " +
               (a.stream ? std::string("console stream") : std::to_string(a.reply.status)));
  }
  if (!a.stream) co_return co_await write_reply(c, ctx, std::move(a.reply), view.version, view.keep_alive);

  struct release {
    console::site& s;
    ~release() { s.stream_closed(); }
  } released{site};
  bool chunked = view.version >= 11;
  bhttp::response<bhttp::empty_body> res{bhttp::status::ok, view.version};
  res.set(bhttp::field::server, "omgdb");
  for (auto& [name, value] : a.reply.headers) res.set(name, value);
  if (chunked) res.chunked(true);
  res.keep_alive(false);
  bhttp::response_serializer<bhttp::empty_body> sr{res};
  c.lowest().expires_after(ctx.options.write_timeout);
  auto [hec, hn] = co_await bhttp::async_write_header(c.stream, sr, nothrow);
  if (hec) co_return false;
  console::stream_state st;
  st.session_digest = a.session_digest;
  asio::steady_timer timer(c.lowest().get_executor());
  auto last_write = std::chrono::steady_clock::now();
  while (!ctx.stopping) {
    auto frames = site.next_events(st, sessions);
    if (!frames) break;
    auto now = std::chrono::steady_clock::now();
    if (!frames->empty() || now - last_write >= std::chrono::seconds(5)) {
      if (frames->empty()) *frames = std::string(sse_keepalive_comment);
      if (!co_await write_piece(c, ctx, chunked, *frames)) co_return false;
      last_write = now;
    }
    timer.expires_after(std::chrono::milliseconds(500));
    co_await timer.async_wait(nothrow);
  }
  if (chunked) {
    c.lowest().expires_after(ctx.options.write_timeout);
    co_await asio::async_write(c.stream, bhttp::make_chunk_last(), nothrow);
  }
  co_return false;
}

}  // namespace omgdb::transports::http::detail
