// omgdb engine — what the date operator files share (private to engine/query/expr_date*.cpp):
// the `timezone` argument, the month names of the format tables, and the operators that
// build dates from parts and text (expr_date_parts.cpp, expr_date_parse.cpp), listed in expr_date.cpp's table.
#pragma once

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine::expr_detail {

// The zone of argument `i` (UTC when absent); nullptr when it evaluates to null.
const time_zone* zone_arg(const op_node& self, std::size_t i, eval_ctx& ctx);

// "January" … "December" (%B; %b is the first three letters).
extern const char* const k_month_names[12];

// Local days since the epoch of Monday, ISO week 1 of `year` (the week holding January 4th).
std::int64_t iso_week_one(std::int64_t year);

// expr_date_parts.cpp and expr_date_parse.cpp
expr_value date_from_parts_op(const op_node& self, eval_ctx& ctx);
expr_value date_from_string_op(const op_node& self, eval_ctx& ctx);
status check_date_from_parts(const document& args);   // the spec's shape, at compile time
status check_date_from_string(const document& args);  // a literal `format`, at compile time

// $dateFromParts' parameters, in the order date_from_parts_op reads them.
inline constexpr std::string_view k_date_from_parts_params =
    "year?,month?,day?,hour?,minute?,second?,millisecond?,timezone?,isoWeekYear?,isoWeek?,isoDayOfWeek?";

}  // namespace omgdb::engine::expr_detail
