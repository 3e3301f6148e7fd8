// omgdb daemon — readiness, watchdog and socket activation through libsystemd.
#include "daemon/service.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include <cstdio>
#include <cstdlib>

#include "common/log.hpp"

namespace omgdb::daemon::service {

void notify_ready(const std::string& status) {
  std::string state = "READY=1\nSTATUS=" + status + "\nMAINPID=" + std::to_string(::getpid());
  sd_notify(0, state.c_str());
}

void notify_stopping() { sd_notify(0, "STOPPING=1\nSTATUS=shutting down"); }

void notify_status(const std::string& status) { sd_notify(0, ("STATUS=" + status).c_str()); }

void watchdog_hooks(std::chrono::milliseconds& interval, std::function<void()>& ping) {
  std::uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return;
  interval = std::chrono::milliseconds(std::max<std::uint64_t>(usec / 2000, 1));
  ping = [] { sd_notify(0, "WATCHDOG=1"); };
  log::info("systemd watchdog on: pinging every " + std::to_string(interval.count()) + " ms");
}

int listen_fd() {
  int n = sd_listen_fds(1);
  if (n <= 0) return -1;
  if (n > 1) log::warning("systemd passed " + std::to_string(n) + " sockets; serving the first only");
  return SD_LISTEN_FDS_START;
}

bool stderr_is_journal() {
  const char* js = std::getenv("JOURNAL_STREAM");
  if (!js || !*js) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(js, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (::fstat(2, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == dev && static_cast<unsigned long long>(st.st_ino) == ino;
}

}  // namespace omgdb::daemon::service
