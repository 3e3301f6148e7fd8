// omgdb sql — ODBC result sets as JSON rows (odbc_results.hpp).
#include "sql/odbc/odbc_results.hpp"

#include "sql/json_text.hpp"

namespace omgdb::sql::detail {

namespace {

constexpr std::size_t k_chunk = 16 * 1024;

bool integral_text(std::string_view t) {
  std::size_t i = t.size() > 0 && (t[0] == '-' || t[0] == '+') ? 1 : 0;
  if (i >= t.size()) return false;
  for (; i < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return false;
  return true;
}

// X'00FF' as its bytes; nullopt for anything else.
std::optional<std::vector<unsigned char>> hex_literal(std::string_view v) {
  if (v.size() < 3 || (v[0] != 'X' && v[0] != 'x') || v[1] != '\'' || v.back() != '\'' || v.size() % 2 != 1)
    return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::vector<unsigned char> out;
  for (std::size_t i = 2; i + 1 < v.size(); i += 2) {
    const int hi = nibble(v[i]), lo = nibble(v[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<unsigned char>(hi * 16 + lo));
  }
  return out;
}

odbc_value kind_of(SQLSMALLINT type, odbc_driver driver) {
  const bool lite = driver == odbc_driver::sqlite;
  switch (type) {
    case SQL_BIT: return lite ? odbc_value::sqlite_number : odbc_value::boolean;
    case SQL_TINYINT: case SQL_SMALLINT: case SQL_INTEGER: case SQL_BIGINT:
      return lite ? odbc_value::sqlite_number : odbc_value::integer;
    case SQL_DECIMAL: case SQL_NUMERIC:
      return lite ? odbc_value::sqlite_number : odbc_value::decimal;
    case SQL_REAL: case SQL_FLOAT: case SQL_DOUBLE:
      return lite ? odbc_value::sqlite_number : odbc_value::floating;
    case SQL_BINARY: case SQL_VARBINARY: case SQL_LONGVARBINARY: return odbc_value::binary;
    default: return odbc_value::text;
  }
}

std::string attribute_text(const odbc_stmt& stmt, SQLUSMALLINT col, SQLUSMALLINT field) {
  char buf[512] = {0};
  SQLSMALLINT len = 0;
  if (!SQL_SUCCEEDED(SQLColAttribute(stmt.get(), col, field, buf, sizeof buf, &len, nullptr))) return {};
  return std::string(buf, static_cast<std::size_t>(std::max<SQLSMALLINT>(0, std::min<SQLSMALLINT>(len, sizeof buf - 1))));
}

SQLLEN attribute_number(const odbc_stmt& stmt, SQLUSMALLINT col, SQLUSMALLINT field) {
  SQLLEN v = 0;
  if (!SQL_SUCCEEDED(SQLColAttribute(stmt.get(), col, field, nullptr, 0, nullptr, &v))) return -1;
  return v;
}

void put_value(std::string& text, odbc_value kind, const std::string& v) {
  switch (kind) {
    case odbc_value::boolean:
      if (v == "1" || v == "t" || v == "true") return put_bool(text, true);
      if (v == "0" || v == "f" || v == "false") return put_bool(text, false);
      return put_text(text, v);
    case odbc_value::integer: return put_int_text(text, v);
    case odbc_value::floating: return put_double_text(text, v);
    case odbc_value::binary:
      return put_binary(text, reinterpret_cast<const unsigned char*>(v.data()), v.size());
    case odbc_value::sqlite_number:
      // The driver prints an INTEGER value as digits, a REAL value with '.' or an exponent, and
      // a BLOB (as text) as the literal X'hex'.
      if (integral_text(v)) return put_int_text(text, v);
      if (auto blob = hex_literal(v)) return put_binary(text, blob->data(), blob->size());
      return put_double_text(text, v);
    case odbc_value::decimal:
    case odbc_value::text: return put_text(text, v);
  }
}

}  // namespace

std::vector<odbc_value> odbc_describe(odbc_session& s, const odbc_stmt& stmt, SQLSMALLINT columns, exec_outcome& out) {
  std::vector<odbc_value> kinds;
  for (SQLUSMALLINT c = 1; c <= static_cast<SQLUSMALLINT>(columns); ++c) {
    SQLCHAR name[1024] = {0};
    SQLSMALLINT name_len = 0, type = 0, digits = 0, nullable = SQL_NULLABLE_UNKNOWN;
    SQLULEN size = 0;
    SQLDescribeCol(stmt.get(), c, name, sizeof name, &name_len, &type, &size, &digits, &nullable);
    column_info col;
    std::string raw(reinterpret_cast<const char*>(name),
                    static_cast<std::size_t>(std::max<SQLSMALLINT>(0, std::min<SQLSMALLINT>(name_len, sizeof name - 1))));
    col.name = text_value(raw).as_string().c_str();
    col.type = attribute_text(stmt, c, SQL_DESC_TYPE_NAME);
    const bool from_table = !attribute_text(stmt, c, SQL_DESC_BASE_TABLE_NAME).empty();
    odbc_value kind = kind_of(type, s.driver());
    // SQLite ODBC (StepAPI) describes a computed column as varchar before any row is read: its
    // numbers are read back as numbers (docs/sql-adapters.md: where the drivers differ).
    if (s.driver() == odbc_driver::sqlite && kind == odbc_value::text && !from_table &&
        (type == SQL_VARCHAR || type == SQL_WVARCHAR))
      kind = odbc_value::sqlite_number;
    if ((kind == odbc_value::integer) && attribute_number(stmt, c, SQL_DESC_UNSIGNED) == SQL_TRUE) col.type += " unsigned";
    if (col.type.empty()) col.type = "sqltype " + std::to_string(type);
    // The NOT NULL flag means something only for a table's own column.
    if (from_table && nullable != SQL_NULLABLE_UNKNOWN &&
        s.driver() != odbc_driver::sqlite)
      col.nullable = nullable == SQL_NULLABLE;
    out.columns.push_back(std::move(col));
    kinds.push_back(kind);
  }
  return kinds;
}

result<std::optional<std::string>> odbc_get(odbc_session& s, const odbc_stmt& stmt, SQLUSMALLINT column,
                                            SQLSMALLINT c_type, std::size_t limit, bool& fits) {
  fits = true;
  std::string value;
  char chunk[k_chunk];
  const std::size_t terminator = c_type == SQL_C_CHAR ? 1 : 0;
  for (bool first = true;; first = false) {
    SQLLEN ind = 0;
    SQLRETURN rc = SQLGetData(stmt.get(), column, c_type, chunk, sizeof chunk, &ind);
    if (rc == SQL_NO_DATA) break;  // all of it was read by the earlier chunks
    if (!SQL_SUCCEEDED(rc)) return make_error(s.stmt_message(stmt));
    if (ind == SQL_NULL_DATA) return std::optional<std::string>();
    if (first && ind != SQL_NO_TOTAL && ind >= 0 && static_cast<std::size_t>(ind) > limit) {
      fits = false;
      return std::optional<std::string>(std::string());
    }
    const bool more = rc == SQL_SUCCESS_WITH_INFO && (ind == SQL_NO_TOTAL || static_cast<std::size_t>(ind) > sizeof chunk - terminator);
    const std::size_t got = more ? sizeof chunk - terminator : static_cast<std::size_t>(std::max<SQLLEN>(0, ind));
    value.append(chunk, std::min(got, sizeof chunk));
    if (value.size() > limit) {
      fits = false;
      return std::optional<std::string>(std::string());
    }
    if (!more) break;
  }
  return std::optional<std::string>(std::move(value));
}

status odbc_fetch(odbc_session& s, const odbc_stmt& stmt, const std::vector<odbc_value>& kinds,
                  const exec_options& opts, bool stop_when_full, exec_outcome& out) {
  row_writer rows(out, opts);
  for (;;) {
    SQLRETURN rc = SQLFetch(stmt.get());
    if (rc == SQL_NO_DATA) break;
    if (!SQL_SUCCEEDED(rc)) return make_error(s.stmt_message(stmt));
    if (rows.full() || !rows.begin_row()) {
      if (stop_when_full) break;
      continue;  // a write runs to its end; the surplus rows are dropped
    }
    std::string& text = rows.text();
    bool oversized = false;
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      bool fits = true;
      auto v = odbc_get(s, stmt, static_cast<SQLUSMALLINT>(i + 1),
                        kinds[i] == odbc_value::binary ? SQL_C_BINARY : SQL_C_CHAR, opts.max_bytes, fits);
      if (!v) return std::move(v).error();
      if (!fits) {  // a value longer than the whole budget
        rows.oversized();
        oversized = true;
        break;
      }
      if (i > 0) text.push_back(',');
      if (!*v) put_null(text);
      else put_value(text, kinds[i], **v);
    }
    if (oversized) {
      if (stop_when_full) break;
      continue;
    }
    if (!rows.end_row() && stop_when_full) break;
  }
  return {};
}

result<std::vector<std::vector<std::optional<std::string>>>> odbc_fetch_all(odbc_session& s, const odbc_stmt& stmt,
                                                                            std::size_t max_rows) {
  SQLSMALLINT n = 0;
  SQLNumResultCols(stmt.get(), &n);
  std::vector<std::vector<std::optional<std::string>>> rows;
  for (;;) {
    SQLRETURN rc = SQLFetch(stmt.get());
    if (rc == SQL_NO_DATA) break;
    if (!SQL_SUCCEEDED(rc)) return make_error(s.stmt_message(stmt));
    if (rows.size() == max_rows)
      return make_error("the catalog answer has more than " + std::to_string(max_rows) + " rows; narrow it with `schema` or `table`", failure_kind::limit_exceeded);
    std::vector<std::optional<std::string>> row;
    for (SQLSMALLINT c = 1; c <= n; ++c) {
      bool fits = true;
      auto v = odbc_get(s, stmt, static_cast<SQLUSMALLINT>(c), SQL_C_CHAR, 64 * 1024, fits);
      if (!v) return std::move(v).error();
      row.push_back(fits ? std::move(*v) : std::optional<std::string>(std::string("…")));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace omgdb::sql::detail
