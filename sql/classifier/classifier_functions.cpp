// omgdb sql — side-effect functions the classifier refuses in read-only statements, and the
// SQLite PRAGMA allow-list (also used for the pragma_* table-valued functions).
//
// The function list is checked for every dialect: a name that has an effect on one server is
// never a harmless read on another, and a connection declared with the wrong dialect must not
// open a hole. A name matches when it is called — a word or quoted identifier followed by `(`,
// after any schema qualification (`pg_catalog.set_config(`, `"set_config"(`).
#include "sql/classifier/classifier_functions.hpp"


namespace omgdb::sql::detail {

namespace {

struct side_effect_fn {
  std::string_view name;  // upper case
  bool prefix;            // matches every name starting with `name`
  std::string_view effect;
};

constexpr std::string_view k_setting = "changes a server or session setting";
constexpr std::string_view k_signal = "signals or reconfigures server processes";
constexpr std::string_view k_lock = "takes or releases a lock that outlives the statement";
constexpr std::string_view k_notify = "sends a notification to other sessions";
constexpr std::string_view k_large_object = "creates, changes or exports large objects";
constexpr std::string_view k_file = "reads or writes files on the database server";
constexpr std::string_view k_remote = "connects to another database and can run any SQL there";
constexpr std::string_view k_resource = "sleeps or burns server time on purpose";
constexpr std::string_view k_sequence = "advances or sets a sequence, which a rollback does not undo";
constexpr std::string_view k_xid = "assigns a transaction id";
constexpr std::string_view k_wal = "writes WAL, replication or backup state";
constexpr std::string_view k_sql_text = "runs SQL text passed as a string";
constexpr std::string_view k_extension = "loads native code into the server";

constexpr side_effect_fn k_functions[] = {
    // PostgreSQL
    {"SET_CONFIG", false, k_setting},
    {"PG_TERMINATE_BACKEND", false, k_signal},
    {"PG_CANCEL_BACKEND", false, k_signal},
    {"PG_RELOAD_CONF", false, k_signal},
    {"PG_ROTATE_LOGFILE", false, k_signal},
    {"PG_PROMOTE", false, k_signal},
    {"PG_LOG_BACKEND_MEMORY_CONTEXTS", false, k_signal},
    {"PG_ADVISORY_", true, k_lock},
    {"PG_TRY_ADVISORY_", true, k_lock},
    {"PG_NOTIFY", false, k_notify},
    {"LO_", true, k_large_object},
    {"LOWRITE", false, k_large_object},
    {"PG_READ_FILE", false, k_file},
    {"PG_READ_BINARY_FILE", false, k_file},
    {"PG_LS_", true, k_file},
    {"PG_STAT_FILE", false, k_file},
    {"PG_FILE_", true, k_file},
    {"PG_LOGDIR_LS", false, k_file},
    {"DBLINK", true, k_remote},
    {"PG_BACKGROUND_", true, k_remote},
    {"PG_SLEEP", true, k_resource},
    {"NEXTVAL", false, k_sequence},
    {"SETVAL", false, k_sequence},
    {"TXID_CURRENT", false, k_xid},
    {"PG_CURRENT_XACT_ID", false, k_xid},
    {"PG_SWITCH_WAL", false, k_wal},
    {"PG_SWITCH_XLOG", false, k_wal},
    {"PG_CREATE_RESTORE_POINT", false, k_wal},
    {"PG_LOGICAL_", true, k_wal},
    {"PG_CREATE_", true, k_wal},
    {"PG_DROP_REPLICATION_SLOT", false, k_wal},
    {"PG_COPY_", true, k_wal},
    {"PG_REPLICATION_", true, k_wal},
    {"PG_WAL_REPLAY_", true, k_wal},
    {"PG_BACKUP_", true, k_wal},
    {"PG_START_BACKUP", false, k_wal},
    {"PG_STOP_BACKUP", false, k_wal},
    {"PG_IMPORT_SYSTEM_COLLATIONS", false, k_wal},
    {"PG_STAT_RESET", true, k_setting},
    {"PG_STAT_STATEMENTS_RESET", false, k_setting},
    {"QUERY_TO_XML", true, k_sql_text},
    {"CURSOR_TO_XML", true, k_sql_text},
    {"PG_EXECUTE_SERVER_PROGRAM", false, k_file},
    // MySQL / MariaDB
    {"SLEEP", false, k_resource},
    {"BENCHMARK", false, k_resource},
    {"GET_LOCK", false, k_lock},
    {"RELEASE_LOCK", false, k_lock},
    {"RELEASE_ALL_LOCKS", false, k_lock},
    {"LOAD_FILE", false, k_file},
    {"MASTER_POS_WAIT", false, k_resource},
    {"SOURCE_POS_WAIT", false, k_resource},
    {"MASTER_GTID_WAIT", false, k_resource},
    {"WAIT_FOR_EXECUTED_GTID_SET", false, k_resource},
    {"WAIT_UNTIL_SQL_THREAD_AFTER_GTIDS", false, k_resource},
    {"SYS_EXEC", false, k_file},
    {"SYS_EVAL", false, k_file},
    {"SETSEQVAL", false, k_sequence},
    // SQL Server (T-SQL): rowset functions that reach other servers or the server's files
    {"OPENQUERY", false, k_remote},
    {"OPENROWSET", false, k_remote},
    {"OPENDATASOURCE", false, k_remote},
    {"FN_GET_AUDIT_FILE", false, k_file},
    {"FN_XE_FILE_TARGET_READ_FILE", false, k_file},
    {"FN_TRACE_GETTABLE", false, k_file},
    {"FN_DUMP_DBLOG", false, k_file},
    {"DM_OS_FILE_EXISTS", false, k_file},
    {"XP_CMDSHELL", false, k_file},
    // SQLite (core and the CLI / common extensions)
    {"LOAD_EXTENSION", false, k_extension},
    {"WRITEFILE", false, k_file},
    {"READFILE", false, k_file},
    {"EDIT", false, k_file},
    {"FSDIR", false, k_file},
    {"ZIPFILE", false, k_file},
    {"FILEIO_", true, k_file},
    {"LINES_READ", false, k_file},
    {"FTS3_TOKENIZER", false, k_extension},
    {"EVAL", false, k_sql_text},
    {"SQLITE_DBPAGE", false, k_file},
    {"SHELL_EXEC", false, k_file},
};

bool starts_with(std::string_view s, std::string_view p) noexcept {
  return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

// Pragmas that only report (never change) state when given no value, plus the ones whose
// parenthesised argument is a table, index or schema to report on.
constexpr std::string_view k_pragma_reads[] = {
    "APPLICATION_ID", "USER_VERSION", "SCHEMA_VERSION", "DATA_VERSION", "JOURNAL_MODE",
    "PAGE_SIZE", "PAGE_COUNT", "MAX_PAGE_COUNT", "FREELIST_COUNT", "ENCODING", "FOREIGN_KEYS",
    "AUTO_VACUUM", "CACHE_SIZE", "BUSY_TIMEOUT", "SYNCHRONOUS", "TEMP_STORE", "QUERY_ONLY",
    "RECURSIVE_TRIGGERS", "SECURE_DELETE", "MMAP_SIZE", "LOCKING_MODE", "LEGACY_ALTER_TABLE",
    "TRUSTED_SCHEMA", "CELL_SIZE_CHECK", "DEFER_FOREIGN_KEYS", "AUTOMATIC_INDEX",
    "JOURNAL_SIZE_LIMIT", "WAL_AUTOCHECKPOINT", "DATABASE_LIST", "COLLATION_LIST",
    "FUNCTION_LIST", "MODULE_LIST", "PRAGMA_LIST", "COMPILE_OPTIONS", "TABLE_LIST",
    "TABLE_INFO", "TABLE_XINFO", "INDEX_LIST", "INDEX_INFO", "INDEX_XINFO", "FOREIGN_KEY_LIST",
};
constexpr std::string_view k_pragma_with_argument[] = {
    "TABLE_INFO", "TABLE_XINFO", "INDEX_LIST", "INDEX_INFO", "INDEX_XINFO", "FOREIGN_KEY_LIST",
    "FOREIGN_KEY_CHECK", "INTEGRITY_CHECK", "QUICK_CHECK", "TABLE_LIST",
};
constexpr std::string_view k_pragma_checks[] = {
    "FOREIGN_KEY_CHECK", "INTEGRITY_CHECK", "QUICK_CHECK",
};

template <std::size_t N>
bool contains(const std::string_view (&a)[N], std::string_view s) noexcept {
  for (auto x : a)
    if (x == s) return true;
  return false;
}

}  // namespace

std::optional<std::string_view> side_effect_of(std::string_view upper_name) noexcept {
  if (upper_name.empty() || upper_name.size() > 64) return std::nullopt;
  for (const auto& f : k_functions) {
    if (f.prefix ? starts_with(upper_name, f.name) : upper_name == f.name) return f.effect;
  }
  return std::nullopt;
}

bool pragma_reads(std::string_view upper_name) noexcept {
  return contains(k_pragma_reads, upper_name) || contains(k_pragma_checks, upper_name);
}

bool pragma_takes_argument(std::string_view upper_name) noexcept {
  return contains(k_pragma_with_argument, upper_name);
}

}  // namespace omgdb::sql::detail
