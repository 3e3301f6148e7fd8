// omgdb sql — PostgreSQL catalog queries. The JSON is built by the server (json_agg) and parsed
// here; every input is a bound parameter.
#include "sql/postgres/postgres_schema.hpp"

#include <string>

#include <boost/json/array.hpp>

#include "common/json.hpp"

namespace omgdb::sql::detail {

namespace json = boost::json;

namespace {

constexpr const char* summary_sql = R"(
WITH rels AS (
  SELECT c.oid, n.nspname, c.relname, c.relkind
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
    AND CASE WHEN $1 = '' THEN n.nspname NOT IN ('pg_catalog', 'information_schema')
                               AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp\_%'
             ELSE n.nspname = $1 END
    AND ($2 = '' OR c.relname = $2)
  ORDER BY n.nspname, c.relname
  OFFSET $3::int8 LIMIT $4::int8)
SELECT coalesce(json_agg(json_build_object(
  'schema', r.nspname, 'name', r.relname,
  'kind', CASE r.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view'
                         WHEN 'm' THEN 'materialized view' ELSE 'foreign table' END,
  'columns', (SELECT coalesce(json_agg(json_strip_nulls(json_build_object(
                'name', a.attname, 'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
                'nullable', NOT a.attnotnull, 'default', pg_catalog.pg_get_expr(d.adbin, d.adrelid)))
                ORDER BY a.attnum), '[]'::json)
              FROM pg_catalog.pg_attribute a
              LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
              WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped))
  ORDER BY r.nspname, r.relname), '[]'::json)::text
FROM rels r)";

constexpr const char* find_table_sql = R"(
SELECT c.oid::int8, n.nspname
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname = $2 AND c.relkind IN ('r', 'p', 'm', 'f')
  AND CASE WHEN $1 = '' THEN pg_catalog.pg_table_is_visible(c.oid) ELSE n.nspname = $1 END
LIMIT 1)";

constexpr const char* indexes_sql = R"(
SELECT coalesce(json_agg(json_build_object(
  'name', i.relname,
  'columns', (SELECT json_agg(pg_catalog.pg_get_indexdef(x.indexrelid, k, true) ORDER BY k)
              FROM generate_series(1, x.indnkeyatts) k),
  'unique', x.indisunique, 'primary', x.indisprimary, 'method', am.amname,
  'definition', pg_catalog.pg_get_indexdef(x.indexrelid)) ORDER BY i.relname), '[]'::json)::text
FROM pg_catalog.pg_index x
JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
JOIN pg_catalog.pg_am am ON am.oid = i.relam
WHERE x.indrelid = $1::oid)";

result<json::value> json_cell(const result<pg_result_ptr>& r) {
  if (!r) return r.error();
  if (PQntuples(r->get()) != 1) return make_error("PostgreSQL returned an unexpected catalog answer");
  return omgdb::json::parse_strict(PQgetvalue(r->get(), 0, 0));
}

}  // namespace

result<json::object> pg_schema_summary(pg_session& s, const deadline& dl, std::string_view schema,
                                       std::string_view table, std::size_t offset, std::size_t limit) {
  auto r = s.query(summary_sql,
                   {std::string(schema), std::string(table), std::to_string(offset), std::to_string(limit + 1)}, dl);
  auto rels = json_cell(r);
  if (!rels) return std::move(rels).error();
  if (!rels->is_array()) return make_error("PostgreSQL returned an unexpected catalog answer");
  json::array list = std::move(rels->as_array());
  json::object out;
  bool more = list.size() > limit;
  if (more) list.resize(limit);
  out["relations"] = std::move(list);
  if (more) out["nextOffset"] = static_cast<std::int64_t>(offset + limit);
  return out;
}

result<json::object> pg_table_indexes(pg_session& s, const deadline& dl, std::string_view schema,
                                      std::string_view table) {
  auto t = s.query(find_table_sql, {std::string(schema), std::string(table)}, dl);
  if (!t) return std::move(t).error();
  if (PQntuples(t->get()) == 0) {
    std::string where = schema.empty() ? " (on the search_path)" : " in schema `" + std::string(schema) + "`";
    return make_error("table `" + std::string(table) + "` does not exist" + where, failure_kind::not_found);
  }
  std::string oid = PQgetvalue(t->get(), 0, 0);
  std::string nsp = PQgetvalue(t->get(), 0, 1);
  auto ix = json_cell(s.query(indexes_sql, {oid}, dl));
  if (!ix) return std::move(ix).error();
  return json::object{{"table", table}, {"schema", nsp}, {"indexes", std::move(ix).value()}};
}

}  // namespace omgdb::sql::detail
