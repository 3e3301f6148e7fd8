#include <doctest/doctest.h>

#include <unistd.h>

#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "transports/line_reader.hpp"

using namespace omgdb;

TEST_CASE("an over-long line reaches its handler with the bytes before the cut") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::string big = R"({"jsonrpc":"2.0","id":77,"method":"ping","params":{"x":")" + std::string(300000, 'x') + "\"}}\n";
  std::string text = big + R"({"jsonrpc":"2.0","id":78,"method":"ping"})" "\n";
  std::thread writer([&] {
    std::size_t off = 0;
    while (off < text.size()) {
      auto n = ::write(fds[1], text.data() + off, text.size() - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
  });
  std::vector<std::string> lines;
  std::string prefix;
  transports::read_lines(
      fds[0], 100000, [&](std::string& l) { lines.push_back(l); },
      [&](std::string_view p) { prefix = std::string(p.substr(0, 40)); });
  writer.join();
  ::close(fds[0]);
  CHECK(prefix.rfind(R"({"jsonrpc":"2.0","id":77,)", 0) == 0);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find(R"("id":78)") != std::string::npos);
}

TEST_CASE("a line that crosses the limit and ends in the same read is refused, not passed on") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  // One write: the line is over the limit by less than a read's worth of bytes.
  std::string text = R"({"id":5,"x":")" + std::string(1000, 'x') + "\"}\nshort\n";
  REQUIRE(::write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  std::vector<std::string> lines;
  int too_long = 0;
  transports::read_lines(
      fds[0], 500, [&](std::string& l) { lines.push_back(l); }, [&](std::string_view) { ++too_long; });
  ::close(fds[0]);
  CHECK(too_long == 1);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "short");
}
