// omgdb sql — PostgreSQL result values and column metadata as JSON.
//
// Values arrive in text format and are written as JSON text (sql/json_text.hpp) by type OID: bool → true/false; int2/int4/
// int8/oid → numbers (beyond ±2^53 as strings); float4/float8 → numbers (NaN/Infinity as
// strings); numeric → string (exact); bytea → {"$binary":…}; everything else → its text.
// Type names come from pg_type, read once per adapter; nullability from pg_attribute for
// columns that come straight from a table (PQftable/PQftablecol), unknown otherwise.
//
// Internal to sql/.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/json/value.hpp>

#include "sql/adapter.hpp"
#include "sql/postgres/postgres_session.hpp"

namespace omgdb::sql::detail {

class pg_type_names {
 public:
  // Loads pg_type on first use (later calls are free); a failure leaves names as "oid:N".
  void load(pg_session& s, const deadline& dl);
  std::string name(Oid type) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<Oid, std::string> names_;
  bool loaded_ = false;
};

// Appends the JSON text of one non-NULL value given as its text (PQgetvalue/PQgetlength);
// `type` is the column's PQftype. `shortest_floats`: the server is PostgreSQL 12 or later,
// whose float4/float8 output is the shortest exact text whatever extra_float_digits says
// (> 0: shortest; ≤ 0: at most 15 significant digits, which is shortest too).
void pg_put_value(std::string& out, std::string_view text, Oid type, bool shortest_floats);

std::vector<column_info> pg_columns(const PGresult* shape, const pg_type_names& types);

// `nullable` for columns taken directly from a table, best effort (on any error the columns
// stay unknown): the pg_attribute query for the shape's tables (none when no column comes from
// a table), run where a query can (not in an aborted transaction), and its application.
std::optional<pg_command> pg_nullability_query(const PGresult* shape);
void pg_apply_nullability(const std::vector<pg_result_ptr>& results, const PGresult* shape,
                          std::vector<column_info>& cols);

}  // namespace omgdb::sql::detail
