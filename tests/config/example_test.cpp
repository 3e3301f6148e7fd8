#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "config/config.hpp"

using namespace omgdb::config;

TEST_CASE("the printed example is byte-identical to the committed config/omgdb.toml") {
  std::ifstream in(std::string(OMGDB_SOURCE_DIR) + "/config/omgdb.toml", std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  CHECK(text.str() == example_text());
}

TEST_CASE("the example loads and gives the defaults") {
  auto s = load_string(example_text(), "omgdb.toml");
  REQUIRE_MESSAGE(s, (s ? "" : s.error().message));
  settings defaults;
  auto diff = changed_sections(defaults, *s);
  CHECK(diff.empty());
}
