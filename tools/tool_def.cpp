// omgdb tools — the definition layer: declaring and decoding arguments, running a handler.
#include "tools/tool_def.hpp"
#include "tools/result_bound.hpp"

#include <cmath>
#include <new>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

namespace {

std::string quoted(std::string_view name) { return "argument `" + std::string(name) + "`"; }

// What the description adds about bounds and the default: "; 1 to 10000, default 100."
std::string described(const spec& s, mcp::param_type t) {
  std::string out(s.description);
  std::string extra;
  if (t == mcp::param_type::string) {
    if (s.max) extra = "at most " + std::to_string(*s.max) + " bytes";
  } else if (s.min && s.max) {
    extra = std::to_string(*s.min) + " to " + std::to_string(*s.max);
  } else if (s.min && *s.min > 0) {
    extra = "at least " + std::to_string(*s.min);
  }
  if (!s.default_text.empty()) extra += (extra.empty() ? "default " : ", default ") + std::string(s.default_text);
  if (extra.empty()) return out;
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out + "; " + extra + ".";
}

status in_bounds(std::uint64_t n, std::string_view name, const spec& s) {
  if (s.min && s.max && (n < *s.min || n > *s.max)) {
    return make_error(quoted(name) + " must be " + std::to_string(*s.min) + " to " + std::to_string(*s.max) +
                      ", got " + std::to_string(n));
  }
  if (s.min && n < *s.min) return make_error(quoted(name) + " must be at least " + std::to_string(*s.min));
  return {};
}

// Integers as the dispatcher accepts them: int64, uint64 or an integral double.
std::optional<std::int64_t> integer_of(const bj::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) return static_cast<std::int64_t>(std::min<std::uint64_t>(v.get_uint64(), INT64_MAX));
  if (v.is_double() && std::isfinite(v.get_double()) && std::abs(v.get_double()) < 9e18) {
    return static_cast<std::int64_t>(v.get_double());
  }
  return std::nullopt;
}

template <class T, class Fn>
status elements(const bj::value& v, std::vector<T>& out, std::string_view name, Fn&& one) {
  const auto& items = v.get_array();
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto e = one(items[i]);
    if (!e) return make_error(quoted(name) + ", element " + std::to_string(i) + ": " + e.error().message);
    out.push_back(std::move(*e));
  }
  return {};
}

}  // namespace

status decode(const bj::value& v, std::string& out, std::string_view name, const spec& s) {
  const auto& str = v.get_string();
  if (str.empty() && !s.allow_empty) return make_error(quoted(name) + " must not be empty");
  if (s.max && str.size() > *s.max) {
    return make_error(quoted(name) + " is " + std::to_string(str.size()) + " bytes; at most " +
                      std::to_string(*s.max) + " are accepted");
  }
  out.assign(str.data(), str.size());
  return {};
}

status decode(const bj::value& v, std::uint64_t& out, std::string_view name, const spec& s) {
  auto n = integer_of(v);
  if (!n) return make_error(quoted(name) + " must be an integer");
  if (*n < 0) return make_error(quoted(name) + " must not be negative");
  out = static_cast<std::uint64_t>(*n);
  return in_bounds(out, name, s);
}

status decode(const bj::value& v, std::int64_t& out, std::string_view name, const spec&) {
  auto n = integer_of(v);
  if (!n) return make_error(quoted(name) + " must be an integer");
  out = *n;
  return {};
}

status decode(const bj::value& v, bool& out, std::string_view, const spec&) {
  out = v.get_bool();
  return {};
}

status decode(const bj::value& v, engine::document& out, std::string_view name, const spec&) {
  auto d = engine::document_from_json(v);
  if (!d) return make_error(quoted(name) + ": " + d.error().message);
  out = std::move(*d);
  return {};
}

status decode(const bj::value& v, engine::value& out, std::string_view name, const spec&) {
  auto d = engine::from_json(v);
  if (!d) return make_error(quoted(name) + ": " + d.error().message);
  if (d->is_array()) return make_error(quoted(name) + " must not be an array (an `_id` is never an array)");
  out = std::move(*d);
  return {};
}

status decode(const bj::value& v, bj::value& out, std::string_view, const spec&) {
  out = v;
  return {};
}

status decode(const bj::value& v, engine::array& out, std::string_view name, const spec&) {
  return elements(v, out, name, [](const bj::value& e) { return engine::from_json(e); });
}

status decode(const bj::value& v, std::vector<engine::document>& out, std::string_view name, const spec&) {
  return elements(v, out, name, [](const bj::value& e) { return engine::document_from_json(e); });
}

status decode(const bj::value& v, std::vector<std::string>& out, std::string_view name, const spec&) {
  out.clear();
  for (const bj::value& e : v.get_array()) {
    if (!e.is_string()) return make_error(quoted(name) + " must be an array of strings");
    out.emplace_back(e.get_string().data(), e.get_string().size());
  }
  return {};
}

