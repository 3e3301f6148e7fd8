#include "mcp/call_history.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <set>

namespace omgdb::mcp {
namespace bj = boost::json;

namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string string_arg(const bj::object* args, std::string_view key) {
  if (!args) return {};
  auto it = args->find(key);
  if (it == args->end() || !it->value().is_string()) return {};
  const auto& s = it->value().get_string();
  return std::string(s.data(), std::min<std::size_t>(s.size(), 1024));
}

// Cuts at `n` bytes without splitting a UTF-8 sequence.
std::string cut(std::string_view text, std::size_t n) {
  if (text.size() <= n) return std::string(text);
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return std::string(text.substr(0, n)) + "…";
}

std::string iso_time(std::int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms % 1000));
  return buf;
}

}  // namespace

call_history::call_history(std::size_t capacity) : capacity_(std::max<std::size_t>(1, capacity)) {}

void call_history::record(const call_event& e) {
  call_record r;
  r.session = std::string(e.session_id);
  r.label = std::string(e.session_name.empty() ? e.session : e.session_name);
  r.tool = std::string(e.tool);
  r.store = string_arg(e.arguments, "path");
  r.connection = string_arg(e.arguments, "connection");
  r.duration_ms = e.milliseconds;
  r.outcome = e.cancelled ? "cancelled" : e.is_error ? "error" : "ok";
  r.note = std::string(e.note);
  if (e.is_error && e.result && !e.result->texts.empty()) {
    std::string_view text = e.result->texts.front();
    if (text.rfind("Error: ", 0) == 0) text.remove_prefix(7);
    r.error = cut(text, max_error_bytes);
  }
  record(std::move(r));
}

void call_history::record(call_record r) {
  if (r.time_ms == 0) r.time_ms = now_ms();
  std::lock_guard lock(mu_);
  r.seq = next_seq_++;
  records_.push_back(std::move(r));
  while (records_.size() > capacity_) records_.pop_front();
}

std::vector<call_record> call_history::recent(const history_filter& f, std::size_t limit) const {
  std::vector<call_record> out;
  std::lock_guard lock(mu_);
  for (auto it = records_.rbegin(); it != records_.rend() && out.size() < limit; ++it) {
    if (!f.store.empty() && it->store != f.store) continue;
    if (!f.connection.empty() && it->connection != f.connection) continue;
    if (!f.session.empty() && it->session != f.session) continue;
    out.push_back(*it);
  }
  return out;
}

std::optional<call_record> call_history::last_of(std::string_view session) const {
  std::lock_guard lock(mu_);
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    if (it->session == session) return *it;
  }
  return std::nullopt;
}

std::vector<std::string> call_history::stores() const {
  std::vector<std::string> out;
  std::set<std::string, std::less<>> seen;
  std::lock_guard lock(mu_);
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    if (it->store.empty() || !seen.insert(it->store).second) continue;
    out.push_back(it->store);
  }
  return out;
}

std::size_t call_history::size() const {
  std::lock_guard lock(mu_);
  return records_.size();
}

bj::object to_json(const call_record& r) {
  bj::object o{{"seq", r.seq},           {"time", iso_time(r.time_ms)}, {"session", r.session},
               {"label", r.label},       {"tool", r.tool},              {"durationMs", r.duration_ms},
               {"outcome", r.outcome}};
  if (!r.store.empty()) o["store"] = r.store;
  if (!r.connection.empty()) o["connection"] = r.connection;
  if (!r.note.empty()) o["note"] = r.note;
  if (!r.error.empty()) o["error"] = r.error;
  return o;
}

bj::array to_json(const std::vector<call_record>& rs) {
  bj::array a;
  a.reserve(rs.size());
  for (const auto& r : rs) a.push_back(to_json(r));
  return a;
}

}  // namespace omgdb::mcp
