#include "sql/worksheet.hpp"
#include "common/fd_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/json.hpp"

namespace omgdb::sql {
namespace fs = std::filesystem;

namespace {

status make_private_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create " + dir.string() + ": " + ec.message(), failure_kind::io);
  ::chmod(dir.c_str(), 0700);
  return {};
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

namespace {

// The first directory of a systemd `$STATE_DIRECTORY`/`$RUNTIME_DIRECTORY` (a ':'-list), or "".
fs::path systemd_dir(const char* var) {
  const char* v = std::getenv(var);
  if (!v || *v != '/') return {};
  std::string s(v);
  return fs::path(s.substr(0, s.find(':')));
}

}  // namespace

fs::path default_state_dir() {
  if (auto sd = systemd_dir("STATE_DIRECTORY"); !sd.empty()) return sd / "sql";
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg == '/') return fs::path(xdg) / "omgdb" / "sql";
  if (const char* home = std::getenv("HOME"); home && *home == '/') {
    return fs::path(home) / ".local" / "state" / "omgdb" / "sql";
  }
  return {};
}

status write_private_file(const fs::path& file, std::string_view text) {
  if (auto s = make_private_dirs(file.parent_path()); !s) return s;
  static std::atomic<unsigned> counter{0};
  fs::path tmp = file;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++counter);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return make_error("cannot write " + tmp.string() + ": " + std::strerror(errno), failure_kind::io);
  if (!fd_io::write_all(fd, text)) {
    std::string why = std::strerror(errno);
    ::close(fd);
    ::unlink(tmp.c_str());
    return make_error("cannot write " + tmp.string() + ": " + why, failure_kind::io);
  }
  ::fchmod(fd, 0600);
  ::close(fd);
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return make_error("cannot replace " + file.string() + ": " + why, failure_kind::io);
  }
  return {};
}

result<std::optional<std::string>> read_small_file(const fs::path& file, std::size_t max_bytes) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::optional<std::string>();
  auto size = fs::file_size(file, ec);
  if (ec) return make_error("cannot read " + file.string() + ": " + ec.message(), failure_kind::io);
  if (size > max_bytes) return make_error(file.string() + " is larger than " + std::to_string(max_bytes) + " bytes", failure_kind::limit_exceeded);
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("cannot read " + file.string(), failure_kind::io);
  std::stringstream buf;
  buf << in.rdbuf();
  return std::optional<std::string>(buf.str());
}

std::string worksheet_store::active() const {
  auto text = read_small_file(dir_ / "active", 4096);
  if (!text || !*text) return {};
  return trim(**text);
}

status worksheet_store::set_active(std::string_view name) {
  return write_private_file(dir_ / "active", std::string(name) + "\n");
}

std::string worksheet_store::sheet(std::string_view name) const {
  auto text = read_small_file(dir_ / "worksheets" / (std::string(name) + ".sql"), max_worksheet_bytes);
  if (!text || !*text) return {};
  return **text;
}

status worksheet_store::set_sheet(std::string_view name, std::string_view text) {
  if (text.size() > max_worksheet_bytes) {
    return make_error("a worksheet holds at most " + std::to_string(max_worksheet_bytes) + " bytes", failure_kind::limit_exceeded);
  }
  return write_private_file(dir_ / "worksheets" / (std::string(name) + ".sql"), text);
}

std::optional<boost::json::object> worksheet_store::latest_error(std::string_view name) const {
  auto text = read_small_file(dir_ / "errors" / (std::string(name) + ".json"), 64 * 1024);
  if (!text || !*text) return std::nullopt;
  auto v = json::parse_strict(**text);
  if (!v || !v->is_object()) return std::nullopt;
  return v->get_object();
}

status worksheet_store::set_latest_error(std::string_view name, const boost::json::object& error) {
  return write_private_file(dir_ / "errors" / (std::string(name) + ".json"), json::serialize(error));
}

status worksheet_store::clear_latest_error(std::string_view name) {
  std::error_code ec;
  fs::remove(dir_ / "errors" / (std::string(name) + ".json"), ec);
  if (ec) return make_error("cannot clear the latest error of `" + std::string(name) + "`: " + ec.message(), failure_kind::io);
  return {};
}

}  // namespace omgdb::sql