engine::scan_control call::scan() const {
  engine::scan_control c;
  c.cancelled = ctx.cancelled;
  c.budget = ctx.budget;
  if (ctx.progress) {
    c.progress = [&ctx = ctx](std::uint64_t done, std::uint64_t total) {
      ctx.progress(static_cast<double>(done), static_cast<double>(total), std::string());
    };
  }
  return c;
}

void arg_list::declare(std::string_view name, mcp::param_type t, const spec& s, bool required) {
  schema_->push_back(mcp::param{std::string(name), t, required, described(s, t)});
}

void arg_list::fail(std::string message, std::string_view note) {
  if (error_) error_ = make_error(std::move(message) + std::string(note));
}

status arg_list::confine(std::string& member, auth::path_role role) {
  if (!call_->ctx.paths) return {};
  OMGDB_TRY(confined, call_->ctx.paths->confine(member, role));
  if (confined != member) given_.emplace_back(confined, member);
  member = std::move(confined);
  return {};
}

void arg_list::store(store_ref& member) {
  static constexpr spec path_spec{"The store: a directory made by `omgdb create` (relative paths: from the "
                                  "server's directory, or its first store root over HTTP)."};
  std::string path;
  field("path", path, path_spec, true);
  if (schema_ || !error_) return;
  if (auto st = confine(path, auth::path_role::store); !st) return fail(std::move(st).error().message, {});
  pending_store_ = &member;
  pending_path_ = std::move(path);
}

void arg_list::open_store() {
  // A store that cannot be opened is the call's error even when a later argument was bad too
  // (the store is named first), but a path refused by confinement always wins: nothing is
  // opened for a call that names a file outside the roots.
  if (schema_ || pending_store_ == nullptr || confinement_failed_) return;
  auto opened = call_->env.stores->open(pending_path_);
  if (!opened) {
    error_ = std::move(opened).error();
    return;
  }
  if (!error_) return;
  pending_store_->handle = std::move(*opened);
  store_ = pending_store_->handle;
  pending_store_ = nullptr;
}

void arg_list::collection(std::string& member) {
  field("collection", member, spec{"Collection name."}, true);
  if (!schema_ && error_) collection_ = member;
}

void arg_list::file(std::string_view name, std::string& member, const spec& s) {
  field(name, member, s, true);
  if (schema_ || !error_) return;
  if (auto st = confine(member, auth::path_role::file); !st) {
    confinement_failed_ = true;
    fail(std::move(st).error().message, {});
  }
}

mcp::tool_result json_text(const bj::value& v) {
  mcp::tool_result out;  // not tool_result::text: its braced list would copy the text
  out.texts.push_back(json::serialize(v));
  return out;
}

namespace {

// "collection `user` does not exist; did you mean `users`?" and the like, for a call that
// succeeded on a collection that is not there (its result is empty, as in MongoDB).
std::optional<std::string> missing_collection_note(const engine::store& st, const std::string& name) {
  if (st.has_collection(name)) return std::nullopt;
  std::string note = "Note: collection `" + name + "` does not exist";
  auto all = st.collections();
  if (!all) return note + ".";
  std::vector<std::string> names;
  for (const auto& c : *all) names.push_back(c.name);
  if (names.empty()) return note + "; this store has no collections yet.";
  if (auto hint = engine::closest_name(name, names); !hint.empty()) return note + "; did you mean `" + hint + "`?";
  note += "; its collections are ";
  for (std::size_t i = 0; i < names.size() && i < 10; ++i) note += (i ? ", `" : "`") + names[i] + "`";
  return note + (names.size() > 10 ? " and " + std::to_string(names.size() - 10) + " more." : ".");
}

// Every occurrence of `from` in `text` replaced by `to`, in one pass (a result of many
// matches is copied once, not shifted per match).
void replace_all(std::string& text, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  std::size_t at = text.find(from);
  if (at == std::string::npos) return;
  std::string out;
  out.reserve(text.size());
  std::size_t done = 0;
  for (; at != std::string::npos; at = text.find(from, done)) {
    out.append(text, done, at - done).append(to);
    done = at + from.size();
  }
  out.append(text, done, std::string::npos);
  text = std::move(out);
}

// A path as it appears inside a JSON string of a result's text (quotes and backslashes
// escaped): what replace_all must look for in JSON texts besides the raw form.
std::string json_escaped(std::string_view raw) {
  std::string quoted;
  json::append_quoted(quoted, raw);
  return quoted.size() >= 2 ? quoted.substr(1, quoted.size() - 2) : std::string(raw);
}

void replace_path(std::string& text, std::string_view from, std::string_view to) {
  replace_all(text, from, to);
  if (std::string escaped = json_escaped(from); escaped != from) replace_all(text, escaped, json_escaped(to));
}

// A confined (HTTP) client's results — errors and successful texts alike, and so the
// structuredContent made from them — show paths as it gave them, never the server's absolute
// paths: each resolved path becomes the given one, the models directory is "the server's
// models directory", then what remains under a store root loses the root's prefix, and a
// bare root is "the store root". A document value that happens to hold such a path is shown
// the same way (docs/decisions.md).
void show_given_paths(mcp::tool_result& r, const mcp::call_context& ctx, const arg_list* list, const tool_env& env) {
  if (!ctx.paths) return;
  std::vector<std::pair<std::string, std::string>> swaps;  // in the order they apply
  if (list) {
    for (const auto& [resolved, given] : list->given_paths()) swaps.emplace_back(resolved, given);
  }
  if (env.models) {
    std::string dir = env.models->directory().string();
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.size() > 1 && dir.front() == '/') swaps.emplace_back(dir, "the server's models directory");
  }
  for (const auto& root : ctx.paths->roots()) {
    std::string r_text = root.string();
    while (r_text.size() > 1 && r_text.back() == '/') r_text.pop_back();
    if (r_text.size() <= 1) continue;  // "/" confines nothing, and every '/' would go
    swaps.emplace_back(r_text + "/", "");
    swaps.emplace_back(r_text, "the store root");
  }
  for (auto& text : r.texts) {
    for (const auto& [from, to] : swaps) replace_path(text, from, to);
  }
}

