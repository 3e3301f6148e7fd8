// The stages that read other collections or run sub-pipelines: $lookup (equality, let /
// pipeline, and both), $unionWith, $facet.
#include <algorithm>
#include <optional>
#include <utility>

#include "engine/aggregate/stage.hpp"
#include "engine/query/filter.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

// A context for a sub-pipeline: one level deeper, with `extra` variables after the parent's.
std::unique_ptr<exec_ctx> child_ctx(const exec_ctx& parent, std::vector<value> extra = {}) {
  auto c = std::make_unique<exec_ctx>(parent);
  c->depth = parent.depth + 1;
  for (value& v : extra) c->variables.push_back(std::move(v));
  c->env.variables = &c->variables;
  return c;
}

// Leading pushable $match of a sub-pipeline: the scan's filter, and where the rest starts.
std::pair<document, std::size_t> pushdown(const stage_list& stages) {
  if (!stages.empty()) {
    if (const document* f = pushable_filter(stages.front())) return {*f, 1};
  }
  return {document{}, 0};
}

// Reads `c` to its end, charging each document to `budget`; `levels` is how many levels the
// documents will sit under in the stage's output (an array in a field: 2 and more), and a
// document that would then nest deeper than k_max_built_depth is refused.
std::vector<document> drain(cursor& c, memory_budget& budget, const exec_ctx& ctx, int levels) {
  std::vector<document> out;
  document d;
  const std::string what = "stage " + quoted(budget.stage());
  while (c.next(d)) {
    ctx.poll();
    const value_measure m = measure_document(d, k_max_built_depth);
    call_budget::check_depth(m.depth + levels, what);
    budget.add(m.bytes);
    out.push_back(std::move(d));
    d = document{};
  }
  return out;
}

// The equality filter of `$lookup`: {foreignField: {$in: values}} (a regex value matched as
// itself, not as a pattern).
document equality_filter(const std::string& foreign_field, array values) {
  document filter;
  const bool has_regex = std::any_of(values.begin(), values.end(), [](const value& x) { return x.type() == kind::regex; });
  if (has_regex) {
    array alternatives;
    for (value& x : values) alternatives.emplace_back(document{{foreign_field, value(document{{"$eq", std::move(x)}})}});
    filter.push_back(field{"$or", value(std::move(alternatives))});
  } else {
    filter.push_back(field{foreign_field, value(document{{"$in", value(std::move(values))}})});
  }
  return filter;
}

// A `let` / `pipeline` lookup's equality, found in the pipeline's leading {$match: {$expr:
// …}}: {$eq: ["$path", "$$var"]} (either order), alone or in a top-level $and, with `var`
// one of the lookup's own `let` names (the last of that name: the innermost binding).
struct expr_equality {
  std::string path;
  std::size_t let = 0;  // index into the lookup's lets
};

std::optional<expr_equality> find_expr_equality(const value& e, const std::vector<std::string>& lets) {
  if (!e.is_document() || e.as_document().size() != 1) return std::nullopt;
  const field& op = e.as_document().front();
  if (!op.val.is_array()) return std::nullopt;
  const array& args = op.val.as_array();
  if (op.name == "$and") {
    for (const value& a : args) {
      if (auto found = find_expr_equality(a, lets)) return found;
    }
    return std::nullopt;
  }
  if (op.name != "$eq" || args.size() != 2 || !args[0].is_string() || !args[1].is_string()) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const std::string& p = args[i].as_string();
    const std::string& v = args[1 - i].as_string();
    if (p.size() < 2 || p[0] != '$' || p[1] == '$' || !v.starts_with("$$")) continue;
    const std::string name = v.substr(2);
    for (std::size_t k = lets.size(); k-- > 0;) {
      if (lets[k] == name) return expr_equality{p.substr(1), k};
    }
  }
  return std::nullopt;
}

document both(document a, const document& b) {
  if (b.empty()) return a;
  if (a.empty()) return b;
  return document{{"$and", value(array{value(std::move(a)), value(b)})}};
}

struct lookup_stage final : stage {
  std::string from, as;
  std::string local_field, foreign_field;  // both empty: no equality
  // Without them, the `$expr` equality of the pipeline's leading $match ("" when none): the
  // foreign side is then read through `_id` or an index on expr_path when there is one.
  std::string expr_path;
  std::size_t expr_let = 0;
  expression local;                        // "$" + local_field
  std::vector<std::pair<std::string, expression>> lets;
  stage_list pipeline;
  document pushed;  // the pipeline's leading pushable $match (the foreign scan's filter)
  stage_list rest;  // the pipeline after it
  int levels = 2;   // the joined documents' levels below the output's top: the `as` path's, the array's

