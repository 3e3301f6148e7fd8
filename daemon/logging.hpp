// omgdb daemon — where log lines go: text lines or JSON lines on stderr (`[logging] format`),
// or the systemd journal with structured fields when stderr is connected to it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/log.hpp"
#include "config/config.hpp"

namespace omgdb::daemon {

enum class log_output { text, json, journal };

// Sets the threshold and the output from `s.logging` (the journal wins when detected).
void apply_logging(const config::settings& s);
log_output current_log_output() noexcept;

// One event with named fields (upper-case journal names, e.g. {"TOOL", "find"}): journal
// fields, JSON members (lower-cased), or `message key=value …` in text. Values must not be
// secrets or user data.
using log_field = std::pair<std::string_view, std::string>;
void log_event(log::level l, std::string_view message, const std::vector<log_field>& fields);

}  // namespace omgdb::daemon
