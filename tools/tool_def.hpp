// omgdb tools — a tool is one definition: `tool_info` (name, description, annotations, scope),
// a typed argument struct and a handler (docs/adding-a-tool.md).
//
// The argument struct lists its fields once, in `void fields(arg_list&)`. The same list gives
// the tool's parameters for `tools/list` (name, JSON type, required, description with bounds
// and default) and decodes a call's arguments into the struct: types checked, bounds enforced,
// Extended JSON decoded, and the declared roles resolved — a store path is confined by the
// calling session's path policy (mcp::call_context::paths) and opened, a file path is
// confined the same way, a collection name is remembered. The handler receives the decoded
// struct and returns a result or a coded failure; `run_tool` turns a failure (or an exception)
// into the error envelope once, and notes when a collection the call named does not exist.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "auth/paths.hpp"
#include "common/result.hpp"
#include "engine/embed/embedder.hpp"
#include "engine/store/store.hpp"
#include "engine/value/value.hpp"
#include "mcp/tool.hpp"
#include "sql/service.hpp"

namespace omgdb::tools {

// What the handlers of one catalogue share: the process's open stores, its SQL service and
// its installed embedding models (any may be null when no tool of the catalogue needs it; a
// tool that needs models and finds none says which model is missing and how to install it).
struct tool_env {
  std::shared_ptr<engine::store_registry> stores;
  std::shared_ptr<sql::service> sql;
  std::shared_ptr<const engine::embed::model_registry> models;
};

// One running call as a handler sees it.
struct call {
  mcp::call_context& ctx;
  const tool_env& env;
  std::string_view tool;  // the tool's name
  // The hooks an engine scan polls: the call's cancellation flag and progress sink.
  engine::scan_control scan() const;
};

// Everything about a tool but its arguments and handler.
struct tool_info {
  std::string_view name;
  std::string_view description;
  mcp::annotations hints;  // readOnlyHint, idempotentHint, destructiveHint (seeds/000 "Safety annotations")
  auth::scope scope = auth::scope::read;
  bool quick = false;                // mcp::tool::quick
  std::string_view quick_once_warm;  // mcp::tool::quick_once_warm
  bool needs_sql = false;            // listed only when the SQL service has connections
  bool note_missing_collection = true;  // false: the tool removes the collection it names
  mcp::result_shape shape = mcp::result_shape::text;  // what a result holds (mcp/structured.hpp)
};

inline constexpr mcp::annotations read_only{true, true, false};
inline constexpr mcp::annotations plain_write{false, false, false};

// One argument's declaration beyond its name and C++ type.
struct spec {
  std::string_view description;
  std::optional<std::uint64_t> min{}, max{};  // integers: bounds; strings: `max` bytes
  std::string_view default_text{};            // told in the description ("default 100")
  std::string_view refused_note{};            // appended to this argument's decode errors
  bool allow_empty = false;                   // strings: "" is a value (else "must not be empty")
};

// A store path argument (`path`), decoded by confining and opening the store.
struct store_ref {
  std::shared_ptr<engine::store> handle;
  engine::store* operator->() const { return handle.get(); }
  engine::store& operator*() const { return *handle; }
};

template <class T> struct arg_type;
template <> struct arg_type<std::string> { static constexpr auto value = mcp::param_type::string; };
template <> struct arg_type<std::uint64_t> { static constexpr auto value = mcp::param_type::integer; };
template <> struct arg_type<std::int64_t> { static constexpr auto value = mcp::param_type::integer; };
template <> struct arg_type<bool> { static constexpr auto value = mcp::param_type::boolean; };
template <> struct arg_type<engine::document> { static constexpr auto value = mcp::param_type::object; };
template <> struct arg_type<engine::value> { static constexpr auto value = mcp::param_type::any; };
template <> struct arg_type<boost::json::value> { static constexpr auto value = mcp::param_type::any; };
template <> struct arg_type<engine::array> { static constexpr auto value = mcp::param_type::array_of_objects; };
template <> struct arg_type<std::vector<engine::document>> {
  static constexpr auto value = mcp::param_type::array_of_objects;
};
template <> struct arg_type<std::vector<std::string>> { static constexpr auto value = mcp::param_type::array; };
template <class T> struct arg_type<std::optional<T>> : arg_type<T> {};

// Decoders from a JSON value of the declared type; errors name the argument.
status decode(const boost::json::value& v, std::string& out, std::string_view name, const spec& s);
status decode(const boost::json::value& v, std::uint64_t& out, std::string_view name, const spec& s);
status decode(const boost::json::value& v, std::int64_t& out, std::string_view name, const spec& s);
status decode(const boost::json::value& v, bool& out, std::string_view name, const spec& s);
status decode(const boost::json::value& v, engine::document& out, std::string_view name, const spec& s);
status decode(const boost::json::value& v, engine::value& out, std::string_view name, const spec& s);  // not an array
status decode(const boost::json::value& v, boost::json::value& out, std::string_view name, const spec& s);
status decode(const boost::json::value& v, engine::array& out, std::string_view name, const spec& s);
status decode(const boost::json::value& v, std::vector<engine::document>& out, std::string_view name, const spec& s);
status decode(const boost::json::value& v, std::vector<std::string>& out, std::string_view name, const spec& s);  // of strings
template <class T>
status decode(const boost::json::value& v, std::optional<T>& out, std::string_view name, const spec& s) {
  T value{};
  OMGDB_CHECK(decode(v, value, name, s));
  out = std::move(value);
  return {};
}

// The visitor an argument struct's `fields` runs: it either declares the parameters or
// decodes a call's arguments (stopping at the first error, in field order).
class arg_list {
 public:
  explicit arg_list(std::vector<mcp::param>& schema) : schema_(&schema) {}
  arg_list(const boost::json::object& args, const call& c) : args_(&args), call_(&c) {}

