// omgdb sql — what a person works on, kept in files so the CLI and the daemon see the same:
// the active connection, one worksheet (SQL text) per connection and the latest execution
// error per connection.
//
// Layout under the state directory (default $XDG_STATE_HOME/omgdb/sql, else
// ~/.local/state/omgdb/sql): `active` (a connection name), `worksheets/NAME.sql`,
// `errors/NAME.json`. The directories are created 0700 and every file 0600; writes go to a
// temporary file that is renamed over the old one, so a reader sees the old or the new text,
// never half of one. Every read goes to the file: a change made with `omgdb sql use` or
// `omgdb sql edit` applies from the next request. Thread-safe (no state but the path).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "common/result.hpp"

namespace omgdb::sql {

// $STATE_DIRECTORY/sql under systemd, else $XDG_STATE_HOME/omgdb/sql, else
// $HOME/.local/state/omgdb/sql; "" when none is set.
std::filesystem::path default_state_dir();

// Writes `text` to `file` atomically with mode 0600 (parent directories created 0700).
status write_private_file(const std::filesystem::path& file, std::string_view text);
// The whole file, or nullopt when it does not exist; larger than `max_bytes` is an error.
result<std::optional<std::string>> read_small_file(const std::filesystem::path& file,
                                                   std::size_t max_bytes = 1 << 20);

class worksheet_store {
 public:
  explicit worksheet_store(std::filesystem::path dir) : dir_(std::move(dir)) {}
  const std::filesystem::path& dir() const noexcept { return dir_; }

  // The active connection's name, "" when none was chosen.
  std::string active() const;
  status set_active(std::string_view name);

  // The worksheet of `name` ("" when it has none).
  std::string sheet(std::string_view name) const;
  status set_sheet(std::string_view name, std::string_view text);

  // The latest execution error recorded for `name`: {"message","code"?,"time","tool"}.
  std::optional<boost::json::object> latest_error(std::string_view name) const;
  status set_latest_error(std::string_view name, const boost::json::object& error);
  status clear_latest_error(std::string_view name);

 private:
  std::filesystem::path dir_;
};

// Largest worksheet accepted (`omgdb sql edit`, an applied proposal): 1 MiB.
inline constexpr std::size_t max_worksheet_bytes = 1 << 20;

}  // namespace omgdb::sql
