// omgdb engine — building a context pack: candidates under one snapshot, chunks, ranking,
// greedy packing under the budget (never over it by the counter's own count), citations.
#include <algorithm>
#include <cmath>
#include <map>

#include "engine/context/context_pack.hpp"
#include "engine/markdown/markdown.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::engine::context {
namespace {

struct candidate {
  value id;
  std::string text;
};

const value* at_path(const document& d, std::string_view path) {
  const document* cur = &d;
  while (true) {
    const auto dot = path.find('.');
    const value* v = find_field(*cur, path.substr(0, dot));
    if (v == nullptr || dot == std::string_view::npos) return v;
    if (!v->is_document()) return nullptr;
    cur = &v->as_document();
    path.remove_prefix(dot + 1);
  }
}

std::string id_text(const value& id) { return id.is_string() ? id.as_string() : to_json(id); }

// "[n] _id § A › B" — the line before each quote.
std::string header(std::size_t n, const value& id, const std::vector<std::string>& path) {
  std::string h = "[" + std::to_string(n) + "] " + id_text(id);
  if (!path.empty()) {
    h += " §";
    for (std::size_t i = 0; i < path.size(); ++i) h += (i ? " › " : " ") + path[i];
  }
  return h + "\n";
}

struct entry {
  citation cite;
  std::size_t doc = 0;
  std::size_t first_ordinal = 0, last_ordinal = 0;
};

std::string render(const std::vector<entry>& parts, const std::vector<candidate>& docs) {
  std::string out;
  for (const entry& e : parts) {
    if (!out.empty()) out += "\n\n";
    out += header(e.cite.n, e.cite.id, e.cite.heading_path);
    out += std::string_view(docs[e.doc].text).substr(e.cite.byte_start, e.cite.byte_end - e.cite.byte_start);
  }
  return out;
}

// The end of the last sentence in text[start, limit) (after its '.', '!', '?' or a line end),
// or `start` when there is none.
std::uint64_t sentence_end(std::string_view text, std::uint64_t start, std::uint64_t limit) {
  for (std::uint64_t i = limit; i > start; --i) {
    const char c = text[i - 1];
    const bool boundary = i == text.size() || text[i] == ' ' || text[i] == '\n' || text[i] == '\t';
    if ((c == '.' || c == '!' || c == '?') && boundary) return i;
    if (c == '\n' && i - 1 > start) return i - 1;
  }
  return start;
}

std::optional<std::string> section_id(const chunk& c) {
  if (const section_span* s = c.span()) return s->id;
  return std::nullopt;
}

std::vector<std::string> heading_path(const chunk& c) {
  if (const section_span* s = c.span()) return s->path;
  return {};
}

std::uint64_t read_seq(const store::impl& s, const rocksdb::ReadOptions& ro) {
  std::string bytes;
  if (!s.db->Get(ro, s.meta, detail::slice(detail::k_meta_last_seq), &bytes).ok()) return 0;
  return detail::get_u64(bytes).value_or(0);
}

}  // namespace

