// omgdb sql — SQLite schema summary and indexes.
#include "sql/sqlite/sqlite_schema.hpp"

#include <cctype>
#include <string>
#include <variant>
#include <vector>

#include <boost/json/array.hpp>

namespace omgdb::sql::detail {

namespace json = boost::json;

namespace {

using param = std::variant<std::string_view, std::int64_t>;
using rows_t = std::vector<std::vector<json::value>>;

// Runs one of our own (trusted, parameterised) queries on the read-only handle.
result<rows_t> query(sqlite_session& s, std::string_view sql, std::initializer_list<param> params) {
  auto prepared = s.prepare_one(sql);
  if (!prepared) return std::move(prepared).error();
  stmt_ptr stmt(*prepared);
  int i = 1;
  for (const auto& p : params) {
    if (auto* t = std::get_if<std::string_view>(&p))
      sqlite3_bind_text(stmt.get(), i, t->data(), static_cast<int>(t->size()), SQLITE_TRANSIENT);
    else
      sqlite3_bind_int64(stmt.get(), i, std::get<std::int64_t>(p));
    ++i;
  }
  rows_t rows;
  int n = sqlite3_column_count(stmt.get());
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    std::vector<json::value> row;
    for (int c = 0; c < n; ++c) row.push_back(sqlite_column_value(stmt.get(), c));
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return s.error(rc);
  return rows;
}

std::string str(const json::value& v) { return v.is_string() ? std::string(v.as_string()) : std::string(); }
bool truthy(const json::value& v) { return v.is_int64() && v.as_int64() != 0; }

bool main_schema(std::string_view schema) { return schema.empty() || schema == "main"; }

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

result<json::object> sqlite_schema_summary(sqlite_session& s, std::string_view schema, std::string_view table,
                                           std::size_t offset, std::size_t limit) {
  json::object out;
  json::array relations;
  if (!main_schema(schema)) {
    out["relations"] = std::move(relations);
    return out;
  }
  auto rels = query(s,
                    "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') "
                    "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND (?1 = '' OR name = ?1) "
                    "ORDER BY name LIMIT ?2 OFFSET ?3",
                    {table, static_cast<std::int64_t>(limit + 1), static_cast<std::int64_t>(offset)});
  if (!rels) return std::move(rels).error();
  bool more = rels->size() > limit;
  if (more) rels->resize(limit);
  for (auto& r : *rels) {
    std::string name = str(r[0]);
    auto cols = query(s, "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid",
                      {std::string_view(name)});
    if (!cols) return std::move(cols).error();
    // Only a rowid alias (the single INTEGER PRIMARY KEY column) can never be NULL without a NOT
    // NULL constraint: other PRIMARY KEY columns accept NULL in SQLite.
    std::size_t pk_columns = 0;
    for (auto& c : *cols) pk_columns += truthy(c[4]) ? 1 : 0;
    json::array columns;
    for (auto& c : *cols) {
      bool rowid_alias = pk_columns == 1 && truthy(c[4]) && upper(str(c[1])) == "INTEGER";
      json::object col{{"name", c[0]}, {"type", c[1]}, {"nullable", !truthy(c[2]) && !rowid_alias}};
      if (!c[3].is_null()) col["default"] = c[3];
      columns.push_back(std::move(col));
    }
    relations.push_back(json::object{{"schema", "main"}, {"name", name}, {"kind", r[1]}, {"columns", std::move(columns)}});
  }
  out["relations"] = std::move(relations);
  if (more) out["nextOffset"] = static_cast<std::int64_t>(offset + limit);
  return out;
}

result<json::object> sqlite_table_indexes(sqlite_session& s, std::string_view schema, std::string_view table) {
  auto exists = main_schema(schema)
                    ? query(s, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = ?1", {table})
                    : result<rows_t>(rows_t{});
  if (!exists) return std::move(exists).error();
  if (exists->empty())
    return make_error("table `" + std::string(table) + "` does not exist" +
                      (main_schema(schema) ? std::string() : " in schema `" + std::string(schema) + "`"), failure_kind::not_found);
  json::array indexes;
  // A rowid alias (a single INTEGER PRIMARY KEY column) is the table's primary key without an index entry.
  auto pk = query(s, "SELECT name, type FROM pragma_table_info(?1) WHERE pk > 0", {table});
  if (!pk) return std::move(pk).error();
  if (pk->size() == 1 && upper(str((*pk)[0][1])) == "INTEGER") {
    indexes.push_back(json::object{{"name", "rowid"}, {"columns", json::array{(*pk)[0][0]}}, {"unique", true},
                                   {"primary", true}, {"method", "rowid"}});
  }
  auto list = query(s, "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1) ORDER BY name", {table});
  if (!list) return std::move(list).error();
  for (auto& ix : *list) {
    std::string name = str(ix[0]);
    auto cols = query(s, "SELECT name FROM pragma_index_xinfo(?1) WHERE key = 1 ORDER BY seqno",
                      {std::string_view(name)});
    if (!cols) return std::move(cols).error();
    json::array columns;
    for (auto& c : *cols) columns.push_back(c[0].is_null() ? json::value("<expression>") : c[0]);
    json::object entry{{"name", name}, {"columns", std::move(columns)}, {"unique", truthy(ix[1])},
                       {"primary", str(ix[2]) == "pk"}, {"method", "btree"}};
    auto def = query(s, "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?1", {std::string_view(name)});
    if (def && !def->empty() && (*def)[0][0].is_string()) entry["definition"] = (*def)[0][0];
    if (truthy(ix[3])) entry["partial"] = true;
    indexes.push_back(std::move(entry));
  }
  return json::object{{"table", table}, {"schema", "main"}, {"indexes", std::move(indexes)}};
}

}  // namespace omgdb::sql::detail
