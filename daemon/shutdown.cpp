// omgdb daemon — the hard end of a shutdown (daemon/shutdown.hpp).
#include "daemon/shutdown.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/log.hpp"

namespace omgdb::daemon {

void end_process_on_abandon(mcp::server_options& opts, std::shared_ptr<engine::store_registry> stores) {
  auto margin_ms = opts.overdue_margin.count();
  opts.on_abandon = [stores = std::move(stores), margin_ms](bool overdue) {
    if (overdue) {
      // The orderly stop is itself stuck (or slow): nothing more is waited for.
      log::warning("the shutdown is still running " + std::to_string(margin_ms) +
                   " ms after its deadline: ending the process now; calls still running are abandoned (what they "
                   "had not committed is not kept)");
      log::flush();
      ::_exit(0);
    }
    static std::atomic<bool> once{false};
    if (once.exchange(true)) {
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // the first caller ends the process
    }
    log::warning("calls still running at the shutdown deadline ignore their cancellation: they are abandoned (what "
                 "they had not committed is not kept); closing the stores they do not hold and ending the process");
    // A store a stuck call holds stays open (its handle is shared) and is simply not closed:
    // its acknowledged writes are in the fsynced WAL already.
    stores->close_all();
    log::flush();
    ::_exit(0);
  };
}

}  // namespace omgdb::daemon