  template <class T>
  void required(std::string_view name, T& member, const spec& s) { field(name, member, s, true); }
  template <class T>
  void optional(std::string_view name, T& member, const spec& s) { field(name, member, s, false); }
  // The roles. `path`: the store, confined by the session, and opened once every other
  // argument has been decoded and confined (open_store): a store that cannot be opened is
  // still the call's first error, but a file outside the roots is refused before any store is
  // opened or found missing.
  void store(store_ref& member);
  void open_store();
  // `collection`: a collection name (remembered for the note on a missing collection).
  void collection(std::string& member);
  // A file the tool reads, confined by the session like a store path.
  void file(std::string_view name, std::string& member, const spec& s);

  status& error() noexcept { return error_; }
  // The store and collection the call named (kept beyond the argument struct's life).
  const std::shared_ptr<engine::store>& named_store() const noexcept { return store_; }
  const std::optional<std::string>& named_collection() const noexcept { return collection_; }
  // Each confined path as resolved (absolute) and as the client gave it: a confined client's
  // errors show the latter (run_tool).
  const std::vector<std::pair<std::string, std::string>>& given_paths() const noexcept { return given_; }

 private:
  template <class T>
  void field(std::string_view name, T& member, const spec& s, bool required) {
    if (schema_) return declare(name, arg_type<T>::value, s, required);
    if (!error_) return;
    const boost::json::value* v = args_->if_contains(name);
    if (v == nullptr) {
      if (required) fail("missing argument `" + std::string(name) + "`", {});
      return;
    }
    if (auto bad = mcp::type_error(name, arg_type<T>::value, *v)) return fail(std::move(*bad), {});
    if (auto st = decode(*v, member, name, s); !st) fail(std::move(st).error().message, s.refused_note);
  }
  void declare(std::string_view name, mcp::param_type t, const spec& s, bool required);
  void fail(std::string message, std::string_view note);
  status confine(std::string& member, auth::path_role role);

