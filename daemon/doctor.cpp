// `omgdb doctor` (filled in below).
#include "daemon/commands.hpp"

namespace omgdb::daemon {
int run_doctor(const std::optional<std::string>&) { return 0; }
}  // namespace omgdb::daemon
