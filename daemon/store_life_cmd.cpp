// `omgdb backup | restore | load | oplog trim | oplog retention` and `omgdb doctor STORE`
// (docs/backup.md), and the admin-channel ops through which a serving daemon backs up or trims
// a store it holds.
//
// A store held by another process is never opened behind its back: the command asks the
// holder (its pid is in the store's lock file) over its admin socket, as `omgdb approvals`
// does; a store nobody holds is opened directly.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "common/json.hpp"
#include "daemon/commands.hpp"
#include "engine/store/line_reader.hpp"
#include "engine/store/process_defaults.hpp"
#include "engine/store/store.hpp"
#include "sql/admin.hpp"

namespace omgdb::daemon {
namespace bj = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr int k_backup_timeout_ms = 6 * 3600 * 1000;  // a backup of a large store may take long

std::string absolute(const std::string& p) {
  std::error_code ec;
  auto a = fs::absolute(p, ec);
  return ec ? p : a.lexically_normal().string();
}

std::uint64_t u64_of(const bj::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return 0;
  if (v->is_uint64()) return v->get_uint64();
  if (v->is_int64() && v->get_int64() >= 0) return static_cast<std::uint64_t>(v->get_int64());
  return 0;
}

std::string str_of(const bj::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

bj::object refuse(const std::string& m) { return bj::object{{"ok", false}, {"error", m}}; }

bj::object backup_answer(const engine::store::backup_result& b) {
  return bj::object{{"ok", true},         {"backupId", b.backup_id}, {"seq", b.seq},
                    {"bytes", b.bytes},   {"newBytes", b.new_bytes}, {"kept", b.kept}};
}

bj::object trim_answer(const engine::store::trim_result& t) {
  return bj::object{{"ok", true},           {"trimmedThrough", t.trimmed_through}, {"records", t.records},
                    {"bytes", t.bytes},     {"keptRecords", t.kept_records},       {"keptBytes", t.kept_bytes},
                    {"limitBytes", t.limit_bytes}};
}

// Asks the process holding `path` to run `request`; nullopt when nobody holds it (open it).
std::optional<result<bj::object>> ask_holder(const std::string& path, bj::object request) {
  auto holder = engine::store_lock_holder(path);
  if (!holder) return std::nullopt;
  const fs::path dir = sql::admin_socket_dir();
  const fs::path socket = dir / (std::to_string(*holder) + ".sock");
  std::error_code ec;
  if (*holder <= 0 || dir.empty() || !fs::exists(socket, ec)) {
    return result<bj::object>(make_error(
        "store `" + path + "` is in use by process " + std::to_string(*holder) +
        ", which has no admin socket in " + (dir.empty() ? std::string("(no runtime directory)") : dir.string()) +
        ": run the command as the user that runs it, with the same XDG_RUNTIME_DIR, or stop it"));
  }
  request["store"] = absolute(path);
  auto answer = sql::admin_request(socket, request, k_backup_timeout_ms);
  if (!answer) return result<bj::object>(std::move(answer).error());
  if (!(*answer)["ok"].is_bool() || !(*answer)["ok"].as_bool()) {
    return result<bj::object>(make_error(str_of(*answer, "error")));
  }
  return result<bj::object>(std::move(*answer));
}

int fail(const std::string& message, int code = 1) {
  std::cerr << "omgdb: " << message << "\n";
  return code;
}

int run_backup(const std::string& path, const std::string& dir, std::uint32_t keep) {
  bj::object answer;
  if (auto asked = ask_holder(path, bj::object{{"op", "backup"}, {"dir", absolute(dir)}, {"keep", keep}})) {
    if (!*asked) return fail(asked->error().message);
    answer = std::move(**asked);
  } else {
    auto st = engine::store::open(path);
    if (!st) return fail(st.error().message);
    auto b = (*st)->backup(dir, keep);
    if (!b) return fail(b.error().message);
    answer = backup_answer(*b);
  }
  std::cout << "backup " << u64_of(answer, "backupId") << " of store " << path << " is consistent at op-log seq "
            << u64_of(answer, "seq") << " (" << u64_of(answer, "newBytes") << " new bytes, "
            << u64_of(answer, "bytes") << " in all; " << u64_of(answer, "kept") << " backup(s) in " << dir << ")\n";
  return 0;
}

int run_restore(const std::string& dir, const std::string& path, bool force, std::optional<std::uint32_t> id) {
  auto r = engine::store::restore(dir, path, force, id);
  if (!r) return fail(r.error().message);
  if (!r->moved_aside.empty()) std::cout << "moved the existing " << path << " aside to " << r->moved_aside << "\n";
  std::cout << "restored backup " << r->backup_id << " into " << path << " (op-log seq " << r->seq << ")\n";
  return 0;
}

int run_load(const std::string& path, const std::string& file) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    if (auto c = engine::store::create(path); !c) return fail(c.error().message);
  }
  auto st = engine::store::open(path);
  if (!st) return fail(st.error().message);
  auto reader = engine::line_reader::open(file, std::size_t{64} << 20, nullptr);
  if (!reader) return fail(reader.error().message);
  auto r = (*st)->load([&](std::string& line) -> result<bool> {
    for (;;) {
      auto got = reader->next(line);
      if (!got) return std::move(got).error();
      if (*got == engine::line_reader::got::end) return false;
      if (*got == engine::line_reader::got::too_long) return make_error("a line longer than 64 MiB");
      return true;
    }
  });
  if (!r) return fail(r.error().message);
  std::cout << "loaded " << r->documents << " document(s) in " << r->collections << " collection(s), "
            << r->indexes << " index(es), into " << path << "\n";
  return 0;
}