  // The per-call state of one opened $lookup: the hash table when the equality form has no
  // index to use, and the budget of the joined array.
  struct state {
    std::optional<lookup_table> table;
    std::unique_ptr<collection_provider::equality_source> index;  // `_id` or an index on foreignField / expr_path
    std::optional<filter> pushed;  // the sub-pipeline's leading $match, for the index's documents
    bool table_tried = false;
    std::optional<std::vector<document>> cached;  // no equality and no `let`: one result for all
    std::unique_ptr<memory_budget> cache_budget;   // what `cached` holds
    // The joined array of the latest document (and the hash table): given back when the next
    // document is joined.
    std::unique_ptr<memory_budget> budget;
  };

  // The local values to look up: an array's elements, else the value (missing: null).
  array local_values(const document& doc, exec_ctx& ctx) const {
    expr_value v = ctx.eval(local, doc);
    if (v && v->is_array()) return v->as_array();
    return array{v ? *v : value()};
  }

  std::vector<document> matches(const document& doc, exec_ctx& ctx, state& st) const {
    std::optional<array> values;
    if (foreign_field.empty() && !expr_path.empty() && !st.table_tried) {
      st.table_tried = true;
      auto index = ctx.provider->equality_lookup(from, expr_path);
      if (!index) fail(index.error().message);
      st.index = std::move(*index);
    }
    if (!foreign_field.empty()) {
      values = local_values(doc, ctx);
      if (values->empty()) return {};
      if (!st.table_tried) {
        st.table_tried = true;
        auto index = ctx.provider->equality_lookup(from, foreign_field);
        if (!index) fail(index.error().message);
        st.index = std::move(*index);
        if (st.index) {
          auto f = filter::compile(pushed);
          if (!f) fail(f.error().message);
          st.pushed = std::move(*f);
        } else if (lookup_table::usable_path(foreign_field)) {
          auto sub = child_ctx(ctx);
          cursor_ptr c = collection_cursor(*sub, from, pushed);
          lookup_table t;
          // Half the stage's limit, leaving the other half to the joined arrays. Past it the
          // call is refused (docs/decisions.md): a scan of the foreign collection per input
          // document would be quadratic.
          const std::size_t limit = ctx.options->max_stage_bytes / 2;
          if (!t.build(*c, foreign_field, ctx, limit)) {
            fail("stage `$lookup` exceeded its memory limit: the foreign collection " + quoted(from) +
                 " holds more than " + limit_text(limit) + " to join on " + quoted(foreign_field) +
                 ", which has no index; create an index on " + quoted(foreign_field) + " of " + quoted(from) +
                 " (create_index) or narrow the foreign documents with a leading `$match` in the `$lookup`'s `pipeline`");
          }
          st.table = std::move(t);
        }
      }
    }
    cursor_ptr source;
    std::vector<value> let_values;
    for (const auto& [name, e] : lets) let_values.push_back(ctx.eval(e, doc).value_or(value()));
    // The `$expr` equality's value: `$eq` of expressions is true only for an equal whole value,
    // which the index keys by that value (an array field by each element too: a superset), so
    // the index's candidates for it, filtered by the pipeline's $match, are the answer.
    const array probe = values ? array{} : array{let_values.empty() ? value() : let_values[expr_let]};
    auto sub = child_ctx(ctx, std::move(let_values));
    if (st.index) {
      // Through the index: the candidates of these values, confirmed by the equality and the
      // sub-pipeline's leading $match (the `$expr` form: by the pipeline's first stage). A
      // value without an index point (null, an array, a regex) makes read() decline: a
      // planned scan below answers that document.
      std::vector<document> found;
      auto read = st.index->read(values ? *values : probe, found, ctx.options->max_stage_bytes);
      if (!read && read.error().kind == failure_kind::limit_exceeded) {
        fail("stage `$lookup` exceeded its memory limit of " + limit_text(ctx.options->max_stage_bytes) + ": " +
             read.error().message);
      }
      if (!read) fail(read.error().message);
      if (*read && values) {
        auto exact = filter::compile(equality_filter(foreign_field, *values));
        if (!exact) fail(exact.error().message);
        std::erase_if(found, [&](const document& f) { return !exact->matches(f) || !st.pushed->matches(f); });
        source = vector_cursor(std::move(found));
      } else if (*read) {
        source = vector_cursor(std::move(found));
      }
    }
    if (source) {
    } else if (st.table) {
      auto exact = filter::compile(equality_filter(foreign_field, *values));
      if (!exact) fail(exact.error().message);
      source = vector_cursor(st.table->matches(*values, *exact));
    } else {
      document f = values ? equality_filter(foreign_field, std::move(*values)) : document{};
      source = collection_cursor(*sub, from, both(std::move(f), pushed));
    }
    cursor_ptr c = open_pipeline(rest, std::move(source), *sub);
    return drain(*c, *st.budget, ctx, levels);
  }

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    const bool cacheable = foreign_field.empty() && lets.empty();  // the same result for every document
    auto st = std::make_shared<state>();
    st->budget = std::make_unique<memory_budget>("$lookup", ctx);
    return each(std::move(input), ctx, [this, &ctx, cacheable, st](document& d) {
      std::vector<document> found;
      st->budget->release(st->budget->used());
      if (cacheable && st->cached) {
        st->budget->add(st->cache_budget->used());  // the copy
        found = *st->cached;
      } else {
        if (st->table) st->budget->add(st->table->bytes());
        found = matches(d, ctx, *st);
        if (cacheable) {
          st->cache_budget = std::make_unique<memory_budget>("$lookup", ctx);
          st->cache_budget->add(st->budget->used());
          st->cached = found;
        }
      }
      array arr;
      arr.reserve(found.size());
      for (document& f : found) arr.emplace_back(std::move(f));
      st->budget->adopt(set_path(d, as, value(std::move(arr))));
      return true;
    });
  }
};