  std::vector<mcp::param>* schema_ = nullptr;
  const boost::json::object* args_ = nullptr;
  const call* call_ = nullptr;
  status error_;
  store_ref* pending_store_ = nullptr;  // set by store(), opened by open_store()
  std::string pending_path_;
  bool confinement_failed_ = false;
  std::shared_ptr<engine::store> store_;
  std::optional<std::string> collection_;
  std::vector<std::pair<std::string, std::string>> given_;
};

// Argument structs most document tools start from: `prefix` declares their fields, before the
// derived struct's own `fields`.
struct no_args {
  void prefix(arg_list&) {}
  void fields(arg_list&) {}
};
struct in_store : no_args {
  store_ref store;
  void prefix(arg_list& a) { a.store(store); }
};
struct in_collection : no_args {
  store_ref store;
  std::string collection;
  void prefix(arg_list& a) {
    a.store(store);
    a.collection(collection);
  }
};

// Descriptions several tools share.
inline constexpr spec filter_spec{"MongoDB-style query filter (docs/query-language.md); {} matches every document."};
inline constexpr spec sort_spec{"Sort specification {field: 1 | -1, …}; default `_id` order."};
inline constexpr spec project_spec{"Projection {field: 1, …} or {field: 0, …}; default whole documents."};
inline constexpr spec update_spec{"Update document with operators such as $set, or a pipeline (docs/update-language.md)."};
inline constexpr spec array_filters_spec{"Filters for the $[identifier] positions of `update`."};
inline constexpr spec max_scanned_spec{"Refuse the call if it would scan more documents than this."};
inline constexpr spec max_mutations_spec{"Refuse the call if it would change more documents than this."};

using handler_result = result<mcp::tool_result>;
template <class Args>
using runner = handler_result (*)(Args&, const call&);

// A text result holding `v` as compact JSON.
mcp::tool_result json_text(const boost::json::value& v);

// Decodes through `body`, runs it, converts a failure or exception into the error envelope
// (once, here), adds the missing-collection note when `note_missing`, and cuts a successful
// result still over the reply limit (tools/result_bound.hpp; `shape` says where it may be cut).
mcp::tool_result run_tool(std::string_view name, bool note_missing, const boost::json::object& args,
                          mcp::call_context& ctx, const tool_env& env,
                          const std::function<handler_result(arg_list&, const call&)>& body,
                          mcp::result_shape shape = mcp::result_shape::text);

struct tool_def {
  tool_info info;
  std::vector<mcp::param> (*params)();
  // Decodes `args` without running the handler (the store is opened): the first error, if any.
  status (*decode)(const boost::json::object& args, const call& c);
  std::function<mcp::tool_handler(const tool_env&)> bind;

  mcp::tool make(const tool_env& env) const;
};

// Runs the struct's field list over `list`: its parameters or its decoded arguments.
template <class Args>
status read_args(Args& a, arg_list& list) {
  a.prefix(list);
  a.fields(list);
  list.open_store();
  return std::move(list.error());
}

template <class Args>
std::vector<mcp::param> params_of() {
  std::vector<mcp::param> out;
  arg_list list(out);
  Args a{};
  (void)read_args(a, list);
  return out;
}

template <class Args>
status decode_only(const boost::json::object& args, const call& c) {
  arg_list list(args, c);
  Args a{};
  return read_args(a, list);
}

// The definition of a tool whose arguments are `Args` and whose handler is `run`; `shape`
// (tool_info::shape) says what its results hold, for structured results.
template <class Args>
tool_def define(tool_info info, runner<Args> run, mcp::result_shape shape = mcp::result_shape::text) {
  info.shape = shape;
  auto bind = [name = info.name, note = info.note_missing_collection, run, shape](const tool_env& env) -> mcp::tool_handler {
    return [name, note, run, env, shape](const boost::json::object& args, mcp::call_context& ctx) {
      return run_tool(
          name, note, args, ctx, env,
          [run](arg_list& list, const call& c) -> handler_result {
            Args a{};
            OMGDB_CHECK(read_args(a, list));
            return run(a, c);
          },
          shape);
    };
  };
  return tool_def{info, &params_of<Args>, &decode_only<Args>, std::move(bind)};
}

}  // namespace omgdb::tools