result<pack> context_pack(store& st, const pack_request& request, const token_counter& counter,
                          const ranker& rank, const scan_control& control) {
  if (request.budget == 0 || request.budget > k_max_budget) {
    return make_error("`budget` must be 1 to " + std::to_string(k_max_budget) + " tokens");
  }
  auto match = filter::compile(request.filter);
  if (!match) return std::move(match).error();
  pack out;
  out.counter = std::string(counter.name());
  out.budget = request.budget;
  out.ranking = std::string(rank.name());

  const store::impl& s = detail::store_access::of(st);
  detail::read_view view(s);
  auto entry_found = view.collection(request.collection);
  if (!entry_found) return std::move(entry_found).error();
  if (!entry_found->has_value()) return out;
  const std::uint64_t seq = read_seq(s, view.options());

  // Candidates and their chunks.
  std::vector<candidate> docs;
  std::vector<chunk> chunks;
  std::uint64_t bytes = 0;
  std::optional<failure> bound;
  // What the pack holds (candidates' text, chunks, section paths, scores) is charged to the
  // call's budget, given back when the pack is made; every loop reads the call's flag.
  call_budget& budget = control.call();
  const budget_mark held(budget);
  detail::collection_scan scan(s, view.snapshot(), request.collection, **entry_found, control);
  auto visited = scan.run_matching(*match, nullptr, [&](document&& d) {
    const value* text = at_path(d, request.field);
    if (text == nullptr || !text->is_string()) return true;
    if (docs.size() >= k_max_candidates || bytes + text->as_string().size() > k_max_candidate_bytes) {
      bound = make_error("more than " + std::to_string(k_max_candidates) + " documents or " +
                             std::to_string(k_max_candidate_bytes >> 20) + " MiB of `" + request.field +
                             "` text match the filter; a context pack ranks at most that: narrow `filter`",
                         failure_kind::limit_exceeded);
      return false;
    }
    bytes += text->as_string().size();
    // The sections come from the text itself: a stored `_sections` is derived data that any
    // writer can forge (a 50,000-entry heading path), so it is never read here.
    section_spans spans;
    if (request.field == markdown::k_text_field && markdown::is_markdown(d)) {
      auto secs = markdown::parse_sections(text->as_string());
      if (!secs && secs.error().kind == failure_kind::cancelled) {
        bound = std::move(secs).error();
        return false;
      }
      if (secs) {  // a text past the parse's bounds is cut into paragraph windows instead
        auto list = std::make_shared<std::vector<section_span>>();
        std::uint64_t held = 0;
        for (auto& x : *secs) {
          for (const auto& t : x.path) held += t.size() + sizeof(std::string);
          held += sizeof(section_span) + x.id.size();
          list->push_back({std::move(x.id), std::move(x.path), x.heading_start, x.body_end});
        }
        if (auto st = budget.try_charge(held, "the context pack's section paths"); !st) {
          bound = std::move(st).error();
          return false;
        }
        spans = std::move(list);
      }
    }
    candidate c;
    c.id = find_field(d, "_id") ? *find_field(d, "_id") : value();
    c.text = text->as_string();
    auto cs = chunk_text(c.text, spans, docs.size());
    if (auto st = budget.try_charge(c.text.size() + sizeof(candidate) + cs.size() * sizeof(chunk),
                                    "the context pack's candidates and chunks");
        !st) {
      bound = std::move(st).error();
      return false;
    }
    chunks.insert(chunks.end(), std::make_move_iterator(cs.begin()), std::make_move_iterator(cs.end()));
    docs.push_back(std::move(c));
    return true;
  });
  if (!visited) return std::move(visited).error();
  if (bound) return std::move(*bound);
  out.candidates = docs.size();
  out.chunks = chunks.size();

  // Ranking.
  std::vector<std::string_view> views;
  views.reserve(chunks.size());
  for (const chunk& c : chunks) views.push_back(std::string_view(docs[c.doc].text).substr(c.start, c.end - c.start));
  OMGDB_CHECK(budget.try_charge(chunks.size() * (sizeof(std::string_view) + sizeof(double) + sizeof(std::size_t)),
                                "the context pack's ranking"));
  OMGDB_CHECK(budget.check());
  std::vector<double> scores;
  try {
    scores = rank.score(views, request.query);
  } catch (const call_error& e) {
    return e.to_failure();
  }
  OMGDB_CHECK(budget.check());
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (scores[i] > 0) order.push_back(i);
  }
  out.matched_chunks = order.size();
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (scores[a] != scores[b]) return scores[a] > scores[b];
    if (chunks[a].doc != chunks[b].doc) return chunks[a].doc < chunks[b].doc;
    return chunks[a].ordinal < chunks[b].ordinal;
  });

  // Packing: greedy by rank; a chunk next to one taken from the same document extends it.
  std::vector<entry> parts;
  std::map<std::size_t, std::size_t> per_doc;
  std::uint64_t used = 0;
  std::vector<std::size_t> left_out;  // ranked chunks that did not fit whole, in rank order
  auto score_of = [&](std::size_t i) { return std::round(scores[i] * 1e4) / 1e4; };
  std::size_t misses = 0;  // consecutive chunks that did not fit
  for (std::size_t i : order) {
    if (misses >= k_max_misses) break;
    OMGDB_CHECK(budget.check());
    const chunk& c = chunks[i];
    if (per_doc[c.doc] >= k_max_chunks_per_document) continue;
    std::vector<entry> next = parts;
    bool merged = false;
    for (entry& e : next) {
      if (e.doc != c.doc) continue;
      if (c.ordinal == e.last_ordinal + 1) {
        e.cite.byte_end = c.end;
        e.last_ordinal = c.ordinal;
        merged = true;
      } else if (c.ordinal + 1 == e.first_ordinal) {
        e.cite.byte_start = c.start;
        e.first_ordinal = c.ordinal;
        e.cite.section_id = section_id(c);
        e.cite.heading_path = heading_path(c);
        merged = true;
      }
      if (merged) break;
    }
    if (!merged) {
      entry e;
      e.doc = c.doc;
      e.first_ordinal = e.last_ordinal = c.ordinal;
      e.cite = {parts.size() + 1, docs[c.doc].id, section_id(c), heading_path(c), c.start, c.end, seq, score_of(i)};
      next.push_back(std::move(e));
    }
    // A cheap check first (the chunk alone), then the exact count of the whole pack.
    if (used + counter.count(views[i]) > request.budget) {
      left_out.push_back(i);
      ++misses;
      continue;
    }
    const std::uint64_t total = counter.count(render(next, docs));
    if (total > request.budget) {
      left_out.push_back(i);
      ++misses;
      continue;
    }
    misses = 0;
    parts = std::move(next);
    used = total;
    ++per_doc[c.doc];
  }
  // The best chunk left out, cut after its last whole sentence that fits, when one does.
  for (std::size_t i : left_out) {
    OMGDB_CHECK(budget.check());
    const chunk& c = chunks[i];
    if (per_doc[c.doc] >= k_max_chunks_per_document || used >= request.budget) break;
    bool touches = false;
    for (const entry& e : parts) touches |= e.doc == c.doc && (c.ordinal == e.last_ordinal + 1 || c.ordinal + 1 == e.first_ordinal);
    if (touches) continue;  // its neighbour is in: cutting would leave a gap inside one citation
    const std::string hdr = header(parts.size() + 1, docs[c.doc].id, heading_path(c));
    const std::uint64_t sep = parts.empty() ? 0 : 1;
    if (used + counter.count(hdr) + sep >= request.budget) break;
    const std::uint64_t room = request.budget - used - counter.count(hdr) - sep;
    const std::size_t fits = counter.fit(views[i], room);
    const std::uint64_t cut = sentence_end(docs[c.doc].text, c.start, c.start + fits);
    if (cut <= c.start) continue;
    std::vector<entry> next = parts;
    entry e;
    e.doc = c.doc;
    e.first_ordinal = e.last_ordinal = c.ordinal;
    e.cite = {parts.size() + 1, docs[c.doc].id, section_id(c), heading_path(c), c.start, cut, seq, score_of(i)};
    next.push_back(std::move(e));
    const std::uint64_t total = counter.count(render(next, docs));
    if (total > request.budget) continue;
    parts = std::move(next);
    used = total;
    ++per_doc[c.doc];
    break;
  }
  out.text = render(parts, docs);
  out.tokens = counter.count(out.text);
  for (entry& e : parts) out.citations.push_back(std::move(e.cite));
  return out;
}

}  // namespace omgdb::engine::context