struct union_stage final : stage {
  std::string coll;
  stage_list pipeline;
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    struct c final : cursor {
      cursor_ptr in;
      const union_stage& s;
      exec_ctx& ctx;
      std::unique_ptr<exec_ctx> sub;
      cursor_ptr other;
      c(cursor_ptr i, const union_stage& st, exec_ctx& x) : in(std::move(i)), s(st), ctx(x) {}
      bool next(document& out) override {
        if (in) {
          if (in->next(out)) return true;
          in.reset();
          sub = child_ctx(ctx);
          auto [filter, first] = pushdown(s.pipeline);
          const stage_list rest(s.pipeline.begin() + static_cast<std::ptrdiff_t>(first), s.pipeline.end());
          other = open_pipeline(rest, collection_cursor(*sub, s.coll, filter), *sub);
        }
        return other->next(out);
      }
    };
    return std::make_unique<c>(std::move(input), *this, ctx);
  }
};

struct facet_stage final : stage {
  std::vector<std::pair<std::string, stage_list>> facets;
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    // One budget for the input and the facets' results (the stage's limit covers both); the
    // input's share is given back once the facets have run, the results' once the output
    // document has been handed on. Each facet reads a charged copy of the input.
    auto held = std::make_unique<memory_budget>("$facet", ctx);
    std::vector<document> docs = drain(*input, *held, ctx, 0);
    const std::size_t input_bytes = held->used();
    document out;
    for (const auto& [name, stages] : facets) {
      auto sub = child_ctx(ctx);
      auto copy = std::make_unique<memory_budget>("$facet", ctx);
      copy->add(input_bytes);
      cursor_ptr c = open_pipeline(stages, vector_cursor(docs, std::move(copy)), *sub);
      std::vector<document> got = drain(*c, *held, ctx, 2);
      c.reset();
      array arr;
      arr.reserve(got.size());
      for (document& d : got) arr.emplace_back(std::move(d));
      out.push_back(field{name, value(std::move(arr))});
    }
    docs.clear();
    docs.shrink_to_fit();
    held->release(input_bytes);
    return vector_cursor({std::move(out)}, std::move(held));
  }
};

compile_ctx deeper(const compile_ctx& ctx) {
  compile_ctx c = ctx;
  c.depth = ctx.depth + 1;
  return c;
}

result<stage_list> sub_pipeline(const value& spec, const compile_ctx& ctx, const std::string& what) {
  if (!spec.is_array()) return make_error(what + " must be an array of stages");
  auto p = compile_pipeline(spec.as_array(), ctx);
  if (!p) return make_error(what + ": " + p.error().message);
  return p;
}

result<std::string> string_field(const document& d, std::string_view key, bool required) {
  const value* v = find_field(d, key);
  if (v == nullptr) {
    if (required) return make_error("missing " + quoted(key));
    return std::string();
  }
  if (!v->is_string() || v->as_string().empty()) return make_error(quoted(key) + " must be a non-empty string");
  return v->as_string();
}

}  // namespace

