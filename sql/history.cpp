#include "sql/history.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>

#include <openssl/evp.h>

#include "common/json.hpp"
#include "common/log.hpp"

namespace omgdb::sql {
namespace fs = std::filesystem;
namespace bj = boost::json;

std::string statement_digest(std::string_view sql) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(sql.data(), sql.size(), md, &len, EVP_sha256(), nullptr) != 1) return "unavailable";
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < 8 && i < len; ++i) {
    out.push_back(hex[md[i] >> 4]);
    out.push_back(hex[md[i] & 15]);
  }
  return out;
}

std::string utc_now_text() {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

void history_log::append(const history_entry& e) {
  bj::object o{{"time", utc_now_text()},
               {"connection", e.connection},
               {"tool", e.tool},
               {"session", e.session},
               {"durationMs", static_cast<double>(static_cast<long long>(e.duration_ms * 1000)) / 1000.0},
               {"outcome", e.outcome}};
  if (!e.digest.empty()) o["digest"] = e.digest;
  if (!e.keyword.empty()) o["keyword"] = e.keyword;
  if (!e.detail.empty()) o["detail"] = e.detail.substr(0, 200);
  std::string line = json::serialize(o) + "\n";
  std::lock_guard lock(mu_);
  std::error_code ec;
  fs::path dir = dir_ / "history";
  fs::create_directories(dir, ec);
  ::chmod(dir.c_str(), 0700);
  fs::path file = dir / (e.connection + ".jsonl");
  if (fs::exists(file, ec) && fs::file_size(file, ec) > max_history_file_bytes) {
    fs::path old = file;
    old += ".1";
    fs::rename(file, old, ec);
  }
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    log::warning("cannot append to the SQL history " + file.string());
    return;
  }
  ssize_t n = ::write(fd, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size())) log::warning("short write to the SQL history " + file.string());
  ::close(fd);
}

namespace {

void read_file(const fs::path& file, std::vector<bj::object>& out) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    auto v = json::parse_strict(line);
    if (v && v->is_object()) out.push_back(std::move(v->get_object()));
  }
}

}  // namespace

std::vector<bj::object> history_log::read(std::string_view connection, std::size_t limit) const {
  std::vector<bj::object> all;
  fs::path dir = dir_ / "history";
  std::error_code ec;
  std::vector<fs::path> files;
  if (!connection.empty()) {
    files.push_back(dir / (std::string(connection) + ".jsonl.1"));
    files.push_back(dir / (std::string(connection) + ".jsonl"));
  } else if (fs::is_directory(dir, ec)) {
    for (const auto& e : fs::directory_iterator(dir, ec)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
  }
  for (const auto& f : files) {
    if (fs::exists(f, ec)) read_file(f, all);
  }
  auto time_of = [](const bj::object& o) -> std::string {
    auto it = o.find("time");
    return it != o.end() && it->value().is_string() ? std::string(it->value().get_string()) : std::string();
  };
  std::stable_sort(all.begin(), all.end(), [&](const bj::object& a, const bj::object& b) { return time_of(a) < time_of(b); });
  if (all.size() > limit) all.erase(all.begin(), all.end() - static_cast<std::ptrdiff_t>(limit));
  return all;
}

}  // namespace omgdb::sql
