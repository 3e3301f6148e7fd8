// omgdb sql — the per-dialect adapter constructors behind make_adapter (internal to sql/).
#pragma once

#include <memory>

#include "config/connection.hpp"
#include "sql/adapter.hpp"

namespace omgdb::sql::detail {

std::unique_ptr<adapter> make_sqlite_adapter(const config::connection& conn);
std::unique_ptr<adapter> make_postgres_adapter(const config::connection& conn);
std::unique_ptr<adapter> make_mysql_adapter(const config::connection& conn);
// unixODBC: `mssql` and `odbc` connections (sql/odbc/odbc_adapter.cpp).
std::unique_ptr<adapter> make_odbc_adapter(const config::connection& conn);

}  // namespace omgdb::sql::detail
