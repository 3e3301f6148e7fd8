#include "sql/adapter_factories.hpp"
namespace omgdb::sql::detail {

std::unique_ptr<adapter> make_mysql_adapter(const config::connection&) { return nullptr; }
}