result<stage_ptr> compile_lookup(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document()) return make_error("the specification must be a document");
  const document& d = spec.as_document();
  for (const field& f : d) {
    static constexpr std::string_view known[] = {"from", "as", "localField", "foreignField", "let", "pipeline"};
    if (std::find(std::begin(known), std::end(known), f.name) == std::end(known)) return make_error("unknown argument " + quoted(f.name));
  }
  auto s = std::make_shared<lookup_stage>();
  auto from = string_field(d, "from", true);
  if (!from) return std::move(from).error();
  auto as = string_field(d, "as", true);
  if (!as) return std::move(as).error();
  auto lf = string_field(d, "localField", false);
  if (!lf) return std::move(lf).error();
  auto ff = string_field(d, "foreignField", false);
  if (!ff) return std::move(ff).error();
  if (lf->empty() != ff->empty()) return make_error("`localField` and `foreignField` go together");
  const value* pipeline = find_field(d, "pipeline");
  if (lf->empty() && pipeline == nullptr) return make_error("needs `localField` and `foreignField`, or a `pipeline`");
  if (auto p = field_path_parts(*as, "`as`"); !p) return std::move(p).error();
  s->from = *from;
  s->as = *as;
  s->levels = 2 + static_cast<int>(std::count(as->begin(), as->end(), '.'));
  s->local_field = *lf;
  s->foreign_field = *ff;
  if (!lf->empty()) {
    auto e = ctx.compile(value("$" + *lf));
    if (!e) return make_error("`localField`: " + e.error().message);
    s->local = std::move(*e);
  }
  compile_ctx sub = deeper(ctx);
  if (const value* let = find_field(d, "let")) {
    if (!let->is_document()) return make_error("`let` must be a document");
    for (const field& f : let->as_document()) {
      auto e = ctx.compile(f.val);
      if (!e) return make_error("`let` " + quoted(f.name) + ": " + e.error().message);
      s->lets.emplace_back(f.name, std::move(*e));
      sub.expr.variables.push_back(f.name);
    }
  }
  if (pipeline != nullptr) {
    auto p = sub_pipeline(*pipeline, sub, "`pipeline`");
    if (!p) return std::move(p).error();
    s->pipeline = std::move(*p);
  }
  if (lf->empty() && pipeline != nullptr && !pipeline->as_array().empty()) {
    const value& first = pipeline->as_array().front();
    const value* match = first.is_document() && first.as_document().size() == 1 ? find_field(first.as_document(), "$match") : nullptr;
    const value* e = match != nullptr && match->is_document() ? find_field(match->as_document(), "$expr") : nullptr;
    std::vector<std::string> names;
    for (const auto& [name, x] : s->lets) names.push_back(name);
    if (auto eq = e != nullptr ? find_expr_equality(*e, names) : std::nullopt) {
      s->expr_path = std::move(eq->path);
      s->expr_let = eq->let;
    }
  }
  auto [pushed, first] = pushdown(s->pipeline);
  s->pushed = std::move(pushed);
  s->rest.assign(s->pipeline.begin() + static_cast<std::ptrdiff_t>(first), s->pipeline.end());
  return stage_ptr(s);
}

result<stage_ptr> compile_union_with(const value& spec, const compile_ctx& ctx) {
  auto s = std::make_shared<union_stage>();
  if (spec.is_string()) {
    if (spec.as_string().empty()) return make_error("the collection name must not be empty");
    s->coll = spec.as_string();
    return stage_ptr(s);
  }
  if (!spec.is_document()) return make_error("takes a collection name or {coll, pipeline}");
  for (const field& f : spec.as_document()) {
    if (f.name != "coll" && f.name != "pipeline") return make_error("unknown argument " + quoted(f.name));
  }
  auto coll = string_field(spec.as_document(), "coll", true);
  if (!coll) return std::move(coll).error();
  s->coll = *coll;
  if (const value* p = find_field(spec.as_document(), "pipeline")) {
    auto sp = sub_pipeline(*p, deeper(ctx), "`pipeline`");
    if (!sp) return std::move(sp).error();
    s->pipeline = std::move(*sp);
  }
  return stage_ptr(s);
}

result<stage_ptr> compile_facet(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document() || spec.as_document().empty()) return make_error("the specification must be a non-empty document");
  auto s = std::make_shared<facet_stage>();
  for (const field& f : spec.as_document()) {
    if (f.name.empty() || f.name[0] == '$' || f.name.find('.') != std::string::npos) {
      return make_error("facet name " + quoted(f.name) + " must be non-empty, not start with '$' and not contain '.'");
    }
    auto p = sub_pipeline(f.val, deeper(ctx), "facet " + quoted(f.name));
    if (!p) return std::move(p).error();
    s->facets.emplace_back(f.name, std::move(*p));
  }
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
