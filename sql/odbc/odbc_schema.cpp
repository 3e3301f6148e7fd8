// omgdb sql — catalog functions as getSchemaSummary / getTableIndexes (odbc_schema.hpp).
#include "sql/odbc/odbc_schema.hpp"

#include <algorithm>
#include <map>

#include <boost/json/array.hpp>

#include "sql/odbc/odbc_results.hpp"

namespace omgdb::sql::detail {

namespace json = boost::json;
using config::sql_dialect;
using rows_t = std::vector<std::vector<std::optional<std::string>>>;

namespace {

std::string text(const std::vector<std::optional<std::string>>& row, std::size_t i) {
  return i < row.size() && row[i] ? *row[i] : std::string();
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return s;
}

bool system_schema(sql_dialect d, const std::string& s) {
  const std::string l = lower(s);
  switch (d) {
    case sql_dialect::postgres: return l == "pg_catalog" || l == "information_schema" || l.rfind("pg_toast", 0) == 0;
    case sql_dialect::mysql: return l == "mysql" || l == "information_schema" || l == "performance_schema" || l == "sys";
    case sql_dialect::mssql: return l == "sys" || l == "information_schema";
    default: return l == "information_schema";
  }
}

// Where a schema name goes in a catalog call, and how patterns are escaped.
struct catalog_shape {
  bool schemas = false;   // the driver has schemas (SQL_SCHEMA_USAGE)
  bool catalogs = false;  // … or only catalogs (MariaDB: a database is a catalog)
  std::string escape;     // SQL_SEARCH_PATTERN_ESCAPE
};

catalog_shape shape_of(odbc_session& s) {
  catalog_shape c;
  SQLUINTEGER usage = 0;
  if (SQL_SUCCEEDED(SQLGetInfo(s.dbc(), SQL_SCHEMA_USAGE, &usage, 0, nullptr))) c.schemas = usage != 0;
  usage = 0;
  if (SQL_SUCCEEDED(SQLGetInfo(s.dbc(), SQL_CATALOG_USAGE, &usage, 0, nullptr))) c.catalogs = usage != 0;
  char esc[8] = {0};
  SQLSMALLINT len = 0;
  if (SQL_SUCCEEDED(SQLGetInfo(s.dbc(), SQL_SEARCH_PATTERN_ESCAPE, esc, sizeof esc, &len))) c.escape = esc;
  return c;
}

// A name as a search pattern matching only itself.
std::string pattern(std::string_view name, const std::string& escape) {
  std::string out;
  for (char ch : name) {
    if (!escape.empty() && (ch == '_' || ch == '%' || std::string_view(&ch, 1) == escape)) out += escape;
    out += ch;
  }
  return out;
}

struct names {
  std::string catalog, schema, table;
  bool has_catalog = false, has_schema = false, has_table = false;
  SQLCHAR* ptr(std::string& s, bool has) { return has ? reinterpret_cast<SQLCHAR*>(s.data()) : nullptr; }
  SQLSMALLINT len(const std::string& s, bool has) { return has ? static_cast<SQLSMALLINT>(s.size()) : 0; }
};

struct relation {
  std::string catalog, schema_field, schema, name, kind;
};

// The relations matching `schema` / `table` exactly (empty = any), sorted by schema and name.
result<std::vector<relation>> list_relations(odbc_session& s, sql_dialect d, const deadline& dl, std::string_view schema,
                                             std::string_view table, const char* types) {
  const catalog_shape shape = shape_of(s);
  std::vector<relation> out;
  names n;
  if (!schema.empty()) {
    if (shape.schemas) n.schema = pattern(schema, shape.escape), n.has_schema = true;
    else if (shape.catalogs) n.catalog = std::string(schema), n.has_catalog = true;
    else if (schema != "main") return out;  // SQLite: only "main"
  }
  std::string current;  // MariaDB/MySQL: without a schema, the connection's database (as natively)
  if (schema.empty() && !shape.schemas && shape.catalogs) {
    char buf[512] = {0};
    SQLINTEGER len = 0;
    if (SQL_SUCCEEDED(SQLGetConnectAttr(s.dbc(), SQL_ATTR_CURRENT_CATALOG, buf, sizeof buf - 1, &len))) current = buf;
    if (!current.empty()) n.catalog = current, n.has_catalog = true;
  }
  if (!table.empty()) n.table = pattern(table, shape.escape), n.has_table = true;
  auto stmt = s.statement();
  if (!stmt) return std::move(stmt).error();
  cancel_watch watch(stmt->get(), dl);
  std::string kinds = types;
  SQLRETURN rc = SQLTables(stmt->get(), n.ptr(n.catalog, n.has_catalog), n.len(n.catalog, n.has_catalog),
                           n.ptr(n.schema, n.has_schema), n.len(n.schema, n.has_schema), n.ptr(n.table, n.has_table),
                           n.len(n.table, n.has_table), reinterpret_cast<SQLCHAR*>(kinds.data()), SQL_NTS);
  if (!SQL_SUCCEEDED(rc)) return watch.fired() ? make_error(dl.stop_message(), dl.stop_kind()) : make_error(s.stmt_message(*stmt));
  auto rows = odbc_fetch_all(s, *stmt, k_max_relations);
  if (!rows) return std::move(rows).error();
  for (auto& r : *rows) {
    relation rel{text(r, 0), text(r, 1), {}, text(r, 2), lower(text(r, 3))};
    rel.schema = !rel.schema_field.empty() ? rel.schema_field : !rel.catalog.empty() ? rel.catalog : "main";
    if (!table.empty() && rel.name != table) continue;
    if (!schema.empty() && rel.schema != schema) continue;
    if (!current.empty() && rel.schema != current) continue;
    if (schema.empty() && system_schema(d, rel.schema)) continue;
    out.push_back(std::move(rel));
  }
  std::sort(out.begin(), out.end(), [](const relation& a, const relation& b) {
    return a.schema != b.schema ? a.schema < b.schema : a.name < b.name;
  });
  return out;
}

// Runs one catalog function on a fresh statement and returns every row.
template <class Call>
result<rows_t> catalog(odbc_session& s, const deadline& dl, Call&& call) {
  auto stmt = s.statement();
  if (!stmt) return std::move(stmt).error();
  cancel_watch watch(stmt->get(), dl);
  if (!SQL_SUCCEEDED(call(stmt->get()))) return watch.fired() ? make_error(dl.stop_message(), dl.stop_kind()) : make_error(s.stmt_message(*stmt));
  return odbc_fetch_all(s, *stmt, k_max_relations);
}

result<rows_t> primary_key(odbc_session& s, const deadline& dl, relation& r) {
  return catalog(s, dl, [&](SQLHSTMT h) {
    return SQLPrimaryKeys(h, r.catalog.empty() ? nullptr : reinterpret_cast<SQLCHAR*>(r.catalog.data()),
                          static_cast<SQLSMALLINT>(r.catalog.size()),
                          r.schema_field.empty() ? nullptr : reinterpret_cast<SQLCHAR*>(r.schema_field.data()),
                          static_cast<SQLSMALLINT>(r.schema_field.size()), reinterpret_cast<SQLCHAR*>(r.name.data()),
                          static_cast<SQLSMALLINT>(r.name.size()));
  });
}

result<json::array> columns_of(odbc_session& s, sql_dialect d, const deadline& dl, relation& r, const std::string& escape) {
  std::string table_pattern = pattern(r.name, escape);
  std::string schema_pattern = pattern(r.schema_field, escape);
  auto rows = catalog(s, dl, [&](SQLHSTMT h) {
    return SQLColumns(h, r.catalog.empty() ? nullptr : reinterpret_cast<SQLCHAR*>(r.catalog.data()),
                      static_cast<SQLSMALLINT>(r.catalog.size()),
                      r.schema_field.empty() ? nullptr : reinterpret_cast<SQLCHAR*>(schema_pattern.data()),
                      static_cast<SQLSMALLINT>(schema_pattern.size()), reinterpret_cast<SQLCHAR*>(table_pattern.data()),
                      static_cast<SQLSMALLINT>(table_pattern.size()), nullptr, 0);
  });
  if (!rows) return std::move(rows).error();
  // SQLite: the rowid alias (a single INTEGER PRIMARY KEY column) is never NULL, though the
  // driver reports it nullable (as the native adapter reads it).
  std::string rowid_alias;
  if (d == sql_dialect::sqlite && s.driver() == odbc_driver::sqlite) {
    auto pk = primary_key(s, dl, r);
    if (pk && pk->size() == 1) rowid_alias = text((*pk)[0], 3);
  }
  std::vector<std::pair<long, json::object>> cols;
  for (auto& c : *rows) {
    if (text(c, 2) != r.name) continue;
    std::string type = text(c, 5);
    const std::string data_type = text(c, 4);
    if ((data_type == "2" || data_type == "3") && !text(c, 6).empty())
      type += "(" + text(c, 6) + (text(c, 8).empty() ? "" : "," + text(c, 8)) + ")";
    json::object col{{"name", text(c, 3)}, {"type", type}};
    const std::string nullable = text(c, 10);
    bool alias = !rowid_alias.empty() && text(c, 3) == rowid_alias && lower(text(c, 5)) == "integer";
    if (nullable == "0" || alias) col["nullable"] = false;
    else if (nullable == "1") col["nullable"] = true;
    if (c.size() > 12 && c[12]) col["default"] = *c[12];
    long ordinal = 0;
    try {
      ordinal = std::stol(text(c, 16));
    } catch (...) {
      ordinal = static_cast<long>(cols.size());
    }
    cols.emplace_back(ordinal, std::move(col));
  }
  std::stable_sort(cols.begin(), cols.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json::array out;
  for (auto& c : cols) out.push_back(std::move(c.second));
  return out;
}

}  // namespace

result<json::object> odbc_schema_summary(odbc_session& s, sql_dialect d, const deadline& dl, std::string_view schema,
                                         std::string_view table, std::size_t offset, std::size_t limit) {
  auto rels = list_relations(s, d, dl, schema, table, "TABLE,VIEW");
  if (!rels) return std::move(rels).error();
  const std::string escape = shape_of(s).escape;
  json::array relations;
  for (std::size_t i = offset; i < rels->size() && i < offset + limit; ++i) {
    auto& r = (*rels)[i];
    auto cols = columns_of(s, d, dl, r, escape);
    if (!cols) return std::move(cols).error();
    relations.push_back(json::object{{"schema", r.schema}, {"name", r.name}, {"kind", r.kind}, {"columns", std::move(*cols)}});
  }
  json::object out{{"relations", std::move(relations)}};
  if (offset + limit < rels->size()) out["nextOffset"] = static_cast<std::int64_t>(offset + limit);
  return out;
}

result<json::object> odbc_table_indexes(odbc_session& s, sql_dialect d, const deadline& dl, std::string_view schema,
                                        std::string_view table) {
  auto rels = list_relations(s, d, dl, schema, table, "TABLE");
  if (!rels) return std::move(rels).error();
  if (rels->empty())
    return make_error("table `" + std::string(table) + "` does not exist" +
                      (schema.empty() ? std::string() : " in schema `" + std::string(schema) + "`"), failure_kind::not_found);
  relation& r = rels->front();
  auto stats = catalog(s, dl, [&](SQLHSTMT h) {
    return SQLStatistics(h, r.catalog.empty() ? nullptr : reinterpret_cast<SQLCHAR*>(r.catalog.data()),
                         static_cast<SQLSMALLINT>(r.catalog.size()),
                         r.schema_field.empty() ? nullptr : reinterpret_cast<SQLCHAR*>(r.schema_field.data()),
                         static_cast<SQLSMALLINT>(r.schema_field.size()), reinterpret_cast<SQLCHAR*>(r.name.data()),
                         static_cast<SQLSMALLINT>(r.name.size()), SQL_INDEX_ALL, SQL_QUICK);
  });
  if (!stats) return std::move(stats).error();
  auto pk = primary_key(s, dl, r);
  if (!pk) return std::move(pk).error();
  std::vector<std::pair<long, std::string>> pk_cols;
  std::string pk_name;
  for (auto& k : *pk) {
    pk_cols.emplace_back(std::atol(text(k, 4).c_str()), text(k, 3));
    pk_name = text(k, 5);
  }
  std::sort(pk_cols.begin(), pk_cols.end());
  struct index {
    bool unique = false;
    std::string type;
    std::vector<std::pair<long, std::string>> columns;
  };
  std::map<std::string, index> found;
  for (auto& st : *stats) {
    if (text(st, 6) == "0" || text(st, 5).empty()) continue;  // SQL_TABLE_STAT: not an index
    auto& ix = found[text(st, 5)];
    ix.unique = text(st, 3) == "0";
    ix.type = text(st, 6);
    ix.columns.emplace_back(std::atol(text(st, 7).c_str()), st.size() > 8 && st[8] ? *st[8] : "<expression>");
  }
  json::array indexes;
  bool primary_seen = false;
  for (auto& [name, ix] : found) {
    std::sort(ix.columns.begin(), ix.columns.end());
    json::array cols;
    std::vector<std::string> plain;
    for (auto& c : ix.columns) cols.push_back(json::value(c.second)), plain.push_back(c.second);
    std::vector<std::string> pk_plain;
    for (auto& c : pk_cols) pk_plain.push_back(c.second);
    const bool primary = !pk_plain.empty() && ((!pk_name.empty() && name == pk_name) ||
                                               (pk_name.empty() && ix.unique && plain == pk_plain && !primary_seen));
    primary_seen = primary_seen || primary;
    json::object entry{{"name", name}, {"columns", std::move(cols)}, {"unique", ix.unique}, {"primary", primary}};
    if (ix.type == "1") entry["method"] = "clustered";
    if (ix.type == "2") entry["method"] = "hashed";
    indexes.push_back(std::move(entry));
  }
  if (!primary_seen && !pk_cols.empty()) {  // a key without an index of its own (SQLite's rowid)
    json::array cols;
    for (auto& c : pk_cols) cols.push_back(json::value(c.second));
    indexes.push_back(json::object{{"name", pk_name.empty() ? "PRIMARY KEY" : pk_name},
                                   {"columns", std::move(cols)}, {"unique", true}, {"primary", true}});
  }
  return json::object{{"table", r.name}, {"schema", r.schema}, {"indexes", std::move(indexes)}};
}

}  // namespace omgdb::sql::detail
