// omgdb daemon — text, JSON-lines or journal output for the process log.
#include "daemon/logging.hpp"

#include <systemd/sd-journal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cctype>
#include <ctime>

#include "common/json.hpp"
#include "daemon/service.hpp"

namespace omgdb::daemon {
namespace {

std::atomic<log_output> output{log_output::text};

std::string_view level_name(log::level l) {
  switch (l) {
    case log::level::debug: return "debug";
    case log::level::info: return "info";
    case log::level::warning: return "warning";
    case log::level::error: return "error";
    default: return "info";
  }
}

int priority(log::level l) {  // syslog priorities
  switch (l) {
    case log::level::debug: return 7;
    case log::level::info: return 6;
    case log::level::warning: return 4;
    default: return 3;
  }
}

std::string timestamp() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t secs = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return stamp;
}

void write_all(const std::string& line) {
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(2, p, left);
    if (n <= 0) break;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::string json_line(log::level l, std::string_view message, const std::vector<log_field>& fields) {
  std::string line = "{\"ts\":\"" + timestamp() + "\",\"level\":\"" + std::string(level_name(l)) +
                     "\",\"pid\":" + std::to_string(::getpid()) + ",\"msg\":";
  json::append_quoted(line, message);
  for (const auto& [key, value] : fields) {
    std::string name(key);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    line += ",";
    json::append_quoted(line, name);
    line += ":";
    json::append_quoted(line, value);
  }
  return line + "}\n";
}

void journal(log::level l, std::string_view message, const std::vector<log_field>& fields) {
  std::vector<std::string> items;
  items.reserve(fields.size() + 3);
  items.push_back("MESSAGE=" + std::string(message));
  items.push_back("PRIORITY=" + std::to_string(priority(l)));
  items.push_back("SYSLOG_IDENTIFIER=omgdb");
  for (const auto& [key, value] : fields) items.push_back("OMGDB_" + std::string(key) + "=" + value);
  std::vector<iovec> iov(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) iov[i] = {items[i].data(), items[i].size()};
  if (sd_journal_sendv(iov.data(), static_cast<int>(iov.size())) < 0) write_all(std::string(message) + "\n");
}

void json_sink(log::level l, std::string_view message) noexcept {
  try {
    log::write_line(l, json_line(l, message, {}));
  } catch (...) {
  }
}

void journal_sink(log::level l, std::string_view message) noexcept {
  try {
    journal(l, message, {});
  } catch (...) {
  }
}

}  // namespace

void apply_logging(const config::settings& s) {
  log::set_threshold(s.logging.level);
  if (service::stderr_is_journal()) {
    output = log_output::journal;
    log::set_sink(journal_sink);
  } else if (s.logging.format == config::log_format::json) {
    output = log_output::json;
    log::set_sink(json_sink);
  } else {
    output = log_output::text;
    log::set_sink(nullptr);
  }
}

log_output current_log_output() noexcept { return output.load(); }

void log_event(log::level l, std::string_view message, const std::vector<log_field>& fields) {
  if (!log::enabled(l) || l == log::level::off) return;
  try {
    switch (output.load()) {
      case log_output::journal: return journal(l, message, fields);
      case log_output::json: return log::write_line(l, json_line(l, message, fields));
      case log_output::text: {
        std::string line(message);
        for (const auto& [key, value] : fields) {
          std::string name(key);
          for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          line += " " + name + "=" + value;
        }
        return log::write(l, line);
      }
    }
  } catch (...) {
  }
}

}  // namespace omgdb::daemon
