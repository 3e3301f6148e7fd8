// omgdb daemon — life under systemd: readiness and status (sd_notify), the watchdog, socket
// activation (LISTEN_FDS) and whether logs should go to the journal. Every function is a no-op
// when the matching variable (NOTIFY_SOCKET, WATCHDOG_USEC, LISTEN_FDS, JOURNAL_STREAM) is
// not set, so the same binary runs unchanged outside systemd.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace omgdb::daemon::service {

// READY=1 with STATUS=<status>; STOPPING=1; STATUS=<status>.
void notify_ready(const std::string& status);
void notify_stopping();
void notify_status(const std::string& status);

// When systemd's watchdog is on for this process (WatchdogSec=), sets `interval` to half the
// timeout and `ping` to a WATCHDOG=1 sender; otherwise leaves both untouched.
void watchdog_hooks(std::chrono::milliseconds& interval, std::function<void()>& ping);

// The first socket passed by socket activation (LISTEN_PID is this process, LISTEN_FDS >= 1),
// or -1. The variables are unset afterwards so that child processes never inherit them.
int listen_fd();

// True when stderr is connected to the journal (JOURNAL_STREAM names stderr's device:inode).
bool stderr_is_journal();

}  // namespace omgdb::daemon::service
