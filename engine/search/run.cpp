// omgdb search — running a search (docs/search.md "search"): parse, catch up (bounded by
// timeoutMs), rank with BM25 in FTS5, filter, highlight, explain.
#include <algorithm>
#include <set>

#include "engine/bson/bson_codec.hpp"
#include "engine/query/expr.hpp"
#include "engine/query/filter.hpp"
#include "engine/search/index.hpp"
#include "engine/search/page_check.hpp"
#include "engine/search/query.hpp"

namespace omgdb::engine::search {
using namespace detail;

namespace {

struct stmt {
  sqlite3_stmt* st = nullptr;
  ~stmt() { sqlite3_finalize(st); }
};

struct candidate {
  std::int64_t rowid = 0;
  double score = 0;
  std::string idkey;
  value id;
};

std::vector<std::string> marked(const std::string& text, std::set<std::string>& terms) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while ((i = text.find('\x02', i)) != std::string::npos) {
    const std::size_t j = text.find('\x03', i + 1);
    if (j == std::string::npos) break;
    terms.insert(text.substr(i + 1, j - i - 1));
    i = j + 1;
  }
  return out;
}

std::string as_stars(std::string s) {
  for (char& c : s) {
    if (c == '\x02' || c == '\x03') c = '\x01';
  }
  std::string out;
  for (char c : s) {
    if (c == '\x01') {
      out += "**";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Folds the terms a highlight marked to lower case (ASCII) so "Open" and "open" are one.
std::string lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

}  // namespace

// The connection one search ranks on (generation::reader), without the index's mutex, with a
// progress handler that stops FTS5 — whose ranking of a broad query (64 prefix terms over many
// documents) runs inside one sqlite3_step — at the search's deadline (timeoutMs) or when the
// call is told to stop (its deadline, cancellation, client gone), and the precise error.
class ranking_db {
 public:
  ranking_db(std::shared_ptr<sqlite3> db, std::filesystem::path file, clock::time_point deadline,
             const call_budget& call, std::uint64_t timeout_ms)
      : db_(std::move(db)), file_(std::move(file)), deadline_(deadline), call_(call), timeout_ms_(timeout_ms) {
    sqlite3_progress_handler(db_.get(), k_progress_steps, &ranking_db::progress, this);
    stop_reads_.stop = [](void* self) { return progress(self) != 0; };
    stop_reads_.ctx = this;
    set_read_stop(&stop_reads_);
  }
  ~ranking_db() {
    set_read_stop(nullptr);
    sqlite3_progress_handler(db_.get(), 0, nullptr, nullptr);
  }
  ranking_db(const ranking_db&) = delete;
  ranking_db& operator=(const ranking_db&) = delete;

  sqlite3* db() const noexcept { return db_.get(); }
  // The error of a failed step: the stop's reason when the handler interrupted it.
  failure error(std::string_view what, std::uint64_t ranked = 0) const {
    if (stopped_ == stop::cancelled) return make_error("cancelled", failure_kind::cancelled);
    if (stopped_ == stop::deadline) {
      return make_error("search: timeoutMs (" + std::to_string(timeout_ms_) + ") ran out while FTS5 was " +
                            std::string(what) + (ranked ? " (" + std::to_string(ranked) + " read)" : std::string()) +
                            "; use a narrower query (fewer or longer prefix terms) or filter, or a larger timeoutMs",
                        failure_kind::limit_exceeded);
    }
    return sqlite_error(db_.get(), file_, what);
  }

 private:
  // SQLite calls the handler every this many virtual-machine steps (about a microsecond each).
  static constexpr int k_progress_steps = 4000;
  enum class stop { none, deadline, cancelled };
  static int progress(void* self) {
    auto* r = static_cast<ranking_db*>(self);
    if (r->call_.stop_requested()) r->stopped_ = stop::cancelled;
    else if (clock::now() >= r->deadline_) r->stopped_ = stop::deadline;
    return r->stopped_ != stop::none ? 1 : 0;
  }

  std::shared_ptr<sqlite3> db_;
  std::filesystem::path file_;
  clock::time_point deadline_;
  const call_budget& call_;
  std::uint64_t timeout_ms_;
  stop stopped_ = stop::none;
  read_stop stop_reads_;
};

// The lexical ranking: every candidate in rank order (best first) passing `keep`, until
// `limit` are kept and the tie group of the last one is complete.
static result<std::vector<candidate>> lexical(const ranking_db& g, const std::string& match, const search_request& req,
                                              bool cut_by_min_score, std::uint64_t limit, clock::time_point deadline,
                                              const std::function<result<bool>(const candidate&)>& keep) {
  stmt q, m;
  if (sqlite3_prepare_v2(g.db(), "SELECT rowid, rank FROM fts WHERE fts MATCH ?1 ORDER BY rank", -1, &q.st, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(g.db(), "SELECT idkey, id FROM docmap WHERE rowid = ?1", -1, &m.st, nullptr) != SQLITE_OK) {
    return g.error("preparing the search");
  }
  sqlite3_bind_text(q.st, 1, match.data(), static_cast<int>(match.size()), SQLITE_STATIC);
  std::vector<candidate> out;
  std::uint64_t seen = 0;
  int rc;
  while ((rc = sqlite3_step(q.st)) == SQLITE_ROW) {
    candidate c;
    c.rowid = sqlite3_column_int64(q.st, 0);
    c.score = -sqlite3_column_double(q.st, 1);
    // minScore cuts the lexical ranking only in lexical mode, where the BM25-derived score is
    // the one returned; in hybrid mode it applies to the fused score (manager::run).
    if (cut_by_min_score && req.min_score && c.score < *req.min_score) break;
    if (out.size() >= limit && c.score != out.back().score) break;
    if (++seen % 256 == 0 && clock::now() >= deadline) {
      return make_error("search: timeoutMs (" + std::to_string(req.timeout_ms) + ") ran out after ranking " +
                            std::to_string(seen) + " candidates; use a narrower query or filter, or a larger timeoutMs",
                        failure_kind::limit_exceeded);
    }
    sqlite3_reset(m.st);
    sqlite3_bind_int64(m.st, 1, c.rowid);
    if (sqlite3_step(m.st) != SQLITE_ROW) return g.error("reading a row");
    c.idkey.assign(static_cast<const char*>(sqlite3_column_blob(m.st, 0)), static_cast<std::size_t>(sqlite3_column_bytes(m.st, 0)));
    const std::string idbson(static_cast<const char*>(sqlite3_column_blob(m.st, 1)), static_cast<std::size_t>(sqlite3_column_bytes(m.st, 1)));
    bson_get_field(idbson, "_id", c.id);
    OMGDB_TRY(ok, keep(c));
    if (ok) out.push_back(std::move(c));
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return g.error("ranking the matches", seen);
  std::stable_sort(out.begin(), out.end(), [](const candidate& a, const candidate& b) {
    return a.score != b.score ? a.score > b.score : a.idkey < b.idkey;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

static status decorate(const ranking_db& g, const definition& d, const std::string& match, const candidate& c, bool highlight,
                       bool explain, std::uint64_t rank, hit& h) {
  std::string sql = "SELECT ";
  for (std::size_t i = 0; i < d.fields.size(); ++i) {
    sql += (i ? ", " : "") + std::string("snippet(fts, ") + std::to_string(i) + ", char(2), char(3), '…', 24)";
  }
  sql += " FROM fts WHERE fts MATCH ?1 AND rowid = ?2";
  stmt q;
  if (sqlite3_prepare_v2(g.db(), sql.c_str(), -1, &q.st, nullptr) != SQLITE_OK) return g.error("highlighting");
  sqlite3_bind_text(q.st, 1, match.data(), static_cast<int>(match.size()), SQLITE_STATIC);
  sqlite3_bind_int64(q.st, 2, c.rowid);
  std::set<std::string> terms;
  const int rc = sqlite3_step(q.st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return g.error("highlighting");
  if (rc == SQLITE_ROW) {
    for (std::size_t i = 0; i < d.fields.size(); ++i) {
      const auto* t = sqlite3_column_text(q.st, static_cast<int>(i));
      if (t == nullptr) continue;
      const std::string text(reinterpret_cast<const char*>(t));
      if (text.find('\x02') == std::string::npos) continue;
      marked(text, terms);
      if (highlight) h.highlights.emplace_back(d.fields[i].path, as_stars(text));
    }
  }
  if (explain) {
    std::set<std::string> folded;
    for (const auto& t : terms) folded.insert(lower(t));
    array matched;
    for (const auto& t : folded) matched.emplace_back(t);
    h.explain = document{{"bm25", c.score}, {"lexicalRank", static_cast<std::int64_t>(rank)}, {"matched", std::move(matched)}};
  }
  return {};
}

result<search_result> manager::run(const search_request& req, const embed::model_registry* models, const scan_control& control) {
  const auto start = clock::now();
  const auto deadline = start + std::chrono::milliseconds(req.timeout_ms);
  OMGDB_TRY(found, impl_->read_definition(req.collection, req.index));
  if (!found) return impl_->unknown_index(req.collection, req.index);
  const definition& d = *found;
  std::vector<std::string> paths;
  for (const auto& f : d.fields) paths.push_back(f.path);
  OMGDB_TRY(pq, parse_query(req.query, paths));
  const search_mode mode = req.mode.value_or(d.semantic ? search_mode::hybrid : search_mode::lexical);
  if (mode != search_mode::lexical && !d.semantic) {
    return make_error("search index " + quoted_name(d.name) + " has no semantic part, so mode `" +
                      std::string(mode == search_mode::semantic ? "semantic" : "hybrid") +
                      "` cannot run; use mode `lexical`, or define the index again with semantic: {fields, model}");
  }
  OMGDB_TRY(f, filter::compile(req.filter));
  const bool filtered = !req.filter.empty();

  impl_->clean_orphans_once();  // a search writes search files: its first one removes leftovers
  auto st = impl_->state(d);
  std::unique_lock lock(st->mu);
  search_result out;
  out.mode = mode == search_mode::lexical ? "lexical" : mode == search_mode::semantic ? "semantic" : "hybrid";
  auto g = impl_->current_generation(d, *st);
  if (!g || *g == nullptr) {
    // A missing or unreadable generation is a cache miss: build it now.
    out.notes.push_back(!g ? "the generation could not be opened (" + g.error().message + "); it was rebuilt"
                           : "the index had no generation yet; it was built for this search");
    OMGDB_TRY(built, impl_->build(d, *st, k_default_writer_memory, control));
    (void)built;
    g = impl_->current_generation(d, *st);
    if (!g) return std::move(g).error();
    if (*g == nullptr) return make_error("search index " + quoted_name(d.name) + " has no generation", failure_kind::internal);
  }
  if ((*g)->applied_seq() < impl_->s.trimmed_through.load()) {
    // The records it would catch up with were trimmed (the store's op-log retention).
    out.notes.push_back("the op-log was trimmed past this generation (the store's op-log retention), so it was rebuilt "
                        "from the documents instead of catching up");
    OMGDB_TRY(built, impl_->build(d, *st, k_default_writer_memory, control));
    (void)built;
    g = impl_->current_generation(d, *st);
    if (!g) return std::move(g).error();
    if (*g == nullptr) return make_error("search index " + quoted_name(d.name) + " has no generation", failure_kind::internal);
  }
  generation& gen = **g;
  out.generation = st->open_id;
  out.definition_mismatch = gen.definition_version() != d.version;
  if (out.definition_mismatch) {
    out.notes.push_back("this generation was built for definition version " + std::to_string(gen.definition_version()) +
                        ", the index is at version " + std::to_string(d.version) +
                        "; rebuild_search_index builds the current one (this one serves until then)");
  }
  // A catch-up's commit waits for the rankings reading the file (each bounded by its own
  // timeoutMs) at most half of what is left of this search's timeoutMs; past it the search
  // answers from the boundary it has (build.cpp), keeping the other half for its ranking.
  {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    sqlite3_busy_timeout(gen.db(), static_cast<int>(std::clamp<std::int64_t>(ms / 2, 1, 30000)));
  }
  OMGDB_TRY(up, impl_->catch_up(gen, d, deadline));
  out.searched_seq = up.to;
  out.last_seq = up.last_seq;
  out.caught_up = up.complete;
  if (up.needs_rebuild) {
    out.notes.push_back("the op-log no longer reaches back to this generation's boundary; run rebuild_search_index");
  } else if (!up.complete) {
    out.notes.push_back("timeoutMs ran out while catching up (or other searches kept the generation busy): the "
                        "results are as of op-log seq " + std::to_string(up.to) +
                        ", " + std::to_string(up.last_seq - up.to) + " records behind");
  }

  // The ranking runs on a connection of its own, without the index's mutex (the catch-up
  // above was the part that needs it: it writes).
  const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
  OMGDB_TRY(reader, gen.reader(static_cast<int>(std::clamp<std::int64_t>(left_ms, 1, 60000))));
  const ranking_db rdb(std::move(reader), gen.file(), deadline, control.call(), req.timeout_ms);
  lock.unlock();

  read_view rv(impl_->s);
  OMGDB_TRY(entry, rv.collection(req.collection, false));
  auto keep = [&](const candidate& c) -> result<bool> {
    if (!filtered) return true;
    if (!entry) return false;
    OMGDB_TRY(doc, impl_->s.read_document(rv.options(), req.collection, entry->id, c.id));
    if (!doc) return false;
    try {
      return f.matches(*doc);
    } catch (const expression_error& e) {
      return make_error(std::string("filter: ") + e.what(), e.kind());
    }
  };
  const std::uint64_t depth = mode == search_mode::lexical ? req.limit : std::max<std::uint64_t>(req.limit * 4, 50);
  OMGDB_TRY(lex, lexical(rdb, pq.match, req, mode == search_mode::lexical, depth, deadline, keep));
  if (mode == search_mode::lexical) {
    std::uint64_t rank = 0;
    for (const auto& c : lex) {
      hit h;
      h.id = c.id;
      h.score = c.score;
      ++rank;
      if (req.highlight || req.explain) OMGDB_CHECK(decorate(rdb, d, pq.match, c, req.highlight, req.explain, rank, h));
      out.hits.push_back(std::move(h));
    }
    return out;
  }
  if (impl_->owner == nullptr) return make_error("search: semantic ranking needs the open store", failure_kind::internal);
  OMGDB_TRY(sem, semantic_ranking(*impl_->owner, d, models, pq.plain, req.filter, depth, control));
  std::vector<std::vector<ranked>> lists;
  std::vector<double> weights;
  if (mode == search_mode::hybrid) {
    std::vector<ranked> lex_list;
    for (const auto& c : lex) lex_list.push_back({c.idkey, c.id});
    lists.push_back(std::move(lex_list));
    weights.push_back(k_hybrid_lexical_weight);
  }
  lists.push_back(sem.list);
  weights.push_back(mode == search_mode::hybrid ? k_hybrid_semantic_weight : 1.0);
  const auto fusedlist = rrf(lists, weights);
  std::map<std::string, const candidate*> by_key;
  for (const auto& c : lex) by_key.emplace(c.idkey, &c);
  for (const auto& fz : fusedlist) {
    if (out.hits.size() >= req.limit) break;
    hit h;
    h.id = fz.id;
    const auto sim = sem.similarity.find(fz.key);
    const bool semantic_only = mode == search_mode::semantic;
    h.score = semantic_only && sim != sem.similarity.end() ? sim->second : fz.score;
    // minScore is compared with the score returned: the similarity (semantic) or the fused
    // score (hybrid). Both lists are in that score's order, so the first below it ends them.
    if (req.min_score && h.score < *req.min_score) break;
    const auto lc = by_key.find(fz.key);
    if ((req.highlight || req.explain) && lc != by_key.end()) {
      OMGDB_CHECK(decorate(rdb, d, pq.match, *lc->second, req.highlight, req.explain, fz.ranks[0].value_or(0), h));
    }
    if (req.explain) {
      document e = h.explain.value_or(document{});
      if (semantic_only) e.clear();
      if (sim != sem.similarity.end()) e.push_back({"similarity", sim->second});
      const auto sr = fz.ranks.back();
      e.push_back({"semanticRank", sr ? value(static_cast<std::int64_t>(*sr)) : value()});
      if (!semantic_only) {
        std::erase_if(e, [](const field& x) { return x.name == "lexicalRank"; });
        e.push_back({"lexicalRank", fz.ranks[0] ? value(static_cast<std::int64_t>(*fz.ranks[0])) : value()});
        e.push_back({"fused", fz.score});
        e.push_back({"weights", document{{"lexical", k_hybrid_lexical_weight}, {"semantic", k_hybrid_semantic_weight}, {"k", 60}}});
      }
      h.explain = std::move(e);
    }
    out.hits.push_back(std::move(h));
  }
  out.notes.insert(out.notes.end(), sem.notes.begin(), sem.notes.end());
  return out;
}

}  // namespace omgdb::engine::search
