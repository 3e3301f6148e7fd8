// omgdb config (internal) — typed, position-aware reads from one toml++ table.
#include "config/toml_reader.hpp"

#include <cstdlib>
#include <limits>

namespace omgdb::config::detail {

std::string where(std::string_view file, const toml::source_region& at, std::string_view message) {
  std::string out(file);
  if (at.begin.line > 0) {
    out += ":" + std::to_string(at.begin.line) + ":" + std::to_string(at.begin.column);
  }
  out += ": ";
  out += message;
  return out;
}

result<std::string> interpolate(std::string_view text, const getenv_fn& getenv) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t at = text.find("${", i);
    if (at == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, at - i));
    std::size_t close = text.find('}', at);
    if (text.substr(at + 2, 4) != "env:" || close == std::string_view::npos) {
      return make_error("`${` must start an environment reference `${env:NAME}`");
    }
    std::string name(text.substr(at + 6, close - at - 6));
    bool ok = !name.empty() && !(name[0] >= '0' && name[0] <= '9');
    for (char c : name) {
      ok = ok && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
    }
    if (!ok) return make_error("`${env:" + name + "}` does not name an environment variable ([A-Za-z_][A-Za-z0-9_]*)");
    const char* value = getenv ? getenv(name.c_str()) : std::getenv(name.c_str());
    if (!value) return make_error("environment variable " + name + " is not set (referenced as `${env:" + name + "}`)");
    out.append(value);
    i = close + 1;
  }
  return out;
}

std::string table_reader::name(std::string_view key) const {
  return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
}

const toml::node* table_reader::take(std::string_view key) {
  seen_.emplace(key);
  if (sink_.failed()) return nullptr;
  return table_.get(key);
}

bool table_reader::has(std::string_view key) {
  seen_.emplace(key);
  return table_.contains(key);
}

void table_reader::fail(std::string_view key, std::string_view message) {
  const toml::node* n = table_.get(key);
  sink_.report(n ? n->source() : table_.source(), message);
}

void table_reader::str(std::string_view key, std::string& out) {
  const toml::node* n = take(key);
  if (!n) return;
  const auto* s = n->as_string();
  if (!s) return sink_.report(n->source(), "`" + name(key) + "` must be a string");
  auto v = interpolate(s->get(), sink_.getenv);
  if (!v) return sink_.report(n->source(), "`" + name(key) + "`: " + v.error().message);
  out = std::move(*v);
}

void table_reader::boolean(std::string_view key, bool& out) {
  const toml::node* n = take(key);
  if (!n) return;
  const auto* b = n->as_boolean();
  if (!b) return sink_.report(n->source(), "`" + name(key) + "` must be true or false");
  out = b->get();
}

void table_reader::integer(std::string_view key, std::int64_t lo, std::int64_t hi, std::int64_t& out) {
  const toml::node* n = take(key);
  if (!n) return;
  const auto* i = n->as_integer();
  if (!i) return sink_.report(n->source(), "`" + name(key) + "` must be an integer");
  std::int64_t v = i->get();
  if (v < lo || v > hi) {
    return sink_.report(n->source(), "`" + name(key) + "` must be between " + std::to_string(lo) + " and " +
                                         std::to_string(hi) + ", not " + std::to_string(v));
  }
  out = v;
}

void table_reader::duration(std::string_view key, std::chrono::milliseconds lo, std::chrono::milliseconds hi,
                            std::chrono::milliseconds& out) {
  const toml::node* n = take(key);
  if (!n) return;
  std::optional<std::chrono::milliseconds> v;
  if (const auto* i = n->as_integer()) {
    if (i->get() >= 0 && i->get() <= std::numeric_limits<std::int32_t>::max()) v = std::chrono::seconds(i->get());
  } else if (const auto* s = n->as_string()) {
    v = parse_duration(s->get());
  } else {
    return sink_.report(n->source(), "`" + name(key) + "` must be seconds (an integer) or a duration such as \"30s\"");
  }
  if (!v) return sink_.report(n->source(), "`" + name(key) + "` is not a duration: use e.g. 30, \"30s\", \"1500ms\" or \"2m\"");
  if (*v < lo || *v > hi) {
    return sink_.report(n->source(), "`" + name(key) + "` must be between " + std::to_string(lo.count()) + " ms and " +
                                         std::to_string(hi.count()) + " ms");
  }
  out = *v;
}

void table_reader::seconds(std::string_view key, std::chrono::seconds lo, std::chrono::seconds hi,
                           std::chrono::seconds& out) {
  std::chrono::milliseconds ms = out;
  duration(key, lo, hi, ms);
  if (ms.count() % 1000 != 0 && !sink_.failed()) return fail(key, "`" + name(key) + "` must be whole seconds");
  out = std::chrono::duration_cast<std::chrono::seconds>(ms);
}

void table_reader::strings(std::string_view key, std::vector<std::string>& out) {
  const toml::node* n = take(key);
  if (n) strings_of(*n, key, out);
}

void table_reader::string_or_strings(std::string_view key, std::vector<std::string>& out) {
  const toml::node* n = take(key);
  if (!n) return;
  if (const auto* s = n->as_string()) {
    auto v = interpolate(s->get(), sink_.getenv);
    if (!v) return sink_.report(n->source(), "`" + name(key) + "`: " + v.error().message);
    out = {std::move(*v)};
    return;
  }
  strings_of(*n, key, out);
}

void table_reader::strings_of(const toml::node& n, std::string_view key, std::vector<std::string>& out) {
  const auto* a = n.as_array();
  if (!a) return sink_.report(n.source(), "`" + name(key) + "` must be an array of strings");
  std::vector<std::string> values;
  for (const auto& item : *a) {
    const auto* s = item.as_string();
    if (!s) return sink_.report(item.source(), "`" + name(key) + "` must contain only strings");
    auto v = interpolate(s->get(), sink_.getenv);
    if (!v) return sink_.report(item.source(), "`" + name(key) + "`: " + v.error().message);
    values.push_back(std::move(*v));
  }
  out = std::move(values);
}

const toml::table* table_reader::table(std::string_view key) {
  const toml::node* n = take(key);
  if (!n) return nullptr;
  const auto* t = n->as_table();
  if (!t) sink_.report(n->source(), "`" + name(key) + "` must be a table ([" + name(key) + "])");
  return t;
}

std::vector<const toml::table*> table_reader::tables(std::string_view key) {
  std::vector<const toml::table*> out;
  const toml::node* n = take(key);
  if (!n) return out;
  const auto* a = n->as_array();
  if (!a) {
    sink_.report(n->source(), "`" + name(key) + "` must be an array of tables ([[" + name(key) + "]])");
    return out;
  }
  for (const auto& item : *a) {
    const auto* t = item.as_table();
    if (!t) {
      sink_.report(item.source(), "`" + name(key) + "` must contain only tables ([[" + name(key) + "]])");
      return {};
    }
    out.push_back(t);
  }
  return out;
}

void table_reader::finish() {
  if (sink_.failed()) return;
  for (const auto& [key, value] : table_) {
    if (seen_.count(key.str())) continue;
    sink_.report(key.source().begin.line > 0 ? key.source() : value.source(),
                 "unknown key `" + name(key.str()) + "`");
    return;
  }
}

}  // namespace omgdb::config::detail
