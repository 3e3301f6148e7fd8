// Fuzz target 1: JSON-RPC lines through the stdio session — the real dispatcher and the
// document tools over a temporary store.
//
// Input: up to 32 lines, each handed to one fresh mcp::session as stdin lines are, with
// `$STORE` replaced by the temporary store's path (as tests/transcripts write it). The session
// is confined to the store's directory (so `dump`, `import_jsonl` and store paths stay in it)
// at read-write scope. Every message the session sends must be one strict JSON object with
// "jsonrpc":"2.0"; no line may crash the process or leave a call running.
#include <filesystem>
#include <random>

#include "auth/paths.hpp"
#include "common/json.hpp"
#include "common/log.hpp"
#include "engine/store/store.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"
#include "mcp/server.hpp"
#include "mcp/session.hpp"
#include "tools/catalog.hpp"

using namespace omgdb;

namespace {

constexpr const char* k_name = "rpc_session";

struct fixture {
  std::filesystem::path dir;
  std::string store_path;
  std::shared_ptr<engine::store_registry> stores;
  std::unique_ptr<mcp::server> server;
  std::shared_ptr<const auth::path_policy> paths;

  fixture() {
    log::set_threshold(log::level::off);
    std::random_device rd;
    dir = std::filesystem::temp_directory_path() / ("omgdb-fuzz-rpc-" + std::to_string(rd()));
    std::filesystem::create_directories(dir);
    store_path = (dir / "app.omgdb").string();
    if (!engine::store::create(store_path).ok()) std::abort();
    stores = std::make_shared<engine::store_registry>();
    mcp::server_options o;
    o.workers = 2;
    o.max_result_bytes = 64 << 10;
    server = std::make_unique<mcp::server>(o, tools::document_tools(stores));
    paths = std::make_shared<auth::path_policy>(std::vector<std::filesystem::path>{dir});
  }
  ~fixture() {
    server.reset();
    stores->close_all();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

fixture& the_fixture() {
  static fixture f;
  return f;
}

std::string with_store(std::string_view line, const std::string& path) {
  std::string out;
  out.reserve(line.size());
  constexpr std::string_view k_var = "$STORE";
  while (true) {
    auto at = line.find(k_var);
    out.append(line.substr(0, at));
    if (at == std::string_view::npos) break;
    out.append(path);
    line.remove_prefix(at + k_var.size());
  }
  return out;
}

void check_message(const mcp::outgoing& m) {
  static const bool verbose = std::getenv("OMGDB_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "< %s\n", m.text.c_str());
  if (m.kind == mcp::message_kind::abandoned) {
    OMGDB_FUZZ_CHECK(k_name, m.text.empty(), m.text);
    return;
  }
  auto j = json::parse_strict(m.text);
  OMGDB_FUZZ_CHECK(k_name, j.ok() && j->is_object(), m.text);
  const auto* version = j->as_object().if_contains("jsonrpc");
  OMGDB_FUZZ_CHECK(k_name, version && version->is_string() && version->as_string() == "2.0", m.text);
  OMGDB_FUZZ_CHECK(k_name, m.text.find('\n') == std::string::npos, "a newline inside one stdio message");
}

}  // namespace

#if defined(OMGDB_LIBFUZZER)
// The store is created before the first input, outside libFuzzer's per-input timeout (its
// fsyncs can take seconds on a busy disk).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  the_fixture();
  return 0;
}
#endif

OMGDB_FUZZ_TARGET(rpc_session) {
  fixture& f = the_fixture();
  auto s = std::make_shared<mcp::session>(*f.server, auth::scope::read_write, [](mcp::outgoing m) { check_message(m); });
  s->set_label("fuzz");
  s->set_path_policy(f.paths);
  s->set_run_quick_inline(true);
  std::uint64_t n = 0;
  for (auto line : fuzz::lines_of(fuzz::text_of(data, size), 32)) {
    s->handle_text(with_store(line, f.store_path), ++n);
  }
  s->end_of_input();
  s->wait_idle();
  return 0;
}
