// omgdb sql — libmariadb statements: prepared first, text protocol when the server cannot
// prepare; rows written as JSON text under the row budget.
#include "sql/mysql/mysql_results.hpp"

#include <mysqld_error.h>

#include <memory>
#include <vector>

#include "sql/json_text.hpp"

namespace omgdb::sql::detail {

namespace json = boost::json;

namespace {

enum class kind { integer, floating, decimal, binary, text };

kind kind_of(const MYSQL_FIELD& f) {
  switch (f.type) {
    case MYSQL_TYPE_TINY: case MYSQL_TYPE_SHORT: case MYSQL_TYPE_LONG: case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONGLONG: case MYSQL_TYPE_YEAR:
      return kind::integer;
    case MYSQL_TYPE_FLOAT: case MYSQL_TYPE_DOUBLE:
      return kind::floating;
    case MYSQL_TYPE_DECIMAL: case MYSQL_TYPE_NEWDECIMAL:
      return kind::decimal;
    case MYSQL_TYPE_BIT: case MYSQL_TYPE_GEOMETRY:
      return kind::binary;
    case MYSQL_TYPE_TINY_BLOB: case MYSQL_TYPE_MEDIUM_BLOB: case MYSQL_TYPE_LONG_BLOB: case MYSQL_TYPE_BLOB:
    case MYSQL_TYPE_STRING: case MYSQL_TYPE_VAR_STRING: case MYSQL_TYPE_VARCHAR:
      return f.charsetnr == 63 ? kind::binary : kind::text;
    default:
      return kind::text;
  }
}

std::string type_name(const MYSQL_FIELD& f) {
  bool bin = f.charsetnr == 63;
  std::string n;
  switch (f.type) {
    case MYSQL_TYPE_TINY: n = "tinyint"; break;
    case MYSQL_TYPE_SHORT: n = "smallint"; break;
    case MYSQL_TYPE_INT24: n = "mediumint"; break;
    case MYSQL_TYPE_LONG: n = "int"; break;
    case MYSQL_TYPE_LONGLONG: n = "bigint"; break;
    case MYSQL_TYPE_YEAR: n = "year"; break;
    case MYSQL_TYPE_FLOAT: n = "float"; break;
    case MYSQL_TYPE_DOUBLE: n = "double"; break;
    case MYSQL_TYPE_DECIMAL: case MYSQL_TYPE_NEWDECIMAL: n = "decimal"; break;
    case MYSQL_TYPE_BIT: n = "bit"; break;
    case MYSQL_TYPE_DATE: case MYSQL_TYPE_NEWDATE: n = "date"; break;
    case MYSQL_TYPE_TIME: n = "time"; break;
    case MYSQL_TYPE_DATETIME: n = "datetime"; break;
    case MYSQL_TYPE_TIMESTAMP: n = "timestamp"; break;
    case MYSQL_TYPE_JSON: n = "json"; break;
    case MYSQL_TYPE_GEOMETRY: n = "geometry"; break;
    case MYSQL_TYPE_NULL: n = "null"; break;
    case MYSQL_TYPE_TINY_BLOB: case MYSQL_TYPE_MEDIUM_BLOB: case MYSQL_TYPE_LONG_BLOB: case MYSQL_TYPE_BLOB:
      n = bin ? "blob" : "text"; break;
    case MYSQL_TYPE_STRING: n = bin ? "binary" : (f.flags & ENUM_FLAG) ? "enum" : (f.flags & SET_FLAG) ? "set" : "char"; break;
    default: n = bin ? "varbinary" : "varchar"; break;
  }
  if ((f.flags & UNSIGNED_FLAG) && kind_of(f) == kind::integer) n += " unsigned";
  return n;
}

void put_text_value(std::string& out, const MYSQL_FIELD& f, std::string_view v) {
  switch (kind_of(f)) {
    case kind::integer: return put_int_text(out, v);
    case kind::floating: return put_double_text(out, v);
    case kind::binary: return put_binary(out, reinterpret_cast<const unsigned char*>(v.data()), v.size());
    default: return put_text(out, v);
  }
}

void describe(MYSQL_FIELD* fields, unsigned n, exec_outcome& out) {
  for (unsigned i = 0; i < n; ++i) {
    column_info c;
    c.name = text_value(std::string_view(fields[i].name, fields[i].name_length)).as_string().c_str();
    c.type = type_name(fields[i]);
    // Only columns of a table carry a meaningful NOT NULL flag.
    if (fields[i].org_table_length > 0) c.nullable = (fields[i].flags & NOT_NULL_FLAG) == 0;
    out.columns.push_back(std::move(c));
  }
}

struct stmt_closer {
  void operator()(MYSQL_STMT* s) const noexcept { mysql_stmt_close(s); }
};
struct res_closer {
  void operator()(MYSQL_RES* r) const noexcept { mysql_free_result(r); }
};

status run_text(my_session& s, std::string_view sql, const exec_options& opts, bool reads_only, exec_outcome& out,
                unsigned& error_no) {
  MYSQL* m = s.handle();
  if (mysql_real_query(m, sql.data(), sql.size()) != 0) {
    error_no = mysql_errno(m);
    if (mysql_errno(m) >= 2000) s.mark_broken();
    return s.error();
  }
  std::unique_ptr<MYSQL_RES, res_closer> res(mysql_use_result(m));
  if (!res) {
    if (mysql_field_count(m) != 0) return s.error();
    out.affected = static_cast<std::int64_t>(mysql_affected_rows(m));
    return {};
  }
  unsigned n = mysql_num_fields(res.get());
  MYSQL_FIELD* fields = mysql_fetch_fields(res.get());
  describe(fields, n, out);
  row_writer rows(out, opts);
  while (MYSQL_ROW row = mysql_fetch_row(res.get())) {
    if (rows.full() || !rows.begin_row()) {
      if (reads_only) break;
      continue;
    }
    unsigned long* len = mysql_fetch_lengths(res.get());
    std::string& text = rows.text();
    for (unsigned i = 0; i < n; ++i) {
      if (i > 0) text.push_back(',');
      if (row[i]) put_text_value(text, fields[i], std::string_view(row[i], len[i]));
      else put_null(text);
    }
    rows.end_row();
  }
  if (!rows.full() && mysql_errno(m) != 0) {
    error_no = mysql_errno(m);
    return s.error();
  }
  res.reset();  // frees (and drains) the rest
  if (mysql_errno(m) >= 2000) s.mark_broken();
  return {};
}

}  // namespace

status my_run_statement(my_session& s, std::string_view sql, const exec_options& opts, bool reads_only,
                        exec_outcome& out, unsigned& error_no) {
  error_no = 0;
  auto fail = [&](MYSQL_STMT* st) -> status {
    error_no = mysql_stmt_errno(st);
    bool on_handle = error_no == 0;  // some failures are reported on the connection only
    if (on_handle) error_no = mysql_errno(s.handle());
    if (error_no >= 2000 || error_no == 0) s.mark_broken();
    return on_handle ? s.error() : s.stmt_error(st);
  };
  std::unique_ptr<MYSQL_STMT, stmt_closer> st(mysql_stmt_init(s.handle()));
  if (!st) return make_error("cannot prepare a MariaDB statement: out of memory");
  if (mysql_stmt_prepare(st.get(), sql.data(), sql.size()) != 0) {
    if (mysql_stmt_errno(st.get()) == ER_UNSUPPORTED_PS) {
      st.reset();
      return run_text(s, sql, opts, reads_only, out, error_no);
    }
    return fail(st.get());
  }
  if (mysql_stmt_param_count(st.get()) != 0) return make_error("the statement has parameter markers (?) but no values");
  if (mysql_stmt_execute(st.get()) != 0) return fail(st.get());
  std::unique_ptr<MYSQL_RES, res_closer> meta(mysql_stmt_result_metadata(st.get()));
  if (!meta) {
    out.affected = static_cast<std::int64_t>(mysql_stmt_affected_rows(st.get()));
    return {};
  }
  unsigned n = mysql_num_fields(meta.get());
  MYSQL_FIELD* fields = mysql_fetch_fields(meta.get());
  describe(fields, n, out);
  std::vector<MYSQL_BIND> bind(n);
  std::vector<unsigned long> len(n);
  std::vector<char> nulls(n);
  std::vector<long long> ints(n);
  std::vector<double> dbls(n);
  for (unsigned i = 0; i < n; ++i) {
    bind[i] = MYSQL_BIND{};
    bind[i].length = &len[i];
    bind[i].is_null = reinterpret_cast<my_bool*>(&nulls[i]);
    switch (kind_of(fields[i])) {
      case kind::integer:
        bind[i].buffer_type = MYSQL_TYPE_LONGLONG;
        bind[i].buffer = &ints[i];
        bind[i].is_unsigned = (fields[i].flags & UNSIGNED_FLAG) != 0;
        break;
      case kind::floating:
        bind[i].buffer_type = MYSQL_TYPE_DOUBLE;
        bind[i].buffer = &dbls[i];
        break;
      default:
        bind[i].buffer_type = MYSQL_TYPE_STRING;  // fetched per value with fetch_column
        break;
    }
  }
  if (mysql_stmt_bind_result(st.get(), bind.data()) != 0) return fail(st.get());
  row_writer rows(out, opts);
  std::string value;  // one string column's bytes, reused
  for (;;) {
    int rc = mysql_stmt_fetch(st.get());
    if (rc == MYSQL_NO_DATA) break;
    if (rc == 1) return fail(st.get());
    if (rows.full()) {
      if (reads_only) break;
      continue;
    }
    // A value longer than the whole byte budget is never fetched (a LONGBLOB could be huge).
    bool too_long = false;
    for (unsigned i = 0; i < n; ++i)
      too_long = too_long || (!nulls[i] && bind[i].buffer_type == MYSQL_TYPE_STRING && len[i] > opts.max_bytes);
    if (too_long) {
      rows.oversized();
      if (reads_only) break;
      continue;
    }
    if (!rows.begin_row()) {
      if (reads_only) break;
      continue;
    }
    std::string& text = rows.text();
    for (unsigned i = 0; i < n; ++i) {
      if (i > 0) text.push_back(',');
      if (nulls[i]) {
        put_null(text);
      } else if (bind[i].buffer_type == MYSQL_TYPE_LONGLONG) {
        if (bind[i].is_unsigned) put_uint(text, static_cast<std::uint64_t>(ints[i]));
        else put_int(text, ints[i]);
      } else if (bind[i].buffer_type == MYSQL_TYPE_DOUBLE) {
        put_double(text, dbls[i]);
      } else {
        value.assign(len[i], '\0');
        MYSQL_BIND b{};
        b.buffer_type = MYSQL_TYPE_STRING;
        b.buffer = value.data();
        b.buffer_length = len[i];
        if (len[i] > 0 && mysql_stmt_fetch_column(st.get(), &b, i, 0) != 0) return fail(st.get());
        put_text_value(text, fields[i], value);
      }
    }
    rows.end_row();
  }
  // Closing the statement discards unread rows; the session stays in sync.
  return {};
}

}  // namespace omgdb::sql::detail
