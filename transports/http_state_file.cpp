#include "transports/http_state_file.hpp"
#include "common/fd_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <boost/json/object.hpp>

#include "auth/scope.hpp"
#include "common/json.hpp"
#include "common/log.hpp"

namespace omgdb::transports::http {
namespace bj = boost::json;

namespace {

constexpr const char* file_name = "http-sessions.json";

std::string errno_text() { return std::strerror(errno); }

status make_dirs(const std::string& dir) {
  std::string partial;
  std::size_t i = 0;
  while (i <= dir.size()) {
    std::size_t slash = dir.find('/', i);
    if (slash == std::string::npos) slash = dir.size();
    partial = dir.substr(0, slash);
    i = slash + 1;
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
      return make_error("cannot create the state directory " + partial + ": " + errno_text());
    }
  }
  return {};
}

std::string text_of(const bj::object& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_string() ? std::string(it->value().get_string()) : std::string();
}

std::int64_t int_of(const bj::object& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end()) return 0;
  if (it->value().is_int64()) return it->value().get_int64();
  if (it->value().is_uint64()) return static_cast<std::int64_t>(it->value().get_uint64());
  return 0;
}

}  // namespace

std::string default_state_dir() {
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/omgdb";
  if (const char* home = std::getenv("HOME"); home && *home == '/') return std::string(home) + "/.local/state/omgdb";
  return {};
}

result<std::vector<session_record>> load_records(const std::string& dir, const record_limits& limits) {
  std::vector<session_record> out;
  std::string path = dir + "/" + file_name;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::string text(limits.max_file_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > limits.max_file_bytes) {
    return make_error(path + " is larger than " + std::to_string(limits.max_file_bytes) +
                      " bytes; starting without saved sessions");
  }
  auto parsed = json::parse_strict(text);
  if (!parsed || !parsed->is_object()) return make_error(path + " is damaged; starting without saved sessions");
  auto it = parsed->get_object().find("sessions");
  if (it == parsed->get_object().end() || !it->value().is_array()) return out;
  std::size_t dropped = 0;
  for (const auto& v : it->value().get_array()) {
    if (out.size() >= limits.max_records) {
      ++dropped;
      continue;
    }
    if (!v.is_object()) continue;
    const auto& o = v.get_object();
    session_record r;
    r.id = text_of(o, "id");
    r.created_ms = int_of(o, "created_ms");
    r.last_used_ms = int_of(o, "last_used_ms");
    r.state.version = text_of(o, "version");
    r.state.log_level = text_of(o, "log_level");
    auto init = o.find("initialized");
    r.state.initialized = init != o.end() && init->value().is_bool() && init->value().get_bool();
    r.next_event = static_cast<std::uint64_t>(int_of(o, "next_event"));
    r.token_name = text_of(o, "token");
    r.scope = text_of(o, "scope");
    bool hex_id = r.id.size() == 32 && r.id.find_first_not_of("0123456789abcdef") == std::string::npos;
    bool scope_ok = r.scope.empty() || auth::parse_scope(r.scope);
    if (!hex_id || !scope_ok || r.token_name.size() > limits.max_token_name || mcp::invalid_state(r.state)) {
      ++dropped;
      continue;
    }
    out.push_back(std::move(r));
  }
  if (dropped) log::warning(path + ": dropped " + std::to_string(dropped) + " session record(s) out of bounds");
  return out;
}

status save_records(const std::string& dir, const std::vector<session_record>& records) {
  if (auto s = make_dirs(dir); !s) return s;
  bj::array list;
  for (const auto& r : records) {
    list.push_back(bj::object{{"id", r.id},
                              {"created_ms", r.created_ms},
                              {"last_used_ms", r.last_used_ms},
                              {"version", r.state.version},
                              {"initialized", r.state.initialized},
                              {"log_level", r.state.log_level},
                              {"next_event", static_cast<std::int64_t>(r.next_event)},
                              {"token", r.token_name},
                              {"scope", r.scope}});
  }
  std::string text = json::serialize(bj::object{{"format", 1}, {"sessions", std::move(list)}});
  text.push_back('\n');
  std::string path = dir + "/" + file_name;
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return make_error("cannot write " + tmp + ": " + errno_text());
  if (!fd_io::write_all(fd, text)) {
    std::string why = errno_text();
    ::close(fd);
    return make_error("cannot write " + tmp + ": " + why);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return make_error("cannot replace " + path + ": " + errno_text());
  return {};
}

state_writer::state_writer(std::string dir) : dir_(std::move(dir)), thread_([this] { run(); }) {}

state_writer::~state_writer() {
  flush();
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void state_writer::submit(std::vector<session_record> records) {
  {
    std::lock_guard lock(mu_);
    pending_ = std::move(records);  // an older snapshot still waiting is replaced
  }
  cv_.notify_all();
}

void state_writer::flush() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return !pending_ && !writing_; });
}

std::size_t state_writer::files_written() const {
  std::lock_guard lock(mu_);
  return written_;
}

void state_writer::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || pending_; });
    if (!pending_) return;  // stopping, nothing left to write
    auto records = std::move(*pending_);
    pending_.reset();
    writing_ = true;
    lock.unlock();
    auto saved = save_records(dir_, records);
    if (!saved) log::warning(saved.error().message);
    lock.lock();
    writing_ = false;
    ++written_;
    cv_.notify_all();
  }
}

}  // namespace omgdb::transports::http
