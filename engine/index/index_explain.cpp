// omgdb engine — explain, suggest_indexes and diagnose: the planner's decisions as documents
// (docs/indexes.md "Tools" has the shapes).
#include <algorithm>

#include "engine/query/expr.hpp"
#include "engine/index/index_plan.hpp"
#include "engine/query/sort.hpp"

namespace omgdb::engine {

using namespace detail;

namespace {

value count_value(std::uint64_t n) { return value(static_cast<std::int64_t>(n)); }

const char* kind_text(query_plan::kind k) {
  switch (k) {
    case query_plan::kind::id_lookup: return "_id lookup";
    case query_plan::kind::index_scan: return "index scan";
    case query_plan::kind::full_scan: break;
  }
  return "full scan";
}

// Why a usable candidate lost to the chosen one.
std::string lost_to(const index_candidate& a, const index_candidate& chosen) {
  const std::string other = "`" + chosen.def->spec.name + "`";
  if (a.estimate != chosen.estimate) {
    return "reads more keys (" + std::to_string(a.estimate) + ") than " + other + " (" +
           std::to_string(chosen.estimate) + ")";
  }
  return "as many keys as " + other + ", which wins the tiebreak (more equality fields, more bound fields, "
         "then the smaller name)";
}

// The catalog entry, or (when `must_exist`) the unknown-collection error with its hint.
result<std::optional<catalog_entry>> lookup_for_planner(const store::impl& s, const snapshot_guard& snap,
                                                        std::string_view collection, bool must_exist) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  auto entry = s.lookup(snap.read_options(), collection);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value() && must_exist) return s.unknown_collection(collection);
  return std::move(*entry);
}

status check_filter(const document& filter) {
  auto f = filter::compile(filter);
  if (!f) return make_error("filter: " + f.error().message, f.error().kind);
  return {};
}

}  // namespace

result<document> store::explain(std::string_view collection, const document& filter, const document& sort,
                                 const scan_control& control) const {
  if (auto f = check_filter(filter); !f) return std::move(f).error();
  auto order = sort_spec::compile(sort);
  if (!order) return make_error("sort: " + order.error().message, order.error().kind);
  snapshot_guard snap(impl_->db);
  auto entry = lookup_for_planner(*impl_, snap, collection, true);
  if (!entry) return std::move(entry).error();
  auto plan = plan_query(*impl_, snap.read_options(), **entry, filter, /*exact_estimates=*/true);
  if (!plan) return std::move(plan).error();
  document out{{"collection", value(std::string(collection))}, {"plan", value(kind_text(plan->chosen_kind))}};
  std::uint64_t keys = 0, docs = plan->documents;
  if (plan->chosen_kind == query_plan::kind::index_scan) {
    const auto& c = plan->candidates[static_cast<std::size_t>(plan->chosen)];
    auto ids = scan_candidate(*impl_, snap.read_options(), c, control, &keys);
    if (!ids) return std::move(ids).error();
    docs = ids->size();
    out.push_back(field{"index", value(c.def->spec.name)});
    out.push_back(field{"key", value(spec_key_document(c.def->spec))});
    out.push_back(field{"bounds", value(c.bounds)});
    out.push_back(field{"countFromIndex", value(c.covers_count)});
  } else if (plan->chosen_kind == query_plan::kind::id_lookup) {
    docs = 1;
  }
  out.push_back(field{"keysExamined", count_value(keys)});
  out.push_back(field{"docsExamined", count_value(docs)});
  out.push_back(field{"collectionDocuments", count_value(plan->documents)});
  out.push_back(field{"filterRechecked", value(true)});
  const bool id_sort = order->empty() || (order->keys().size() == 1 && order->keys()[0].path == "_id" &&
                                          !order->keys()[0].descending);
  std::string sort_text = id_sort ? "_id order (no sort stage)" : "in memory";
  if (!id_sort && plan->chosen_kind != query_plan::kind::id_lookup) {
    std::string by;
    auto ordered = ordered_ranges(*impl_, snap.read_options(), **entry, filter, *order, false, &by);
    if (!ordered) return std::move(ordered).error();
    if (*ordered) {
      sort_text = "index order (`" + by + "`" + ((*ordered)->reverse ? ", backwards" : "") +
                  "): no sort stage, stops after the page";
    }
  }
  out.push_back(field{"sort", value(sort_text)});
  array candidates;
  for (std::size_t i = 0; i < plan->candidates.size(); ++i) {
    const auto& c = plan->candidates[i];
    document d{{"index", value(c.def->spec.name)}, {"key", value(spec_key_document(c.def->spec))}};
    const bool chosen = static_cast<int>(i) == plan->chosen;
    d.push_back(field{"chosen", value(chosen)});
    if (c.usable) d.push_back(field{"estimatedKeys", count_value(c.estimate)});
    if (!chosen) {
      std::string why = c.reason;
      if (why.empty() && plan->chosen_kind == query_plan::kind::id_lookup) {
        why = "the filter pins `_id`: a point lookup needs no secondary index";
      } else if (why.empty() && plan->chosen >= 0) {
        why = lost_to(c, plan->candidates[static_cast<std::size_t>(plan->chosen)]);
      }
      d.push_back(field{"rejected", value(why)});
    }
    candidates.push_back(value(std::move(d)));
  }
  out.push_back(field{"candidates", value(std::move(candidates))});
  return out;
}