int run_trim(const std::string& path, bool dry_run) {
  bj::object answer;
  if (auto asked = dry_run ? std::nullopt : ask_holder(path, bj::object{{"op", "oplog_trim"}})) {
    if (!*asked) return fail(asked->error().message);
    answer = std::move(**asked);
  } else {
    auto st = engine::store::open(path);
    if (!st) return fail(st.error().message);
    auto t = (*st)->trim_oplog(dry_run);
    if (!t) return fail(t.error().message);
    answer = trim_answer(*t);
  }
  std::cout << (dry_run ? "would trim " : "trimmed ") << u64_of(answer, "records") << " op-log record(s) ("
            << u64_of(answer, "bytes") << " bytes); kept " << u64_of(answer, "keptRecords") << " ("
            << u64_of(answer, "keptBytes") << " bytes, limit " << u64_of(answer, "limitBytes")
            << "); the op-log now starts after seq " << u64_of(answer, "trimmedThrough") << "\n";
  return 0;
}

int run_retention(const std::string& path, std::optional<std::uint64_t> max_bytes, std::optional<std::uint64_t> max_age) {
  auto st = engine::store::open(path);
  if (!st) return fail(st.error().message);
  auto r = (*st)->retention_setting();
  if (!r) return fail(r.error().message);
  if (max_bytes || max_age) {
    if (max_bytes) r->max_bytes = *max_bytes;
    if (max_age) r->max_age_seconds = *max_age;
    if (auto s = (*st)->set_retention(*r); !s) return fail(s.error().message);
  }
  std::cout << json::serialize(bj::object{{"maxBytes", r->max_bytes}, {"maxAgeSeconds", r->max_age_seconds}}) << "\n";
  return 0;
}

}  // namespace

int run_store_doctor(const std::string& path) {
  if (auto holder = engine::store_lock_holder(path)) {
    return fail("store `" + path + "` is in use by process " + std::to_string(*holder) +
                "; run `omgdb doctor " + path + "` when it is stopped (sizes need the store open)");
  }
  auto st = engine::store::open(path);
  if (!st) return fail(st.error().message);
  auto s = (*st)->sizes();
  if (!s) return fail(s.error().message);
  auto mib = [](std::uint64_t n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(n) / (1 << 20));
    return std::string(buf);
  };
  std::cout << "store " << path << ": " << mib(s->total_bytes) << " on disk\n"
            << "  live documents  " << mib(s->documents) << "\n"
            << "  indexes         " << mib(s->indexes) << "\n"
            << "  op-log          " << mib(s->oplog) << " (~" << s->oplog_records << " records"
            << (s->trimmed_through ? ", kept after seq " + std::to_string(s->trimmed_through) : std::string()) << ")\n"
            << "  search          " << mib(s->search) << "\n"
            << "  vectors         " << mib(s->vectors) << "\n"
            << "  catalog, plans  " << mib(s->meta) << "\n"
            << "  write-ahead log " << mib(s->wal) << "\n"
            << "retention would free " << mib(s->trimmable_bytes) << " of op-log records now (`omgdb oplog trim "
            << path << "`)\n";
  return 0;
}

