// omgdb sql — the local admin channel through which a person decides approvals.
//
// Each process that can hold approvals (`omgdb serve`, `omgdb mcp`) listens on its own Unix
// socket `<dir>/<pid>.sock`, where <dir> is $RUNTIME_DIRECTORY/admin (systemd), else
// $XDG_RUNTIME_DIR/omgdb/admin, else $STATE_DIRECTORY/admin (systemd), else
// $XDG_STATE_HOME/omgdb/admin, else ~/.local/state/omgdb/admin. The directory is 0700, the
// socket 0600, and a connecting peer whose uid (SO_PEERCRED) differs from the daemon's is
// dropped without an answer: only the owning user can decide.
//
// Protocol: one JSON object per line each way. Requests:
//   {"op":"ping"}                       → {"ok":true,"pid":N}
//   {"op":"list"}                       → {"ok":true,"pending":[approval…]}
//   {"op":"show","id":ID}               → {"ok":true,"approval":{…}}
//   {"op":"approve","id":ID}            → {"ok":true} | {"ok":false,"error":"…"}
//   {"op":"reject","id":ID}             → same
//   {"op":"watch"}                      → {"ok":true,"pending":[…]} now and after every change
// Any other field (an `sql` sent along with an approval, say) is refused: the daemon runs only
// the SQL it stored. The server is a plain POSIX thread (poll(2)); at most 16 clients at once.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "common/result.hpp"
#include "sql/approvals.hpp"

namespace omgdb::sql {

// The directory holding the admin sockets (see above); "" when no base directory is known.
std::filesystem::path admin_socket_dir();

class admin_server {
 public:
  // Creates the directory (0700) and listens on <dir>/<pid>.sock (0600).
  static result<std::unique_ptr<admin_server>> start(const std::filesystem::path& dir, approval_queue& queue);
  ~admin_server();  // stops the thread, closes clients, removes the socket
  admin_server(const admin_server&) = delete;
  admin_server& operator=(const admin_server&) = delete;

  const std::filesystem::path& socket_path() const noexcept;

  struct impl;

 private:
  explicit admin_server(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

// Ops the approvals do not know, answered by the process that serves stores (the daemon sets
// it: `backup`, `oplog_trim` of a store it holds, docs/backup.md). The handler returns
// nullopt for an op it does not know either. Thread-safe; set once at start-up.
using admin_extension = std::function<std::optional<boost::json::object>(const boost::json::object& request)>;
void set_admin_extension(admin_extension handler);

// Answers one request line (used by the server; exposed for tests).
boost::json::object admin_answer(approval_queue& queue, const boost::json::object& request);

// --- client side (the CLI) ---

// The live sockets in `dir` (sockets whose owner process refuses connections are removed).
std::vector<std::filesystem::path> admin_sockets(const std::filesystem::path& dir);

// Sends one request to one socket and reads one answer line (5 s timeout, or `timeout_ms`;
// -1: none).
result<boost::json::object> admin_request(const std::filesystem::path& socket, const boost::json::object& request,
                                          int timeout_ms = 5000);

// Opens a `watch` on one socket and calls `on_update` with each answer until it returns
// false or the connection ends.
status admin_watch(const std::filesystem::path& socket,
                   const std::function<bool(const boost::json::object&)>& on_update);

// One JSON object and a newline, sent whole on the admin socket (both ends use it).
// False when the peer went away.
bool admin_send_line(int fd, const boost::json::object& message);

}  // namespace omgdb::sql
