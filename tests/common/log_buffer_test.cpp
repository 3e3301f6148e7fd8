#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "common/log.hpp"

using namespace omgdb;

namespace {

// Sends fd 2 to a temporary file for the test's duration and reads it back.
struct captured_stderr {
  char path[64] = "/tmp/omgdb-log-test-XXXXXX";
  int fd = -1;
  int saved = -1;
  captured_stderr() {
    fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    saved = ::dup(2);
    ::dup2(fd, 2);
  }
  ~captured_stderr() {
    ::dup2(saved, 2);
    ::close(saved);
    ::close(fd);
    ::unlink(path);
  }
  std::string text() const {
    std::string out;
    int f = ::open(path, O_RDONLY);
    char buf[4096];
    for (ssize_t n; (n = ::read(f, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    ::close(f);
    return out;
  }
};

std::size_t find(const std::string& text, const std::string& what) {
  auto at = text.find(what);
  INFO("looking for `", what, "` in:\n", text);
  REQUIRE(at != std::string::npos);
  return at;
}

}  // namespace

TEST_CASE("while coalescing, a warning leaves at once after the info lines written before it") {
  log::set_threshold(log::level::info);
  captured_stderr err;
  {
    log::coalescing_scope coalesce;
    log::info("first info line");
    log::info("second info line");
    log::warning("a warning");
    std::string text = err.text();  // no wait: the warning and what came before are out
    CHECK(find(text, "info: first info line") < find(text, "info: second info line"));
    CHECK(find(text, "info: second info line") < find(text, "warning: a warning"));
  }
}

TEST_CASE("coalesced info lines are all written, whole and in order, when the scope ends") {
  log::set_threshold(log::level::info);
  captured_stderr err;
  {
    log::coalescing_scope coalesce;
    for (int i = 0; i < 3000; ++i) log::info("call " + std::to_string(i) + " done");  // past 64 KiB
  }
  std::string text = err.text();
  std::size_t last = 0;
  for (int i = 0; i < 3000; ++i) {
    std::size_t at = find(text, " info: call " + std::to_string(i) + " done\n");
    CHECK(at >= last);
    last = at;
  }
}

TEST_CASE("flush writes the coalesced lines, as a path ending with _Exit needs") {
  log::set_threshold(log::level::info);
  captured_stderr err;
  log::coalescing_scope coalesce;
  log::info("before _Exit");
  log::flush();
  find(err.text(), "info: before _Exit\n");
}

TEST_CASE("without coalescing a line is written before write returns") {
  log::set_threshold(log::level::info);
  captured_stderr err;
  log::info("written at once");
  find(err.text(), "info: written at once\n");
}
