// Fuzz target 8: the TOML config loader (config/loader.cpp over toml++).
//
// Input: a config file's text. load_string either gives settings or an error that names the
// file ("fuzz.toml:LINE:COLUMN: …" or "fuzz.toml: …"); a loaded config loads the same way
// twice, differs from itself in no section, and survives the environment layer. The small
// parsers the loader shares with the command line (durations, log levels and formats, names)
// take any text too.
#include "config/config.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"

using namespace omgdb;

namespace {
constexpr const char* k_name = "toml_config";
}

OMGDB_FUZZ_TARGET(toml_config) {
  const auto text = fuzz::text_of(data, size);
  auto s = config::load_string(text, "fuzz.toml");
  if (!s) {
    OMGDB_FUZZ_CHECK(k_name, s.error().message.rfind("fuzz.toml", 0) == 0, s.error().message);
  } else {
    auto again = config::load_string(text, "fuzz.toml");
    OMGDB_FUZZ_CHECK(k_name, again.ok(), std::string(text));
    OMGDB_FUZZ_CHECK(k_name, config::changed_sections(*s, *again).empty(), std::string(text));
    config::settings copy = *s;
    (void)config::apply_environment(copy, [](const char*) -> const char* { return nullptr; });
  }
  for (auto line : fuzz::lines_of(text, 8)) {
    (void)config::parse_duration(line);
    (void)config::parse_log_level(line);
    (void)config::parse_log_format(line);
    (void)config::valid_name(line);
  }
  return 0;
}
