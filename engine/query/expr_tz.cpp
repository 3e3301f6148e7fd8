// Calendar arithmetic and time zones for the date operators: UTC offsets ("+05:30", "-0800", "+03") and Olson names
// ("Europe/Paris") read from the system's TZif files (/usr/share/zoneinfo, the 64-bit part).
// Instants after a zone's last listed transition keep its last offset (Debian's files list
// transitions up to 2037). Zones are loaded once and kept for the life of the process.
#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>

#include "engine/query/expr_detail.hpp"
#include "engine/value/datetime.hpp"

namespace omgdb::engine::expr_detail {
namespace {

std::int64_t be(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  if (n == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  return static_cast<std::int64_t>(v);
}

bool parse_offset(const std::string& s, std::int32_t& out) {
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return false;
  std::string digits;
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i] == ':' && i == 3) continue;
    if (s[i] < '0' || s[i] > '9') return false;
    digits += s[i];
  }
  if (digits.size() != 2 && digits.size() != 4) return false;
  const int h = std::stoi(digits.substr(0, 2));
  const int m = digits.size() == 4 ? std::stoi(digits.substr(2, 2)) : 0;
  if (h > 23 || m > 59) return false;
  out = (s[0] == '-' ? -1 : 1) * (h * 3600 + m * 60);
  return true;
}

bool load_tzif(const std::string& name, time_zone& z) {
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' || c == '+';
    if (!ok) return false;
  }
  if (name.empty() || name.size() > 64 || name.find("..") != std::string::npos || name.front() == '/') return false;
  std::ifstream in("/usr/share/zoneinfo/" + name, std::ios::binary);
  if (!in) return false;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() < 44 || data.compare(0, 4, "TZif") != 0 || data.size() > (1 << 20)) return false;
  auto header = [&](std::size_t at, std::int64_t c[6]) {
    for (int i = 0; i < 6; ++i) c[i] = be(reinterpret_cast<const unsigned char*>(data.data()) + at + 20 + 4 * i, 4);
  };
  std::int64_t c[6];  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  header(0, c);
  const std::size_t v1 = 44 + c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
  if (data[4] < '2' || data.size() < v1 + 44) return false;
  header(v1, c);
  const auto* p = reinterpret_cast<const unsigned char*>(data.data()) + v1 + 44;
  const std::size_t need = c[3] * 9 + c[4] * 6;
  if (data.size() < v1 + 44 + need || c[4] == 0) return false;
  for (std::int64_t i = 0; i < c[3]; ++i) z.times.push_back(be(p + 8 * i, 8));
  p += 8 * c[3];
  for (std::int64_t i = 0; i < c[3]; ++i) z.types.push_back(p[i]);
  p += c[3];
  for (std::int64_t i = 0; i < c[4]; ++i) z.offsets.push_back(static_cast<std::int32_t>(be(p + 6 * i, 4)));
  for (std::uint8_t t : z.types) {
    if (t >= z.offsets.size()) return false;
  }
  z.fixed = z.offsets.front();
  return true;
}

}  // namespace

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

parts breakdown(std::int64_t local) {
  parts p{};
  p.days = floor_div(local, k_day);
  const std::int64_t ms = local - p.days * k_day;
  const civil_date c = civil_from_days(p.days);
  p.year = c.year;
  p.month = c.month;
  p.day = c.day;
  p.hour = static_cast<int>(ms / 3'600'000);
  p.minute = static_cast<int>(ms / 60'000 % 60);
  p.second = static_cast<int>(ms / 1000 % 60);
  p.millis = static_cast<int>(ms % 1000);
  p.wday = static_cast<int>(((p.days + 4) % 7 + 7) % 7);
  p.yday = static_cast<int>(p.days - days_from_civil(c.year, 1, 1) + 1);
  return p;
}

// Local millis of a calendar date whose fields may overflow (month 14, day 0, hour 25 …).
std::int64_t local_from_fields(std::int64_t year, std::int64_t month, std::int64_t day, std::int64_t hour, std::int64_t minute, std::int64_t second, std::int64_t millis) {
  const std::int64_t m0 = month - 1;
  const std::int64_t y = year + floor_div(m0, 12);
  const auto m = static_cast<unsigned>(m0 - floor_div(m0, 12) * 12 + 1);
  const std::int64_t days = days_from_civil(y, m, 1) + day - 1;
  return days * k_day + hour * 3'600'000 + minute * 60'000 + second * 1000 + millis;
}


std::int32_t time_zone::offset_at(std::int64_t utc_millis) const {
  if (times.empty()) return fixed;
  const std::int64_t secs = utc_millis >= 0 ? utc_millis / 1000 : -((-utc_millis + 999) / 1000);
  auto it = std::upper_bound(times.begin(), times.end(), secs);
  if (it == times.begin()) return fixed;
  return offsets[types[static_cast<std::size_t>(it - times.begin() - 1)]];
}

std::int64_t time_zone::to_utc(std::int64_t local_millis) const {
  // The offset in force at the result; in a gap or overlap, the offset before the change.
  std::int64_t guess = local_millis - std::int64_t{offset_at(local_millis)} * 1000;
  guess = local_millis - std::int64_t{offset_at(guess)} * 1000;
  return local_millis - std::int64_t{offset_at(guess)} * 1000;
}

const time_zone& find_zone(const std::string& name) {
  static const time_zone utc;
  if (name.empty() || name == "UTC" || name == "GMT" || name == "Z" || name == "Etc/UTC") return utc;
  static std::mutex mu;
  static std::map<std::string, time_zone, std::less<>> zones;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = zones.find(name); it != zones.end()) return it->second;
  time_zone z;
  if (!parse_offset(name, z.fixed) && !load_tzif(name, z)) {
    fail("unrecognized time zone identifier: \"" + name + "\" (use an Olson name like \"Europe/Paris\" or a UTC offset like \"+02:00\")");
  }
  if (zones.size() > 1000) fail("too many distinct time zones");
  return zones.emplace(name, std::move(z)).first->second;
}

}  // namespace omgdb::engine::expr_detail
