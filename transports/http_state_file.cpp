#include "transports/http_state_file.hpp"
#include "common/fd_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <boost/json/object.hpp>

#include "common/json.hpp"

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

result<std::vector<session_record>> load_records(const std::string& dir) {
  std::vector<session_record> out;
  std::string path = dir + "/" + file_name;
  std::ifstream in(path);
  if (!in) return out;
  std::stringstream buf;
  buf << in.rdbuf();
  auto parsed = json::parse_strict(buf.str());
  if (!parsed || !parsed->is_object()) return make_error(path + " is damaged; starting without saved sessions");
  auto it = parsed->get_object().find("sessions");
  if (it == parsed->get_object().end() || !it->value().is_array()) return out;
  for (const auto& v : it->value().get_array()) {
    if (!v.is_object()) continue;
    const auto& o = v.get_object();
    session_record r;
    r.id = text_of(o, "id");
    if (r.id.size() != 32) continue;
    r.created_ms = int_of(o, "created_ms");
    r.last_used_ms = int_of(o, "last_used_ms");
    r.version = text_of(o, "version");
    r.log_level = text_of(o, "log_level");
    auto init = o.find("initialized");
    r.initialized = init != o.end() && init->value().is_bool() && init->value().get_bool();
    r.next_event = static_cast<std::uint64_t>(int_of(o, "next_event"));
    r.token_name = text_of(o, "token");
    r.scope = text_of(o, "scope");
    out.push_back(std::move(r));
  }
  return out;
}

status save_records(const std::string& dir, const std::vector<session_record>& records) {
  if (auto s = make_dirs(dir); !s) return s;
  bj::array list;
  for (const auto& r : records) {
    list.push_back(bj::object{{"id", r.id},
                              {"created_ms", r.created_ms},
                              {"last_used_ms", r.last_used_ms},
                              {"version", r.version},
                              {"initialized", r.initialized},
                              {"log_level", r.log_level},
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

}  // namespace omgdb::transports::http
