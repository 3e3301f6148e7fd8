// Direct store commands that are not tools: `omgdb recover` (a store whose write-ahead log is
// damaged before its end).
#include <iostream>
#include <string>

#include "common/log.hpp"
#include "daemon/commands.hpp"
#include "engine/store/store_recover.hpp"

namespace omgdb::daemon {

int run_recover(const std::string& path) {
  auto r = engine::recover_store(path);
  if (!r) {
    std::cerr << "omgdb: " << r.error().message << "\n";
    return 1;
  }
  if (!r->damage) {
    std::cout << "store " << path << " opens as it is: its write-ahead log is intact, nothing was dropped\n";
    return 0;
  }
  const auto& d = *r->damage;
  std::string what = "recovered store " + path + ": dropped " + std::to_string(d.lost_batches()) +
                     " acknowledged write(s) that followed the damage in its write-ahead log (op-log batches " +
                     std::to_string(d.kept_batch + 1) + "–" + std::to_string(d.readable_batch) + ", " +
                     std::to_string(d.lost_records()) + " op-log record(s), " + std::to_string(d.lost_keys()) +
                     " written key(s)); kept everything up to op-log batch " + std::to_string(d.kept_batch) +
                     ". The damaged log files were copied to " + r->backup_dir;
  log::warning(what);
  std::cout << what << "\n";
  return 0;
}

}  // namespace omgdb::daemon
