// omgdb sql — PostgreSQL values, type names and nullability.
#include "sql/postgres/postgres_values.hpp"

#include <map>
#include <utility>

#include "sql/json_text.hpp"

namespace omgdb::sql::detail {

namespace json = boost::json;

namespace {

// Built-in type OIDs (src/include/catalog/pg_type.dat); stable across versions.
constexpr Oid bool_oid = 16, bytea_oid = 17, int8_oid = 20, int2_oid = 21, int4_oid = 23, oid_oid = 26,
              float4_oid = 700, float8_oid = 701, numeric_oid = 1700;

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// bytea text output: hex ("\x00ff") or, with bytea_output=escape, backslash escapes.
void put_bytea(std::string& out, std::string_view t) {
  std::string bytes;
  bytes.reserve(t.size() / 2);
  if (t.size() >= 2 && t[0] == '\\' && t[1] == 'x') {
    for (std::size_t i = 2; i + 1 < t.size(); i += 2) {
      int hi = hex(t[i]), lo = hex(t[i + 1]);
      if (hi < 0 || lo < 0) return put_text(out, t);
      bytes += static_cast<char>(hi * 16 + lo);
    }
  } else {
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] != '\\') {
        bytes += t[i];
      } else if (i + 1 < t.size() && t[i + 1] == '\\') {
        bytes += '\\';
        ++i;
      } else if (i + 3 < t.size()) {
        int v = (t[i + 1] - '0') * 64 + (t[i + 2] - '0') * 8 + (t[i + 3] - '0');
        bytes += static_cast<char>(v);
        i += 3;
      } else {
        return put_text(out, t);
      }
    }
  }
  put_binary(out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

}  // namespace

void pg_type_names::load(pg_session& s, const deadline& dl) {
  {
    std::lock_guard lock(mutex_);
    if (loaded_) return;
  }
  auto r = s.query("SELECT oid::int8, typname FROM pg_catalog.pg_type", {}, dl);
  if (!r) return;
  std::unordered_map<Oid, std::string> names;
  for (int i = 0; i < PQntuples(r->get()); ++i)
    if (auto oid = parse_int(PQgetvalue(r->get(), i, 0)))
      names.emplace(static_cast<Oid>(*oid), PQgetvalue(r->get(), i, 1));
  std::lock_guard lock(mutex_);
  names_ = std::move(names);
  loaded_ = true;
}

std::string pg_type_names::name(Oid type) const {
  std::lock_guard lock(mutex_);
  auto it = names_.find(type);
  return it != names_.end() ? it->second : "oid:" + std::to_string(type);
}

void pg_put_value(std::string& out, std::string_view t, Oid type, bool shortest_floats) {
  switch (type) {
    case bool_oid:
      return put_bool(out, t == "t");
    case int2_oid:
    case int4_oid:
    case int8_oid:
    case oid_oid:
      return put_int_text(out, t);
    case float4_oid:
    case float8_oid:
      return shortest_floats ? put_shortest_double_text(out, t) : put_double_text(out, t);
    case bytea_oid:
      return put_bytea(out, t);
    default:  // numeric (exact, as a string) and every other type: its text
      return put_text(out, t);
  }
}

std::vector<column_info> pg_columns(const PGresult* shape, const pg_type_names& types) {
  std::vector<column_info> cols;
  if (!shape) return cols;
  for (int i = 0; i < PQnfields(shape); ++i) {
    column_info c;
    c.name = json::value(text_value(PQfname(shape, i))).as_string().c_str();
    c.type = types.name(PQftype(shape, i));
    cols.push_back(std::move(c));
  }
  return cols;
}

std::optional<pg_command> pg_nullability_query(const PGresult* shape) {
  if (!shape) return std::nullopt;
  std::string oids = "{";
  for (int i = 0; i < PQnfields(shape); ++i) {
    if (PQftable(shape, i) == InvalidOid || PQftablecol(shape, i) <= 0) continue;
    if (oids.size() > 1) oids += ',';
    oids += std::to_string(PQftable(shape, i));
  }
  if (oids.size() == 1) return std::nullopt;
  oids += '}';
  return pg_command{"SELECT attrelid::int8, attnum::int4, attnotnull FROM pg_catalog.pg_attribute "
                    "WHERE attrelid = ANY($1::oid[]) AND attnum > 0",
                    {oids}};
}

void pg_apply_nullability(const std::vector<pg_result_ptr>& results, const PGresult* shape,
                          std::vector<column_info>& cols) {
  if (!shape) return;
  std::map<std::pair<Oid, int>, std::vector<std::size_t>> wanted;
  for (int i = 0; i < PQnfields(shape) && static_cast<std::size_t>(i) < cols.size(); ++i) {
    Oid table = PQftable(shape, i);
    int column = PQftablecol(shape, i);
    if (table == InvalidOid || column <= 0) continue;
    wanted[{table, column}].push_back(static_cast<std::size_t>(i));
  }
  for (const auto& result : results) {
    const PGresult* rows = result.get();
    for (int row = 0, n = PQntuples(rows); row < n; ++row) {
      auto table = parse_int(PQgetvalue(rows, row, 0));
      auto column = parse_int(PQgetvalue(rows, row, 1));
      if (!table || !column) continue;
      auto it = wanted.find({static_cast<Oid>(*table), static_cast<int>(*column)});
      if (it == wanted.end()) continue;
      bool not_null = PQgetvalue(rows, row, 2)[0] == 't';
      for (auto i : it->second) cols[i].nullable = !not_null;
    }
  }
}

}  // namespace omgdb::sql::detail
