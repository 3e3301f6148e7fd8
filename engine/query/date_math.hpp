// omgdb engine — calendar arithmetic on dates, shared by the date operators ($dateAdd,
// $dateDiff, $dateTrunc in expr_date.cpp) and by the aggregation stages that step over dates
// ($setWindowFields range windows with a `unit`). One implementation of the calendar.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace omgdb::engine {

// MongoDB's time units, longest first.
enum class date_unit { year, quarter, month, week, day, hour, minute, second, millisecond };

// "year" … "millisecond"; nullopt for anything else.
std::optional<date_unit> parse_date_unit(std::string_view name);
// The length of a unit of a week or shorter in milliseconds; 0 for month, quarter and year,
// whose length varies.
std::int64_t date_unit_millis(date_unit u);
// `utc` (milliseconds since the epoch) plus `amount` units on the UTC calendar, as $dateAdd
// without a timezone: months clamp to the end of the month (Jan 31 + 1 month = Feb 28/29).
// nullopt when the result leaves the range of a 64-bit millisecond count.
std::optional<std::int64_t> date_add_utc(std::int64_t utc, date_unit u, std::int64_t amount);

}  // namespace omgdb::engine