// The error of a call whose cancellation flag was set, saying why; `f` is what the engine
// reported ("cancelled", or "cancelled" with what was committed and where to resume).
failure cancelled_failure(std::string_view name, const mcp::call_context& ctx, const failure& f) {
  std::string detail;
  if (f.message != "cancelled") detail = " (" + f.message + ")";
  const std::string tool = "`" + std::string(name) + "`";
  switch (ctx.why_cancelled()) {
    case mcp::cancel_reason::deadline:
      return make_error(tool + " exceeded the call deadline of " + std::to_string(ctx.deadline.count()) +
                            " ms (set with --call-timeout / [limits] call_timeout_ms); narrow the filter, use "
                            "an index, or page with a limit" + detail,
                        failure_kind::limit_exceeded);
    case mcp::cancel_reason::client_gone:
      return make_error(tool + " stopped: the client went away" + detail, failure_kind::unavailable);
    case mcp::cancel_reason::shutdown:
      return make_error(tool + " stopped: the server is shutting down" + detail, failure_kind::unavailable);
    default:
      return make_error(tool + " was cancelled by the client" + detail, failure_kind::unavailable);
  }
}

}  // namespace

mcp::tool_result run_tool(std::string_view name, bool note_missing, const bj::object& args, mcp::call_context& ctx,
                          const tool_env& env, const std::function<handler_result(arg_list&, const call&)>& body,
                          mcp::result_shape shape) {
  const call c{ctx, env, name};
  try {
    arg_list list(args, c);
    auto r = body(list, c);
    if (!r && ctx.is_cancelled() && r.error().message.find("cancelled") != std::string::npos) {
      auto out = mcp::tool_result::failure(cancelled_failure(name, ctx, r.error()));
      show_given_paths(out, ctx, &list, env);
      return out;
    }
    if (!r) {
      auto out = mcp::tool_result::failure(r.error());
      show_given_paths(out, ctx, &list, env);
      return out;
    }
    show_given_paths(*r, ctx, &list, env);
    if (note_missing && list.named_store() && list.named_collection() && !r->is_error) {
      if (auto note = missing_collection_note(*list.named_store(), *list.named_collection())) {
        r->texts.push_back(std::move(*note));
      }
    }
    bound_result(*r, ctx.max_result_bytes, name, shape);
    return std::move(*r);
  } catch (const std::bad_alloc&) {
    return mcp::tool_result::failure("out of memory while running `" + std::string(name) + "`", failure_kind::internal);
  } catch (const std::exception& e) {
    auto out = mcp::tool_result::failure("internal error in `" + std::string(name) + "`: " + e.what(),
                                         failure_kind::internal);
    show_given_paths(out, ctx, nullptr, env);
    return out;
  }
}

mcp::tool tool_def::make(const tool_env& env) const {
  mcp::tool t;
  t.name = info.name;
  t.description = info.description;
  t.params = params();
  t.hints = info.hints;
  t.required_scope = info.scope;
  t.handler = bind(env);
  t.quick = info.quick;
  t.quick_once_warm = info.quick_once_warm;
  t.shape = info.shape;
  t.waits_for_person = info.needs_sql;  // executeSql may wait for an approval
  return t;
}

}  // namespace omgdb::tools
