// The op-log's after-image patches (engine/store/oplog_patch.cpp): every patch made from a before
// and an after image gives the after image back, byte for byte, whatever the two are (equal,
// one byte apart, different sizes, nothing in common); patches that do not fit their before
// image are refused. Seeded and reproducible.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "engine/store/oplog_patch.hpp"

using namespace omgdb::engine::detail;

namespace {

// Bytes shaped like a BSON document: a little-endian length header equal to the size, then
// `body`.
std::string with_header(std::string body) {
  std::string out(4, '\0');
  out += body;
  const auto n = static_cast<std::uint32_t>(out.size());
  for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

}  // namespace

TEST_CASE("an after image rebuilt from its patch is the after image, for any pair of images") {
  std::mt19937_64 rng(7);
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  auto random_bytes = [&](std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(pick(4)));  // few values: long common runs
    return s;
  };
  std::size_t patched = 0;
  for (int round = 0; round < 20000; ++round) {
    const std::string body = random_bytes(1 + pick(300));
    std::string next = body;
    switch (pick(6)) {
      case 0: break;  // equal
      case 1: next[pick(next.size())] ^= 1; break;  // one byte
      case 2: next.insert(pick(next.size() + 1), random_bytes(1 + pick(20))); break;  // longer
      case 3: next.erase(pick(next.size()), 1 + pick(20)); break;  // shorter (maybe empty)
      case 4: next = random_bytes(pick(300)); break;  // unrelated
      default:
        for (int k = 0; k < 5; ++k) next[pick(next.size())] = static_cast<char>(pick(256));
        break;
    }
    const std::string before = with_header(body), after = with_header(next);
    INFO("round ", round);
    auto patch = make_after_patch(before, after, 0);
    if (!patch) continue;  // not smaller than the after image itself
    ++patched;
    CHECK(patch->size() <= after.size());
    std::string rebuilt;
    REQUIRE(apply_after_patch(before, *patch, rebuilt));
    CHECK(rebuilt == after);
  }
  CHECK(patched > 12000);  // most rounds share most bytes
}

TEST_CASE("a patch is made only when it saves the bytes asked for") {
  const std::string before = with_header(std::string(200, 'a'));
  std::string body(200, 'a');
  body[100] = 'b';
  const std::string after = with_header(body);
  auto small = make_after_patch(before, after, 16);
  REQUIRE(small.has_value());
  CHECK(small->size() == 8 + 1);  // prefix and suffix lengths, one changed byte
  CHECK_FALSE(make_after_patch(before, after, after.size()).has_value());
  CHECK_FALSE(make_after_patch(before, with_header(std::string(200, 'z')), 16).has_value());
}

TEST_CASE("a patch that does not fit its before image is refused") {
  const std::string before = with_header("abcdefgh");
  auto patch = [](std::uint32_t p, std::uint32_t s, std::string middle) {
    std::string out;
    for (auto v : {p, s}) {
      for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    }
    return out + middle;
  };
  std::string out;
  CHECK(apply_after_patch(before, patch(4, 8, "x"), out));
  CHECK(out == with_header("xabcdefgh"));
  CHECK_FALSE(apply_after_patch(before, patch(3, 0, ""), out));   // inside the length header
  CHECK_FALSE(apply_after_patch(before, patch(13, 0, ""), out));  // past the end
  CHECK_FALSE(apply_after_patch(before, patch(4, 9, ""), out));   // prefix and suffix overlap
  CHECK_FALSE(apply_after_patch(before, std::string(7, '\0'), out));
}
