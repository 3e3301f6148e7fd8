// omgdb daemon — the hard end of a shutdown whose calls ignore their cancellation.
//
// SIGTERM (and stdio's end of input) stop the transport in order: every call's flag is set
// with reason `shutdown` (mcp::server::begin_shutdown), the calls get the shutdown deadline to
// stop, then the session records are saved and the stores closed. A call stuck in a loop that
// does not poll its flag would hold that order forever (~worker_pool joins its thread), so the
// server hands such a stop to the hook installed here, which ends the process with _exit(0).
// Nothing is lost that was acknowledged: every commit is one WriteBatch written with
// sync = true (docs/durability.md), so a write the client was told about is in the fsynced
// WAL, and a call that had not committed wrote nothing (docs/decisions.md).
#pragma once

#include <memory>

#include "engine/store/store.hpp"
#include "mcp/server.hpp"

namespace omgdb::daemon {

// Sets opts.on_abandon: at the end of the orderly stop (the transport saw calls still running
// past the deadline) it logs a warning, closes the stores no stuck call holds, flushes the log
// and calls _exit(0); when the stop itself overran the deadline by opts.overdue_margin
// (called from the server's watchdog thread) it only logs, flushes and calls _exit(0).
void end_process_on_abandon(mcp::server_options& opts, std::shared_ptr<engine::store_registry> stores);

}  // namespace omgdb::daemon
