// omgdb tools — reading tool arguments after the dispatcher has checked their JSON types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <memory>

#include <boost/json/object.hpp>

#include "common/result.hpp"
#include "engine/store/store.hpp"
#include "engine/value/value.hpp"
#include "mcp/tool.hpp"

namespace omgdb::tools {

// A required string argument; empty strings are refused ("argument `path` must not be empty").
result<std::string> required_string(const boost::json::object& args, std::string_view name);

// An optional non-negative integer argument ("argument `skip` must not be negative").
result<std::optional<std::uint64_t>> optional_count(const boost::json::object& args,
                                                    std::string_view name);

// An object argument as an engine document (Extended JSON wrappers decoded); an absent
// argument is an empty document. Errors name the argument: "argument `filter`: …".
result<engine::document> document_arg(const boost::json::object& args, std::string_view name);

// Any JSON argument as an engine value (for `_id`s); arrays are refused.
result<engine::value> id_arg(const boost::json::object& args, std::string_view name);

// The hooks an engine scan polls, wired to the call's cancellation flag and progress sink.
engine::scan_control scan_hooks(mcp::call_context& ctx);

// The two parameters nearly every document tool takes.
inline const mcp::param p_path{"path", mcp::param_type::string, true};
inline const mcp::param p_collection{"collection", mcp::param_type::string, true};

// A handler over the process's open stores.
using store_handler = mcp::tool_result (*)(engine::store_registry&, const boost::json::object&,
                                           mcp::call_context&);

// A catalogue entry whose handler calls `fn` with the shared store registry.
mcp::tool make_tool(std::shared_ptr<engine::store_registry> stores, std::string name,
                    std::string description, std::vector<mcp::param> params, mcp::annotations hints,
                    auth::scope scope, store_handler fn);

// Opens the store named by the `path` argument.
result<std::shared_ptr<engine::store>> open_store(engine::store_registry& stores,
                                                  const boost::json::object& args);

}  // namespace omgdb::tools
