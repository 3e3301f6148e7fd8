// Direct store commands that are not tools: `omgdb import` (import_jsonl with a resume point)
// and `omgdb recover` (a store whose write-ahead log is damaged before its end).
#include <iostream>
#include <string>

#include "common/json.hpp"
#include "common/log.hpp"
#include "daemon/commands.hpp"
#include "engine/store/store.hpp"
#include "engine/store/store_recover.hpp"

namespace omgdb::daemon {

int run_import(const std::string& path, const std::string& collection, const std::string& file,
               std::uint64_t batch_size, std::uint64_t from_line) {
  auto st = engine::store::open(path);
  if (!st) {
    std::cerr << "omgdb: " << st.error().message << "\n";
    return 1;
  }
  auto r = (*st)->import_jsonl(collection, file, batch_size, {}, from_line);
  if (!r) {
    std::cerr << "omgdb: " << r.error().message << "\n";
    return 1;
  }
  std::cout << json::serialize(boost::json::object{{"imported", r->imported}, {"batches", r->batches}}) << "\n";
  std::cout.flush();
  return std::cout ? 0 : 1;
}

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
  std::string what = "recovered store " + path + ": dropped " + engine::describe_loss(d) +
                     " that followed the damage in its write-ahead log; kept everything up to op-log batch " +
                     std::to_string(d.kept_batch) + ". The damaged log files were copied to " + r->backup_dir;
  log::warning(what);
  std::cout << what << "\n";
  return 0;
}

}  // namespace omgdb::daemon
