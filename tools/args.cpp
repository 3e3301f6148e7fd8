#include "tools/args.hpp"

#include <cmath>

#include "auth/paths.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

result<std::string> required_string(const bj::object& args, std::string_view name) {
  auto it = args.find(name);
  if (it == args.end() || !it->value().is_string()) {
    return make_error("missing argument `" + std::string(name) + "`");
  }
  std::string s(it->value().get_string());
  if (s.empty()) return make_error("argument `" + std::string(name) + "` must not be empty");
  return s;
}

result<std::optional<std::uint64_t>> optional_count(const bj::object& args, std::string_view name) {
  auto it = args.find(name);
  if (it == args.end() || it->value().is_null()) return std::optional<std::uint64_t>();
  const bj::value& v = it->value();
  std::int64_t n = 0;
  if (v.is_int64()) n = v.get_int64();
  else if (v.is_uint64()) n = static_cast<std::int64_t>(std::min<std::uint64_t>(v.get_uint64(), INT64_MAX));
  else if (v.is_double() && std::isfinite(v.get_double()) && std::abs(v.get_double()) < 9e18) n = static_cast<std::int64_t>(v.get_double());
  else return make_error("argument `" + std::string(name) + "` must be an integer");
  if (n < 0) return make_error("argument `" + std::string(name) + "` must not be negative");
  return std::optional<std::uint64_t>(static_cast<std::uint64_t>(n));
}

result<engine::document> document_arg(const bj::object& args, std::string_view name) {
  auto it = args.find(name);
  if (it == args.end() || it->value().is_null()) return engine::document{};
  auto d = engine::document_from_json(it->value());
  if (!d) return make_error("argument `" + std::string(name) + "`: " + d.error().message);
  return std::move(d).value();
}

result<engine::value> id_arg(const bj::object& args, std::string_view name) {
  auto it = args.find(name);
  if (it == args.end()) return make_error("missing argument `" + std::string(name) + "`");
  auto v = engine::from_json(it->value());
  if (!v) return make_error("argument `" + std::string(name) + "`: " + v.error().message);
  if (v->is_array()) return make_error("argument `" + std::string(name) + "` must not be an array (an `_id` is never an array)");
  return std::move(v).value();
}

engine::scan_control scan_hooks(mcp::call_context& ctx) {
  engine::scan_control c;
  c.cancelled = ctx.cancelled;
  if (ctx.progress) {
    c.progress = [&ctx](std::uint64_t done, std::uint64_t total) {
      ctx.progress(static_cast<double>(done), static_cast<double>(total), std::string());
    };
  }
  return c;
}

mcp::tool make_tool(std::shared_ptr<engine::store_registry> stores, std::string name, std::string description,
                    std::vector<mcp::param> params, mcp::annotations hints, auth::scope scope, store_handler fn) {
  mcp::tool t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.params = std::move(params);
  t.hints = hints;
  t.required_scope = scope;
  t.handler = [stores = std::move(stores), fn](const bj::object& args, mcp::call_context& ctx) {
    return fn(*stores, args, ctx);
  };
  return t;
}

result<std::shared_ptr<engine::store>> open_store(engine::store_registry& stores, const bj::object& args) {
  auto path = required_string(args, "path");
  if (!path) return std::move(path).error();
  auto confined = auth::confine_store_path(*path);  // `[stores] roots` under `omgdb serve`
  if (!confined) return std::move(confined).error();
  return stores.open(*confined);
}

}  // namespace omgdb::tools
