// omgdb daemon — per-call log lines and per-tool Prometheus metrics.
#include "daemon/observe.hpp"

#include <array>
#include <charconv>
#include <cstdio>
#include <map>
#include <mutex>
#include <string_view>

#include "daemon/logging.hpp"

namespace omgdb::daemon {
namespace {

// Histogram bucket bounds in seconds.
constexpr std::array<double, 11> bounds{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 1, 5, 30};

struct tool_stats {
  std::uint64_t calls = 0, errors = 0, cancelled = 0;
  std::array<std::uint64_t, bounds.size()> buckets{};  // not cumulative; summed when rendered
  double seconds = 0;
};

std::mutex stats_mu;
std::map<std::string, tool_stats, std::less<>>& stats() {
  static std::map<std::string, tool_stats, std::less<>> s;
  return s;
}

// Tool errors by failure kind (common/result.hpp), indexed by the enumerator.
std::array<std::uint64_t, static_cast<std::size_t>(failure_kind::permission_denied) + 1> errors_by_kind{};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

void record_call(const mcp::call_event& e) {
  double secs = e.milliseconds / 1000.0;
  std::lock_guard lock(stats_mu);
  auto it = stats().find(e.tool);
  if (it == stats().end()) it = stats().emplace(std::string(e.tool), tool_stats{}).first;
  tool_stats& t = it->second;
  ++t.calls;
  if (e.is_error) ++t.errors;
  if (e.is_error && e.result) ++errors_by_kind[static_cast<std::size_t>(e.result->kind)];
  if (e.cancelled) ++t.cancelled;
  t.seconds += secs;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (secs <= bounds[i]) {
      ++t.buckets[i];
      break;
    }
  }
}

namespace {

// The text-format line "tool call <tool> <outcome> request_id=… session=… tool=… duration_ms=…
// outcome=…" built in a reused per-thread buffer: no allocation once warm, one write(2).
void text_line(const mcp::call_event& e, std::string_view outcome, std::string_view ms) {
  thread_local std::string line;
  line.clear();
  line.append("tool call ").append(e.tool).append(" ").append(outcome);
  if (!e.note.empty()) line.append(" (").append(e.note).append(")");
  line.append(" request_id=").append(e.request_id);
  line.append(" session=").append(e.session);
  line.append(" tool=").append(e.tool);
  line.append(" duration_ms=").append(ms);
  line.append(" outcome=").append(outcome);
  log::write(log::level::info, line);
  if (line.capacity() > 4096) line = std::string();  // an unusually long id: don't keep it
}

}  // namespace

void install_observer(mcp::server_options& opts) {
  opts.on_call = [](const mcp::call_event& e) {
    record_call(e);
    if (!log::enabled(log::level::info)) return;
    std::string_view outcome = e.cancelled ? "cancelled" : e.is_error ? "error" : "ok";
    char ms[64];  // as printf's "%.3f" writes it
    auto [end, ec] = std::to_chars(ms, ms + sizeof ms, e.milliseconds, std::chars_format::fixed, 3);
    std::string_view ms_text(ms, ec == std::errc() ? static_cast<std::size_t>(end - ms) : 0);
    try {
      if (current_log_output() == log_output::text) return text_line(e, outcome, ms_text);
      std::vector<log_field> fields{{"REQUEST_ID", std::string(e.request_id)},
                                    {"SESSION", std::string(e.session)},
                                    {"TOOL", std::string(e.tool)},
                                    {"DURATION_MS", std::string(ms_text)},
                                    {"OUTCOME", std::string(outcome)}};
      if (!e.note.empty()) fields.push_back({"NOTE", std::string(e.note)});
      log_event(log::level::info, "tool call " + std::string(e.tool) + " " + std::string(outcome), fields);
    } catch (...) {
    }
  };
}

std::string tool_metrics_text() {
  std::string out =
      "# HELP omgdb_tool_calls_total Tool calls answered, by tool.\n# TYPE omgdb_tool_calls_total counter\n";
  std::string errors =
      "# HELP omgdb_tool_errors_total Tool calls answered with isError, by tool.\n# TYPE omgdb_tool_errors_total counter\n";
  std::string hist =
      "# HELP omgdb_tool_call_duration_seconds Time a tool handler ran.\n"
      "# TYPE omgdb_tool_call_duration_seconds histogram\n";
  std::lock_guard lock(stats_mu);
  for (const auto& [name, t] : stats()) {
    std::string label = "tool=\"" + name + "\"";  // tool names are [A-Za-z0-9_.-]
    out += "omgdb_tool_calls_total{" + label + "} " + std::to_string(t.calls) + "\n";
    errors += "omgdb_tool_errors_total{" + label + "} " + std::to_string(t.errors) + "\n";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < bounds.size(); ++i) {
      cumulative += t.buckets[i];
      hist += "omgdb_tool_call_duration_seconds_bucket{" + label + ",le=\"" + number(bounds[i]) + "\"} " +
              std::to_string(cumulative) + "\n";
    }
    hist += "omgdb_tool_call_duration_seconds_bucket{" + label + ",le=\"+Inf\"} " + std::to_string(t.calls) + "\n";
    hist += "omgdb_tool_call_duration_seconds_sum{" + label + "} " + number(t.seconds) + "\n";
    hist += "omgdb_tool_call_duration_seconds_count{" + label + "} " + std::to_string(t.calls) + "\n";
  }
  std::string kinds =
      "# HELP omgdb_tool_errors_by_kind_total Tool calls answered with isError, by failure kind (docs/errors.md).\n"
      "# TYPE omgdb_tool_errors_by_kind_total counter\n";
  for (std::size_t k = 0; k < errors_by_kind.size(); ++k) {
    kinds += std::string("omgdb_tool_errors_by_kind_total{kind=\"") + to_string(static_cast<failure_kind>(k)) + "\"} " +
             std::to_string(errors_by_kind[k]) + "\n";
  }
  return out + errors + kinds + hist;
}

namespace {

// A Prometheus label value: backslash, double quote and newline escaped.
std::string label_value(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string store_metrics_text(const std::vector<std::filesystem::path>& roots) {
  namespace fs = std::filesystem;
  if (roots.empty()) return {};
  std::string out = "# HELP omgdb_store_bytes Bytes on disk of each store under a store root.\n"
                    "# TYPE omgdb_store_bytes gauge\n";
  std::size_t budget = 20000;
  for (const auto& root : roots) {
    std::error_code ec;
    std::size_t stores = 0;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end && stores < 64 && budget > 0; it.increment(ec)) {
      if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
      ++stores;
      std::uintmax_t bytes = 0;
      for (fs::recursive_directory_iterator f(it->path(), ec), fend; !ec && f != fend && budget > 0; f.increment(ec)) {
        --budget;
        std::error_code size_ec;
        if (f->is_regular_file(size_ec)) bytes += f->file_size(size_ec);
      }
      ec.clear();
      out += "omgdb_store_bytes{root=\"" + label_value(root.string()) + "\",store=\"" +
             label_value(it->path().filename().string()) + "\"} " + std::to_string(bytes) + "\n";
    }
  }
  return out;
}

}  // namespace omgdb::daemon