result<document> store::suggest_indexes(std::string_view collection, const document& filter,
                                        const document& sort) const {
  if (auto f = check_filter(filter); !f) return std::move(f).error();
  auto order = sort_spec::compile(sort);
  if (!order) return make_error("sort: " + order.error().message, order.error().kind);
  snapshot_guard snap(impl_->db);
  auto entry = lookup_for_planner(*impl_, snap, collection, false);
  if (!entry) return std::move(entry).error();
  std::vector<predicate> preds = extract_predicates(filter);
  std::optional<query_plan> plan;
  if (entry->has_value()) {
    auto p = plan_query(*impl_, snap.read_options(), **entry, filter, /*exact_estimates=*/true);
    if (!p) return std::move(p).error();
    plan = std::move(*p);
  }
  // Equality, then sort, then range (the ESR rule): equality fields make one contiguous run
  // per value, the sort fields then come in index order, a range last keeps the order usable.
  index_spec esr;
  auto has = [&](const std::string& path) {
    return std::any_of(esr.fields.begin(), esr.fields.end(), [&](const index_field& f) { return f.path == path; });
  };
  for (const auto& p : preds) {
    if (p.indexable && p.point && p.path != "_id" && !has(p.path)) esr.fields.push_back({p.path, false});
  }
  for (const auto& k : order->keys()) {
    if (k.path != "_id" && !has(k.path)) esr.fields.push_back({k.path, k.descending});
  }
  for (const auto& p : preds) {
    if (p.indexable && !p.point && p.path != "_id" && !has(p.path)) {
      esr.fields.push_back({p.path, false});
      break;  // one range field: a second one could not narrow the scan further
    }
  }
  array out;
  auto existing = [&](const index_spec& s) -> std::string {
    if (!plan) return {};
    for (const auto& d : plan->defs) {
      if (d.spec.fields.size() == s.fields.size() && !d.spec.partial_filter &&
          std::equal(d.spec.fields.begin(), d.spec.fields.end(), s.fields.begin(),
                     [](const index_field& a, const index_field& b) { return a.path == b.path && a.descending == b.descending; })) {
        return d.spec.name;
      }
    }
    return {};
  };
  if (!esr.fields.empty()) {
    const std::string name = existing(esr);
    document d{{"key", value(spec_key_document(esr))}};
    d.push_back(field{"exists", name.empty() ? value() : value(name)});
    d.push_back(field{"serves", value(order->empty() ? "filter" : "filter and sort")});
    d.push_back(field{"why", value("equality fields first, then the sort fields, then one range field (ESR); "
                                   "the planner narrows the scan with its leading equality and range fields")});
    out.push_back(value(std::move(d)));
  }
  if (plan) {
    std::vector<const index_candidate*> usable;
    for (const auto& c : plan->candidates) {
      if (c.usable && !c.over_cap && existing(esr) != c.def->spec.name) usable.push_back(&c);
    }
    std::stable_sort(usable.begin(), usable.end(),
                     [](const index_candidate* a, const index_candidate* b) { return a->estimate < b->estimate; });
    for (const index_candidate* c : usable) {
      document d{{"key", value(spec_key_document(c->def->spec))}, {"exists", value(c->def->spec.name)},
                 {"serves", value("filter")}, {"estimatedKeys", count_value(c->estimate)}};
      out.push_back(value(std::move(d)));
    }
  }
  document result_doc{{"collection", value(std::string(collection))}, {"suggestions", value(std::move(out))}};
  if (esr.fields.empty()) {
    result_doc.push_back(field{"note", value("no indexable predicate or sort field: an index cannot help this query "
                                             "(conditions under $or / $nor / $expr / $ne / $exists and null equality "
                                             "are checked on every document)")});
  }
  return result_doc;
}

