// omgdb search — the `omgdb` FTS5 tokenizer (tokenizer.hpp).
#include "engine/search/tokenizer.hpp"

#include <libstemmer.h>

#include <cstring>
#include <memory>

namespace omgdb::engine::search {
namespace {

fts5_api* api_of(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, nullptr) == SQLITE_OK) {
    sqlite3_bind_pointer(st, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    sqlite3_step(st);
  }
  sqlite3_finalize(st);
  return api;
}

struct instance {
  fts5_tokenizer parent{};
  Fts5Tokenizer* parent_tok = nullptr;
  sb_stemmer* stemmer = nullptr;  // null: language "none"
  ~instance() {
    if (parent_tok != nullptr) parent.xDelete(parent_tok);
    if (stemmer != nullptr) sb_stemmer_delete(stemmer);
  }
};

struct call_ctx {
  instance* self;
  void* user;
  int (*token)(void*, int, const char*, int, int, int);
  bool prefix;
};

int create(void* api_ptr, const char** argv, int argc, Fts5Tokenizer** out) {
  auto* api = static_cast<fts5_api*>(api_ptr);
  auto inst = std::make_unique<instance>();
  void* uctx = nullptr;
  if (api->xFindTokenizer(api, "unicode61", &uctx, &inst->parent) != SQLITE_OK) return SQLITE_ERROR;
  const char* args[] = {"remove_diacritics", "2"};
  if (inst->parent.xCreate(uctx, args, 2, &inst->parent_tok) != SQLITE_OK) return SQLITE_ERROR;
  const char* language = argc > 0 ? argv[0] : "english";
  if (std::strcmp(language, "none") != 0) {
    inst->stemmer = sb_stemmer_new(language, "UTF_8");
    if (inst->stemmer == nullptr) return SQLITE_ERROR;
  }
  *out = reinterpret_cast<Fts5Tokenizer*>(inst.release());
  return SQLITE_OK;
}

void destroy(Fts5Tokenizer* t) { delete reinterpret_cast<instance*>(t); }

int on_token(void* p, int flags, const char* text, int n, int start, int end) {
  auto* c = static_cast<call_ctx*>(p);
  if (c->self->stemmer == nullptr || c->prefix || n <= 0) return c->token(c->user, flags, text, n, start, end);
  const sb_symbol* s = sb_stemmer_stem(c->self->stemmer, reinterpret_cast<const sb_symbol*>(text), n);
  if (s == nullptr) return SQLITE_NOMEM;
  const int len = sb_stemmer_length(c->self->stemmer);
  if (len <= 0) return c->token(c->user, flags, text, n, start, end);
  return c->token(c->user, flags, reinterpret_cast<const char*>(s), len, start, end);
}

int run(Fts5Tokenizer* t, void* user, int flags, const char* text, int n,
        int (*token)(void*, int, const char*, int, int, int)) {
  auto* self = reinterpret_cast<instance*>(t);
  call_ctx c{self, user, token, (flags & FTS5_TOKENIZE_PREFIX) != 0};
  return self->parent.xTokenize(self->parent_tok, &c, flags, text, n, on_token);
}

}  // namespace

status register_tokenizer(sqlite3* db) {
  fts5_api* api = api_of(db);
  if (api == nullptr) return make_error("SQLite has no FTS5 (search indexes need it)", failure_kind::unavailable);
  fts5_tokenizer tok{create, destroy, run};
  if (api->xCreateTokenizer(api, "omgdb", api, &tok, nullptr) != SQLITE_OK) {
    return make_error(std::string("cannot register the search tokenizer: ") + sqlite3_errmsg(db));
  }
  return {};
}

result<std::vector<std::string>> tokenize(sqlite3* db, const std::string& language, const std::string& text) {
  fts5_api* api = api_of(db);
  if (api == nullptr) return make_error("SQLite has no FTS5", failure_kind::unavailable);
  void* uctx = nullptr;
  fts5_tokenizer tok{};
  if (api->xFindTokenizer(api, "omgdb", &uctx, &tok) != SQLITE_OK) return make_error("the search tokenizer is not registered");
  const char* args[] = {language.c_str()};
  Fts5Tokenizer* t = nullptr;
  if (tok.xCreate(uctx, args, 1, &t) != SQLITE_OK) return make_error("no stemmer for `" + language + "`");
  std::vector<std::string> out;
  auto collect = [](void* p, int, const char* s, int n, int, int) {
    static_cast<std::vector<std::string>*>(p)->emplace_back(s, static_cast<std::size_t>(n));
    return SQLITE_OK;
  };
  const int rc = tok.xTokenize(t, &out, FTS5_TOKENIZE_DOCUMENT, text.data(), static_cast<int>(text.size()), collect);
  tok.xDelete(t);
  if (rc != SQLITE_OK) return make_error("tokenizing failed");
  return out;
}

}  // namespace omgdb::engine::search
