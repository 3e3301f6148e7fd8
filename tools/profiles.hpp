// omgdb tools — tool profiles (`[tools] profile`, `--profile`): a server may list only the tools a
// task needs, so an agent's context holds fewer tool descriptions. Opt-in: the default is `all`,
// the seeds' full catalogue. docs/tools.md "Profiles".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mcp/tool.hpp"

namespace omgdb::tools {

// Whether the tool `name` belongs to the profile `profile` (one of config::k_tool_profiles).
bool in_profile(std::string_view profile, std::string_view name);

// Keeps the tools of `profiles`' union (all of them when `profiles` is empty or holds `all`),
// in catalogue order. A tool outside it is neither listed nor callable: the dispatcher answers
// "unknown tool" for it, as for any name the server does not have.
void apply_profiles(std::vector<mcp::tool>& tools, const std::vector<std::string>& profiles);

}  // namespace omgdb::tools