void apply_store_limits(const config::settings& s) {
  engine::set_default_write_budget(s.write_budget_bytes);
  engine::set_default_stage_bytes(static_cast<std::size_t>(s.aggregation_stage_bytes));
}

void serve_store_admin(std::shared_ptr<engine::store_registry> stores) {
  sql::set_admin_extension([stores](const bj::object& req) -> std::optional<bj::object> {
    const std::string op = str_of(req, "op");
    if (op != "backup" && op != "oplog_trim") return std::nullopt;
    const std::string path = str_of(req, "store");
    if (path.empty()) return refuse("`" + op + "` needs a `store`");
    if (engine::store_lock_holder(path) != std::optional<long>(static_cast<long>(::getpid()))) {
      return refuse("this process does not hold store `" + path + "`");
    }
    auto st = stores->open(path);
    if (!st) return refuse(st.error().message);
    if (op == "backup") {
      const std::string dir = str_of(req, "dir");
      if (dir.empty()) return refuse("`backup` needs a `dir`");
      auto b = (*st)->backup(dir, static_cast<std::uint32_t>(u64_of(req, "keep")));
      if (!b) return refuse(b.error().message);
      return backup_answer(*b);
    }
    auto t = (*st)->trim_oplog(false);
    if (!t) return refuse(t.error().message);
    return trim_answer(*t);
  });
}

std::function<std::optional<int>()> add_store_life_commands(CLI::App& app) {
  struct args {
    std::string path, dir, file;
    std::uint32_t keep = 0;
    bool force = false, dry_run = false;
    std::optional<std::uint32_t> id;
    std::optional<std::uint64_t> max_bytes, max_age;
  };
  auto a = std::make_shared<args>();
  auto* backup = app.add_subcommand("backup", "Back up a store into a backup directory, incrementally, even while a "
                                              "daemon serves it; prints the op-log seq it is consistent at");
  backup->add_option("STORE", a->path, "Store directory")->required();
  backup->add_option("DIR", a->dir, "Backup directory (created when missing; RocksDB BackupEngine layout)")->required();
  backup->add_option("--keep", a->keep, "Keep only the newest N backups (default: all)");
  auto* restore = app.add_subcommand("restore", "Make a new store from the newest backup in DIR");
  restore->add_option("DIR", a->dir, "Backup directory")->required();
  restore->add_option("STORE", a->path, "Store directory to create")->required();
  restore->add_flag("--force", a->force, "Restore over an existing store, moving it aside to STORE.replaced-<time>");
  restore->add_option_function<std::uint32_t>("--id", [a](std::uint32_t v) { a->id = v; }, "Restore this backup id");
  auto* load = app.add_subcommand("load", "Read a `dump` back into an empty (or new) store: documents, indexes, rules");
  load->add_option("STORE", a->path, "Store directory (created when missing; must hold no collection)")->required();
  load->add_option("FILE", a->file, "The dump file")->required();
  auto* oplog = app.add_subcommand("oplog", "The op-log's retention (docs/backup.md)");
  oplog->require_subcommand(1);
  auto* trim = oplog->add_subcommand("trim", "Apply the store's op-log retention now");
  trim->add_option("STORE", a->path, "Store directory")->required();
  trim->add_flag("--dry-run", a->dry_run, "Only say what would be trimmed (the store must not be in use)");
  auto* retention = oplog->add_subcommand("retention", "Show or set the store's op-log retention");
  retention->add_option("STORE", a->path, "Store directory")->required();
  retention->add_option_function<std::uint64_t>("--max-bytes", [a](std::uint64_t v) { a->max_bytes = v; },
                                                "Keep the newest N bytes of records (0: twice the live data, at least 64 MiB)");
  retention->add_option_function<std::uint64_t>("--max-age", [a](std::uint64_t v) { a->max_age = v; },
                                                "Trim records older than N seconds (0: no age bound; default 30 days)");
  return [=]() -> std::optional<int> {
    if (*backup) return run_backup(a->path, a->dir, a->keep);
    if (*restore) return run_restore(a->dir, a->path, a->force, a->id);
    if (*load) return run_load(a->path, a->file);
    if (*trim) return run_trim(a->path, a->dry_run);
    if (*retention) return run_retention(a->path, a->max_bytes, a->max_age);
    return std::nullopt;
  };
}

}  // namespace omgdb::daemon
