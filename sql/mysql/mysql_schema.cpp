// omgdb sql — information_schema queries (prepared, every input a parameter).
#include "sql/mysql/mysql_schema.hpp"

#include <string>

#include <boost/json/array.hpp>

namespace omgdb::sql::detail {

namespace json = boost::json;

namespace {

constexpr const char* system_schemas = "('mysql', 'information_schema', 'performance_schema', 'sys')";

json::value text(const std::optional<std::string>& v) {
  return v ? text_value(*v) : json::value(nullptr);
}

std::string kind(const std::optional<std::string>& t) {
  if (!t) return "table";
  if (*t == "BASE TABLE") return "table";
  if (*t == "VIEW") return "view";
  if (*t == "SYSTEM VIEW") return "system view";
  if (*t == "SEQUENCE") return "sequence";
  std::string k = *t;
  for (auto& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}

}  // namespace

result<json::object> my_schema_summary(my_session& s, std::string_view schema, std::string_view table,
                                       std::size_t offset, std::size_t limit) {
  std::string sql =
      "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES "
      "WHERE (CASE WHEN ? <> '' THEN TABLE_SCHEMA = ? WHEN DATABASE() IS NOT NULL THEN TABLE_SCHEMA = DATABASE() "
      "ELSE TABLE_SCHEMA NOT IN " + std::string(system_schemas) + " END) AND (? = '' OR TABLE_NAME = ?) "
      "ORDER BY BINARY TABLE_SCHEMA, BINARY TABLE_NAME LIMIT " + std::to_string(limit + 1) +
      " OFFSET " + std::to_string(offset);
  std::string sch(schema), tab(table);
  auto rels = s.query(sql, {sch, sch, tab, tab});
  if (!rels) return std::move(rels).error();
  bool more = rels->size() > limit;
  if (more) rels->resize(limit);
  json::array relations;
  for (auto& r : *rels) {
    auto cols = s.query(
        "SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT FROM information_schema.COLUMNS "
        "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
        {r[0].value_or(""), r[1].value_or("")});
    if (!cols) return std::move(cols).error();
    json::array columns;
    for (auto& c : *cols) {
      json::object col{{"name", text(c[0])}, {"type", text(c[1])}, {"nullable", c[2] && *c[2] == "YES"}};
      if (c[3] && *c[3] != "NULL") col["default"] = text_value(*c[3]);
      columns.push_back(std::move(col));
    }
    relations.push_back(json::object{{"schema", text(r[0])}, {"name", text(r[1])}, {"kind", kind(r[2])},
                                     {"columns", std::move(columns)}});
  }
  json::object out{{"relations", std::move(relations)}};
  if (more) out["nextOffset"] = static_cast<std::int64_t>(offset + limit);
  return out;
}

result<json::object> my_table_indexes(my_session& s, std::string_view schema, std::string_view table) {
  std::string sch(schema), tab(table);
  auto found = s.query(
      "SELECT TABLE_SCHEMA FROM information_schema.TABLES WHERE TABLE_NAME = ? AND TABLE_TYPE = 'BASE TABLE' "
      "AND (CASE WHEN ? = '' THEN TABLE_SCHEMA = DATABASE() ELSE TABLE_SCHEMA = ? END) LIMIT 1",
      {tab, sch, sch});
  if (!found) return std::move(found).error();
  if (found->empty() || !(*found)[0][0]) {
    std::string where = schema.empty() ? " in the current database" : " in schema `" + sch + "`";
    return make_error("table `" + tab + "` does not exist" + where, failure_kind::not_found);
  }
  std::string in_schema = *(*found)[0][0];
  auto rows = s.query(
      "SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME, INDEX_TYPE FROM information_schema.STATISTICS "
      "WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY BINARY INDEX_NAME, SEQ_IN_INDEX",
      {in_schema, tab});
  if (!rows) return std::move(rows).error();
  json::array indexes;
  std::string current;
  for (auto& r : *rows) {
    std::string name = r[0].value_or("");
    if (indexes.empty() || name != current) {
      current = name;
      indexes.push_back(json::object{{"name", text(r[0])}, {"columns", json::array{}},
                                     {"unique", r[1] && *r[1] == "0"}, {"primary", name == "PRIMARY"},
                                     {"method", text(r[3])}});
    }
    indexes.back().as_object()["columns"].as_array().push_back(r[2] ? text(r[2]) : json::value("<expression>"));
  }
  return json::object{{"table", tab}, {"schema", in_schema}, {"indexes", std::move(indexes)}};
}

}  // namespace omgdb::sql::detail
