// omgdb transports — the coroutine that serves one HTTP/1.1 connection, for either stream type.
//
// Internal to transports/http_connection*.cpp: the plain half (http_connection.cpp) instantiates
// it for beast::tcp_stream, the TLS half (http_connection_tls.cpp) for an ssl_stream, each in its
// own translation unit so that the two heavy instantiations compile in parallel. Each half
// defines `close_stream` for its stream type (found by argument-dependent lookup).
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <type_traits>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include "common/log.hpp"
#include "transports/http_connection.hpp"
#include "transports/http_replies.hpp"

namespace omgdb::transports::http {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;

namespace detail {

inline constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);
// How long a POST waits for its answer before the connection is watched for a hang-up.
inline constexpr auto hangup_grace = std::chrono::milliseconds(20);

using parser_type = bhttp::request_parser<bhttp::string_body>;

// Fills `v` from the parsed head in one pass over its fields and returns the name of the
// first header that must appear at most once but is repeated — Host, Origin, Authorization,
// Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name,
// Access-Control-Request-Method — or "" when none is: such a request is refused (400) rather
// than judged on one of its copies. `v` is the connection's, reused from request to request.
std::string_view fill_view(const parser_type& parser, request_view& v);

// The coroutine below serves either stream type: beast::tcp_stream or tls_stream.
template <class Stream>
struct stream_connection : connection, std::enable_shared_from_this<stream_connection<Stream>> {
  template <class... Args>
  explicit stream_connection(Args&&... args) : stream(std::forward<Args>(args)...) {}
  Stream stream;
  beast::tcp_stream& lowest() override { return beast::get_lowest_layer(stream); }
};

using parser_type = bhttp::request_parser<bhttp::string_body>;

template <class C>
asio::awaitable<bool> write_reply(C& c, const server_context& ctx, http_reply r, unsigned version,
                                  bool keep_alive) {
  bool keep = keep_alive && !r.close && !ctx.stopping;
  if (ok_reply_head(c.head, r, version, keep)) {
    // Every tools/call answer takes this path: one gathered write of a reused head buffer
    // and the body, the same bytes Beast would write.
    std::array<asio::const_buffer, 2> pieces{asio::buffer(c.head), asio::buffer(r.body)};
    if constexpr (std::is_same_v<decltype(c.stream), beast::tcp_stream>) {
      // Plain TCP: try a non-blocking send first. A reply almost always fits the socket's
      // buffer, and then no asynchronous operation (nor its timeout timer, nor a trip
      // through the event loop) is needed; whatever does not fit is written as before.
      auto& socket = c.lowest().socket();
      boost::system::error_code ec;
      if (!socket.non_blocking()) socket.non_blocking(true, ec);
      std::size_t sent = ec ? 0 : socket.send(pieces, 0, ec);
      if (ec && ec != asio::error::would_block && ec != asio::error::try_again) co_return false;
      if (sent < c.head.size()) {
        pieces[0] = asio::buffer(c.head) + sent;
      } else {
        pieces[0] = asio::const_buffer();
        pieces[1] = asio::buffer(r.body) + (sent - c.head.size());
      }
    }
    for (const asio::const_buffer& piece : pieces) {
      // One piece at a time: over TLS a gathered write of a head and a body past one record
      // (16 KiB) stalled after the head (tests/mcp_http/test_tls.py, a 26 KiB tools/list).
      if (piece.size() == 0) continue;
      c.lowest().expires_after(ctx.options.write_timeout);
      auto [ec, n] = co_await asio::async_write(c.stream, piece, nothrow);
      if (ec) co_return false;
    }
    if (c.head.capacity() > 4096) c.head = std::string();
    co_return keep;
  }
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
  res.set(bhttp::field::server, "omgdb");
  for (auto& [name, value] : r.headers) res.set(name, value);
  res.body() = std::move(r.body);
  res.keep_alive(keep_alive && !r.close && !ctx.stopping);
  res.prepare_payload();
  c.lowest().expires_after(ctx.options.write_timeout);
  auto [ec, n] = co_await bhttp::async_write(c.stream, res, nothrow);
  co_return !ec && res.keep_alive();
}

// Writes one piece of a streamed body: a chunk (HTTP/1.1) or raw bytes (HTTP/1.0).
template <class C>
asio::awaitable<bool> write_piece(C& c, const server_context& ctx, bool chunked, const std::string& data) {
  c.lowest().expires_after(ctx.options.write_timeout);
  if (!chunked) {
    auto [ec, n] = co_await asio::async_write(c.stream, asio::buffer(data), nothrow);
    co_return !ec;
  }
  auto [ec, n] = co_await asio::async_write(c.stream, bhttp::make_chunk(asio::buffer(data)), nothrow);
  co_return !ec;
}

// Notices a peer that hangs up while its response is pending or streaming, so the outlet is
// released at once (a GET stream can be reopened, a POST's later messages go to the event
// log) instead of at the next keep-alive write. Bytes of a pipelined request are left alone.
template <class C>
void watch_for_hangup(const std::shared_ptr<C>& c, const std::shared_ptr<outlet>& o) {
  c->lowest().socket().async_wait(tcp::socket::wait_read, [c, o](const boost::system::error_code& ec) {
    if (ec) return;
    boost::system::error_code error;
    if (c->lowest().socket().available(error) == 0 || error) {
      o->gone = true;
      o->finish();
    }
  });
}

// Drains an outlet: a JSON reply, or a chunked SSE stream that ends when the outlet finishes.
template <class C>
asio::awaitable<bool> stream_out(C& c, server_context& ctx, exchange ex, unsigned version,
                                 bool keep_alive) {
  auto o = ex.out;
  // The hang-up watch costs an epoll registration, not worth it for a call that answers at
  // once: streams are watched from the start, a POST awaiting its answer after a short grace.
  bool watching = false;
  bool grace_over = false;
  auto watch = [&] {
    if (watching) return;
    watching = true;
    watch_for_hangup(c.shared_from_this(), o);
  };
  struct unwatch {
    C& c;
    const bool& watching;
    ~unwatch() {
      if (!watching) return;
      boost::system::error_code ignored;
      c.lowest().socket().cancel(ignored);
    }
  } unwatch_on_exit{c, watching};
  if (o->mode == outlet::kind::sse) watch();
  asio::steady_timer timer(c.lowest().get_executor());
  o->wake = [&timer] { timer.cancel(); };
  struct unhook {  // the outlet may outlive this frame (it stays in the session's log path)
    outlet& o;
    ~unhook() { o.wake = nullptr; }
  } unhook_on_exit{*o};
  bool chunked = version >= 11;
  bool started = false;
  bool dropped = false;
  auto start_sse = [&]() -> asio::awaitable<bool> {
    bhttp::response<bhttp::empty_body> res{bhttp::status::ok, version};
    res.set(bhttp::field::server, "omgdb");
    add_sse_headers(ex.reply);
    for (auto& [name, value] : ex.reply.headers) res.set(name, value);
    if (chunked) res.chunked(true);
    res.keep_alive(chunked && keep_alive);
    bhttp::response_serializer<bhttp::empty_body> sr{res};
    c.lowest().expires_after(ctx.options.write_timeout);
    auto [ec, n] = co_await bhttp::async_write_header(c.stream, sr, nothrow);
    started = true;
    co_return !ec;
  };
  if (o->mode == outlet::kind::sse && !co_await start_sse()) dropped = true;
  while (!dropped) {
    if (o->gone) {
      dropped = true;  // taken over by a resumption, or too slow a reader
      break;
    }
    if (o->mode == outlet::kind::json && !o->out.empty()) {
      http_reply r = std::move(ex.reply);
      r.status = 200;
      r.set("Content-Type", "application/json");
      r.body = std::move(o->out.front());
      o->out.clear();
      bool kept = co_await write_reply(c, ctx, std::move(r), version, keep_alive);
      ex.session->release(o, false);
      co_return kept;
    }
    if (o->mode == outlet::kind::sse && !o->out.empty()) {
      if (!started && !co_await start_sse()) {
        dropped = true;
        break;
      }
      std::string batch;
      for (auto& frame : o->out) batch += frame;
      o->out.clear();
      o->out_bytes = 0;
      if (!co_await write_piece(c, ctx, chunked, batch)) dropped = true;
      continue;
    }
    if (o->finished) {
      if (!started && o->mode == outlet::kind::undecided && !o->accepts_sse) {
        // Cancelled before any message: nothing to send but the end of the exchange.
        bool kept = co_await write_reply(c, ctx, empty_reply(204), version, keep_alive);
        ex.session->release(o, false);
        co_return kept;
      }
      if (!started && !co_await start_sse()) {
        dropped = true;
        break;
      }
      if (chunked) {
        c.lowest().expires_after(ctx.options.write_timeout);
        auto [ec, n] = co_await asio::async_write(c.stream, bhttp::make_chunk_last(), nothrow);
        if (ec) dropped = true;
      }
      break;
    }
    if (started || grace_over) watch();
    timer.expires_after(started    ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      ctx.options.sse_keepalive)
                        : watching ? std::chrono::steady_clock::duration(std::chrono::hours(24))
                                   : std::chrono::steady_clock::duration(hangup_grace));
    auto [ec] = co_await timer.async_wait(nothrow);
    if (!ec && !watching) grace_over = true;
    if (!ec && started && !co_await write_piece(c, ctx, chunked, std::string(sse_keepalive_comment))) {
      dropped = true;
    }
  }
  ex.session->release(o, dropped);
  co_return !dropped && chunked && keep_alive && !ctx.stopping;
}

}  // namespace detail
}  // namespace omgdb::transports::http

