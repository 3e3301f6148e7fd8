// `[limits]`: the per-call deadline and the workers one session may occupy (docs/limits.md),
// from the file and from the command line, with their defaults and bounds.
#include <doctest/doctest.h>

#include <algorithm>

#include "config/config.hpp"

using namespace omgdb;
using namespace omgdb::config;
using namespace std::chrono_literals;

TEST_CASE("the call deadline defaults to 60 s and a session's worker share to all but one") {
  auto s = load_string("", "empty.toml");
  REQUIRE(s.ok());
  CHECK(s->call_timeout == 60000ms);
  CHECK(s->session_workers == 0);
}

TEST_CASE("[limits] sets the call deadline and the session share; the command line wins") {
  auto s = load_string("[limits]\ncall_timeout_ms = 2500\nsession_workers = 3\n", "l.toml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  CHECK(s->call_timeout == 2500ms);
  CHECK(s->session_workers == 3);
  overrides o;
  o.call_timeout_ms = 0;
  o.session_workers = 1;
  REQUIRE(apply_overrides(*s, o));
  CHECK(s->call_timeout == 0ms);  // no deadline
  CHECK(s->session_workers == 1);
}

TEST_CASE("[limits] values out of range or unknown keys are errors naming the key") {
  auto big = load_string("[limits]\ncall_timeout_ms = 86400001\n", "l.toml");
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message.find("call_timeout_ms") != std::string::npos);
  auto share = load_string("[limits]\nsession_workers = 257\n", "l.toml");
  REQUIRE_FALSE(share.ok());
  CHECK(share.error().message.find("session_workers") != std::string::npos);
  auto typo = load_string("[limits]\ncall_timeout = 5\n", "l.toml");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.error().message.find("call_timeout") != std::string::npos);
}

TEST_CASE("[limits] sets the write budget and the aggregation stage limit, 1 MiB at least, and a reload reports them") {
  auto d = load_string("", "empty.toml");
  REQUIRE(d.ok());
  CHECK(d->write_budget_bytes == (std::uint64_t{1} << 30));
  CHECK(d->aggregation_stage_bytes == (std::uint64_t{100} << 20));
  auto s = load_string("[limits]\nwrite_budget_bytes = 268435456\naggregation_stage_bytes = 33554432\n", "l.toml");
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  CHECK(s->write_budget_bytes == 268435456u);
  CHECK(s->aggregation_stage_bytes == 33554432u);
  auto small = load_string("[limits]\nwrite_budget_bytes = 1000\n", "l.toml");
  REQUIRE_FALSE(small.ok());
  CHECK(small.error().message.find("write_budget_bytes") != std::string::npos);
  auto changed = changed_sections(*d, *s);
  CHECK(std::find(changed.begin(), changed.end(), "limits") != changed.end());
}
