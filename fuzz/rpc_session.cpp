// Fuzz target 1: JSON-RPC lines through the stdio session — the real dispatcher and the
// document tools over a temporary store.
//
// Input: up to 32 lines, each handed to one fresh mcp::session as stdin lines are, with
// `$STORE` replaced by the temporary store's path (as tests/transcripts write it). The session
// is confined to the store's directory (so `dump`, `import_jsonl` and store paths stay in it)
// at read-write scope. Every message the session sends must be one strict JSON object with
// "jsonrpc":"2.0"; no line may crash the process or leave a call running.
//
// The store is created once per process, on tmpfs when there is one (scratch_dir.hpp: the
// same RocksDB code, but its fsyncs cost nothing), and emptied after every input through the
// store's own drop_collection (anything else the input left in the directory — a dump, another
// store — is closed and removed), so that each input meets the same empty store and a finding
// replays alone.
#include <filesystem>

#include "auth/paths.hpp"
#include "common/json.hpp"
#include "common/log.hpp"
#include "engine/store/store.hpp"
#include "fuzz/fuzz_docs.hpp"
#include "fuzz/fuzz_target.hpp"
#include "fuzz/scratch_dir.hpp"
#include "mcp/server.hpp"
#include "mcp/session.hpp"
#include "tools/catalog.hpp"

using namespace omgdb;

namespace {

constexpr const char* k_name = "rpc_session";

struct fixture {
  fuzz::scratch_dir scratch{"rpc"};
  std::filesystem::path dir = scratch.path();
  std::string store_path;
  std::shared_ptr<engine::store_registry> stores;
  std::unique_ptr<mcp::server> server;
  std::shared_ptr<const auth::path_policy> paths;

  fixture() {
    log::set_threshold(log::level::off);
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
  }

  // Back to an empty store: every collection dropped, everything else the input wrote removed.
  void reset() {
    std::error_code ec;
    bool stray = false;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().filename() != "app.omgdb") stray = true;
    }
    if (stray) {
      stores->close_all();
      for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        if (e.path().filename() != "app.omgdb") std::filesystem::remove_all(e.path(), ec);
      }
    }
    auto s = stores->open(store_path);
    if (!s) {  // the input removed or broke the store: a new one
      stores->close_all();
      std::filesystem::remove_all(store_path, ec);
      if (!engine::store::create(store_path).ok()) std::abort();
      return;
    }
    auto names = (*s)->collections();
    if (!names) return;
    for (const auto& c : *names) (void)(*s)->drop_collection(c.name);
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
  s.reset();
  f.reset();
  return 0;
}