#include "transports/console_serve.hpp"  // the /console routes, using write_reply and write_piece

namespace omgdb::transports::http {
namespace detail {

template <class C>
asio::awaitable<bool> respond(C& c, server_context& ctx, parser_type& parser, const request_view& view) {
  unsigned version = parser.get().version();
  exchange ex;
  if (view.method == "POST") {
    ex = ctx.sessions.handle_post(view, parser.get().body());
  } else if (view.method == "GET") {
    ex = ctx.sessions.handle_get(view);
  } else {
    ex.reply = ctx.sessions.handle_delete(view);
  }
  add_cors(ex.reply, view);
  if (log::enabled(log::level::debug)) {
    log::debug(view.method + " " + std::string(path_of(view.target)) +
               (ex.out ? " -> stream" : " -> " + std::to_string(ex.reply.status)));
  }
  if (!ex.out) co_return co_await write_reply(c, ctx, std::move(ex.reply), version, view.keep_alive);
  if (ex.out->mode == outlet::kind::json && !ex.out->out.empty()) {
    // Answered already (a quick tool run on this loop): no stream to wait on, as stream_out would.
    http_reply r = std::move(ex.reply);
    r.status = 200;
    r.set("Content-Type", "application/json");
    r.body = std::move(ex.out->out.front());
    ex.out->out.clear();
    bool kept = co_await write_reply(c, ctx, std::move(r), version, view.keep_alive);
    ex.session->release(ex.out, false);
    co_return kept;
  }
  co_return co_await stream_out(c, ctx, std::move(ex), version, view.keep_alive);
}

// Parses what is already buffered, up to the end of the head (or with `whole`, of the
// message): a request usually arrives whole, and this spares an asynchronous read that would
// complete by a trip through the event loop. need_more is not an error.
beast::error_code parse_buffered(parser_type& parser, beast::flat_buffer& buffer, bool whole);

// Beast's verdict on bytes that are not HTTP (a bad chunk size, a bare LF, a message cut
// short, …), as opposed to a peer that closed between messages or a limit (answered apart).
bool malformed(const beast::error_code& ec);
http_reply malformed_reply();  // 400 "Bad Request: malformed HTTP", closing
// True when the bytes Beast left unparsed in a chunked body can never become a chunk line:
// a bare LF (Beast waits for CRLF), or a line longer than 4 KiB.
bool stalled_framing(const parser_type& parser, const beast::flat_buffer& buffer);

// Reads the next request head. The wait for its first byte is keep_alive_idle on a connection
// that has authenticated and head_timeout on any other; the rest of the head must follow
// within head_timeout of that byte (a slowloris head loses its slot). While it waits the
// connection is `idle`: the listener may close it to make room (server_context::evict_one).
template <class C>
asio::awaitable<beast::error_code> read_head(C& c, const http_options& opt, beast::flat_buffer& buffer,
                                             parser_type& parser) {
  c.idle = true;
  c.since = connection::clock::now();
  if (buffer.size() == 0) {
    c.lowest().expires_after(c.authenticated ? opt.keep_alive_idle : opt.head_timeout);
    auto [ec, n] = co_await c.stream.async_read_some(buffer.prepare(16u << 10), nothrow);
    if (ec) co_return ec;
    buffer.commit(n);
  }
  c.idle = false;
  c.since = connection::clock::now();
  if (auto ec = parse_buffered(parser, buffer, false); ec || parser.is_header_done()) co_return ec;
  c.lowest().expires_after(opt.head_timeout);
  auto [ec, n] = co_await bhttp::async_read_header(c.stream, buffer, parser, nothrow);
  co_return ec;
}

// Reads the body within body_timeout, parsing what is buffered first (it usually came with
// the head). Chunk framing Beast would wait on forever is refused (stalled_framing).
template <class C>
asio::awaitable<beast::error_code> read_body(C& c, const http_options& opt, beast::flat_buffer& buffer,
                                             parser_type& parser) {
  c.lowest().expires_after(opt.body_timeout);
  for (;;) {
    beast::error_code ec = parse_buffered(parser, buffer, true);
    if (ec || parser.is_done()) co_return ec;
    if (stalled_framing(parser, buffer)) co_return bhttp::error::bad_chunk;
    auto [rec, n] = co_await c.stream.async_read_some(buffer.prepare(16u << 10), nothrow);
    if (rec) co_return rec == asio::error::eof ? beast::error_code(bhttp::error::partial_message) : rec;
    buffer.commit(n);
  }
}

template <class C>
asio::awaitable<void> serve(std::shared_ptr<server_context> ctx, std::shared_ptr<C> c) {
  const http_options& opt = ctx->options;
  beast::flat_buffer buffer;
  credential_memo memo;  // the bearer token last accepted on this connection
  request_view view;     // refilled for every request (fill_view)
  while (!ctx->stopping) {
    parser_type parser;
    parser.header_limit(static_cast<std::uint32_t>(opt.max_header_bytes));
    parser.body_limit(boost::none);  // judged by the gate first (after Host, Origin and token)
    if (auto ec = co_await read_head(*c, opt, buffer, parser)) {
      if (ec == bhttp::error::header_limit) {
        co_await write_reply(*c, *ctx, json_error(431, -32000, "Request Header Fields Too Large"), 11, false);
      } else if (malformed(ec)) {
        co_await write_reply(*c, *ctx, malformed_reply(), 11, false);
      }
      break;
    }
    const std::string_view repeated_name = fill_view(parser, view);
    const bool repeated = !repeated_name.empty();
    unsigned version = view.version;
    std::optional<http_reply> early = framing_refusal(view);
    if (early) {
      // Framing first: the body of such a request is never read, so nothing after it is either.
    } else if (ctx->options.console && !repeated && console::is_console_path(view.target)) {
      if (!co_await serve_console(*c, *ctx, parser, view)) break;  // transports/console_serve.hpp
      continue;
    } else if (!ctx->options.serve_mcp && ops_endpoint_of(view) == ops_endpoint::none) {
      early = json_error(404, -32000, "Not Found: this listener serves only /console");
    } else if (auto which = ops_endpoint_of(view); which != ops_endpoint::none && !repeated) {
      early = screen_ops(view, ctx->gate, which);
      if (!early) early = ops_reply(*ctx, which, view.method == "HEAD");
      if (view.has_body()) early->close = true;
    } else if (repeated) {
      early = json_error(400, -32000,
                         "Bad Request: the " + std::string(repeated_name) + " header is repeated; send it once");
      early->close = true;
    } else {
      early = screen(view, ctx->gate, &memo);
      if (!early) {
        note_credential(view, ctx->gate, &memo);
        c->authenticated = true;
      }
    }
    if (early) {
      if (log::enabled(log::level::debug)) {
        log::debug(view.method + " " + std::string(path_of(view.target)) + " -> " + std::to_string(early->status));
      }
      if (!co_await write_reply(*c, *ctx, std::move(*early), version, view.keep_alive)) break;
      continue;
    }
    if (!parser.is_done()) {
      parser.body_limit(opt.max_body_bytes);
      parser.eager(true);
      beast::error_code ec2 = co_await read_body(*c, opt, buffer, parser);
      if (ec2 == bhttp::error::body_limit) {
        http_reply r = json_error(413, -32000, "Payload Too Large: the body exceeds " +
                                                   std::to_string(opt.max_body_bytes) + " bytes");
        r.close = true;
        add_cors(r, view);
        co_await write_reply(*c, *ctx, std::move(r), version, false);
        break;
      }
      if (malformed(ec2)) {
        http_reply r = malformed_reply();
        add_cors(r, view);
        co_await write_reply(*c, *ctx, std::move(r), version, false);
      }
      if (ec2) break;
    }
    if (!co_await respond(*c, *ctx, parser, view)) break;
  }
  co_await close_stream(*c);
}
}  // namespace detail
}  // namespace omgdb::transports::http