result<document> store::diagnose(std::string_view collection, const document& filter,
                                 const scan_control& control) const {
  if (auto f = check_filter(filter); !f) return std::move(f).error();
  snapshot_guard snap(impl_->db);
  auto entry = lookup_for_planner(*impl_, snap, collection, true);
  if (!entry) return std::move(entry).error();
  auto plan = plan_query(*impl_, snap.read_options(), **entry, filter, /*exact_estimates=*/true);
  if (!plan) return std::move(plan).error();
  auto whole = engine::filter::compile(filter);
  if (!whole) return std::move(whole).error();
  std::vector<engine::filter> parts;
  for (const auto& p : plan->predicates) {
    auto f = engine::filter::compile(p.condition);
    if (!f) return std::move(f).error();
    parts.push_back(std::move(*f));
  }
  std::vector<std::uint64_t> counts(parts.size(), 0);
  std::uint64_t matched = 0, scanned = 0;
  collection_scan scan(*impl_, snap, collection, **entry, control);
  try {
    auto st = scan.run(nullptr, [&](document&& doc) {
      ++scanned;
      for (std::size_t i = 0; i < parts.size(); ++i) counts[i] += parts[i].matches(doc) ? 1 : 0;
      matched += whole->matches(doc) ? 1 : 0;
      return true;
    });
    if (!st) return std::move(st).error();
  } catch (const expression_error& e) {
    return e.to_failure();
  }
  array preds;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& p = plan->predicates[i];
    document d{{"predicate", value(p.condition)}, {"matches", count_value(counts[i])}};
    d.push_back(field{"selectivity", value(scanned == 0 ? 0.0 : static_cast<double>(counts[i]) / static_cast<double>(scanned))});
    d.push_back(field{"indexable", value(p.indexable)});
    if (!p.indexable) d.push_back(field{"why", value(p.reason)});
    array leading;
    for (const auto& def : plan->defs) {
      if (def.spec.fields.front().path == p.path) leading.push_back(value(def.spec.name));
    }
    d.push_back(field{"indexesLedByField", value(std::move(leading))});
    preds.push_back(value(std::move(d)));
  }
  array not_used;
  for (std::size_t i = 0; i < plan->candidates.size(); ++i) {
    if (static_cast<int>(i) == plan->chosen) continue;
    const auto& c = plan->candidates[i];
    std::string why = c.reason;
    if (why.empty() && plan->chosen_kind == query_plan::kind::id_lookup) why = "the filter pins `_id`";
    if (why.empty() && plan->chosen >= 0) why = lost_to(c, plan->candidates[static_cast<std::size_t>(plan->chosen)]);
    not_used.push_back(value(document{{"index", value(c.def->spec.name)}, {"why", value(why)}}));
  }
  document out{{"collection", value(std::string(collection))},
               {"documents", count_value(scanned)},
               {"matched", count_value(matched)},
               {"plan", value(kind_text(plan->chosen_kind))}};
  if (plan->chosen >= 0) out.push_back(field{"index", value(plan->candidates[static_cast<std::size_t>(plan->chosen)].def->spec.name)});
  out.push_back(field{"predicates", value(std::move(preds))});
  out.push_back(field{"indexesNotUsed", value(std::move(not_used))});
  if (plan->defs.empty()) out.push_back(field{"note", value("the collection has no secondary indexes")});
  return out;
}

}  // namespace omgdb::engine
