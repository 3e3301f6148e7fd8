// `omgdb mcp --http`: the stdio session and the HTTP listener on one event loop, one server.
//
// Order of the end: stdin ends → the stdio link reports once its calls have answered → the
// HTTP listener shuts down (every call's flag set with reason `shutdown`, stop accepting,
// calls get the shutdown deadline to answer, streams closed) → the loop stops → session
// records saved → return 0. SIGTERM/SIGINT: no further stdin line is read and the HTTP
// listener shuts down the same way (which stops the stdio calls too); the stdin reader may be
// blocked in read(), so the process ends with _Exit(0) as run_stdio. A call that ignores its
// flag past the deadline (or a stdio call stuck past its own deadline at the end of input)
// ends the process through server_options::on_abandon.
#include <csignal>
#include <cstdlib>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "common/log.hpp"
#include "transports/http_listener.hpp"
#include "transports/http_server.hpp"
#include "transports/stdio.hpp"
#include "transports/stdio_link.hpp"

namespace omgdb::transports {
namespace asio = boost::asio;

int run_stdio_and_http(mcp::server& srv, auth::scope ceiling, const stdio_options& stdio,
                       const http_options& http) {
  std::signal(SIGPIPE, SIG_IGN);
  asio::io_context ioc(1);
  auto guard = asio::make_work_guard(ioc);
  // The listener binds (and loads TLS) before stdin is read: a refused address leaves the
  // client's first line unanswered rather than half-serving.
  auto listener = detail::http_listener::open(ioc, srv, ceiling, http);
  if (!listener) {
    log::error(listener.error().message);
    return 1;
  }
  auto& web = **listener;
  auto stop_loop = [&] {
    guard.reset();
    ioc.stop();
  };
  bool interrupted = false;
  asio::signal_set signals(ioc, SIGTERM, SIGINT);
  detail::stdio_link link(ioc, srv, ceiling, stdio, [&] {
    log::info("end of input on stdin; stopping the HTTP listener");
    signals.cancel();
    web.shut_down(stop_loop);
  });
  signals.async_wait([&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    log::info(std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") + ", shutting down");
    interrupted = true;
    link.stop_reading();
    web.shut_down(stop_loop);  // begin_shutdown: the stdio session's calls stop too
  });
  web.start();
  {
    log::coalescing_scope coalesce;  // the per-call lines of a busy server leave together
    ioc.run();
  }
  web.finish();
  if (http.on_stopped) http.on_stopped();
  if (interrupted || link.abandoned()) {
    if (!link.wait_idle_until(srv.stop_deadline())) {
      log::warning("shutdown deadline reached: " + std::to_string(srv.pool().running()) +
                   " call(s) still running ignore their cancellation");
    }
    srv.abandon_stuck_calls();  // the daemon's hook ends the process when calls are stuck
    if (stdio.on_signal_exit) stdio.on_signal_exit();
    log::flush();
    std::_Exit(0);
  }
  srv.abandon_stuck_calls();  // an HTTP call stuck past the deadline
  link.join();
  return 0;
}

}  // namespace omgdb::transports
