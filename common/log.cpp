#include "common/log.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace omgdb::log {
namespace {

level initial_threshold() {
  const char* env = std::getenv("OMGDB_LOG_LEVEL");
  if (!env) return level::info;
  std::string_view s(env);
  if (s == "debug") return level::debug;
  if (s == "warning" || s == "warn") return level::warning;
  if (s == "error") return level::error;
  if (s == "off" || s == "none") return level::off;
  return level::info;
}

std::atomic<int>& threshold_ref() {
  static std::atomic<int> t{static_cast<int>(initial_threshold())};
  return t;
}

std::string_view name(level l) {
  switch (l) {
    case level::debug: return "debug";
    case level::info: return "info";
    case level::warning: return "warning";
    case level::error: return "error";
    case level::off: return "off";
  }
  return "info";
}

}  // namespace

static std::atomic<sink_fn>& sink_ref() {
  static std::atomic<sink_fn> s{nullptr};
  return s;
}

void set_sink(sink_fn sink) noexcept { sink_ref().store(sink); }

void set_threshold(level l) noexcept { threshold_ref().store(static_cast<int>(l)); }
level threshold() noexcept { return static_cast<level>(threshold_ref().load()); }
bool enabled(level l) noexcept { return static_cast<int>(l) >= threshold_ref().load(); }

void write(level l, std::string_view message) noexcept {
  if (!enabled(l) || l == level::off) return;
  if (sink_fn sink = sink_ref().load()) return sink(l, message);
  try {
    using namespace std::chrono;
    auto now = system_clock::now();
    std::time_t secs = system_clock::to_time_t(now);
    auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    std::string line;
    line.reserve(message.size() + 64);
    line += stamp;
    line += " omgdb[";
    line += std::to_string(::getpid());
    line += "] ";
    line += name(l);
    line += ": ";
    line += message;
    line += '\n';
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      ssize_t n = ::write(2, p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  } catch (...) {
  }
}

}  // namespace omgdb::log
