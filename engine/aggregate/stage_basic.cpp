// The streaming stages: $match, $limit, $skip, $count, $replaceRoot / $replaceWith, $redact.
#include <utility>

#include "engine/aggregate/stage.hpp"
#include "engine/query/filter.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

// --- $match ------------------------------------------------------------------------------

struct match_stage final : stage {
  document spec;
  bool pushable = false;                 // no top-level $expr: a scan can apply `spec` itself
  std::shared_ptr<const filter> query;   // everything but a top-level $expr
  std::vector<expression> exprs;         // top-level $expr, with the pipeline's variables

  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    return each(std::move(input), ctx, [this, &ctx](document& d) {
      if (!query->matches(d)) return false;
      for (const expression& e : exprs) {
        if (!expr_truthy(ctx.eval(e, d))) return false;
      }
      return true;
    });
  }
};

}  // namespace

result<stage_ptr> compile_match(const value& spec, const compile_ctx& ctx) {
  if (!spec.is_document()) return make_error("the filter must be a document");
  auto s = std::make_shared<match_stage>();
  s->spec = spec.as_document();
  document rest;
  for (const field& f : s->spec) {
    if (f.name == "$where") return make_error("`$where` is not supported: omgdb runs no JavaScript");
    if (f.name == "$expr") {
      auto e = ctx.compile(f.val);
      if (!e) return make_error("`$expr`: " + e.error().message, e.error().kind);
      s->exprs.push_back(std::move(*e));
    } else {
      rest.push_back(f);
    }
  }
  auto q = filter::compile(rest);
  if (!q) return std::move(q).error();
  s->query = std::make_shared<const filter>(std::move(*q));
  s->pushable = s->exprs.empty();
  return stage_ptr(s);
}

const document* pushable_filter(const stage_ptr& s) {
  const auto* m = dynamic_cast<const match_stage*>(s.get());
  return m != nullptr && m->pushable ? &m->spec : nullptr;
}

namespace {

// --- $limit, $skip -------------------------------------------------------------------------

struct limit_stage final : stage {
  std::uint64_t n = 0;
  bool skip = false;
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    struct c final : cursor {
      cursor_ptr in;
      std::uint64_t n, seen = 0;
      bool skip;
      exec_ctx& ctx;
      c(cursor_ptr i, std::uint64_t k, bool s, exec_ctx& x) : in(std::move(i)), n(k), skip(s), ctx(x) {}
      bool next(document& out) override {
        if (!skip) return seen < n && (++seen, in->next(out));
        while (seen < n) {
          ctx.poll();
          if (!in->next(out)) return false;
          ++seen;
        }
        return in->next(out);
      }
    };
    return std::make_unique<c>(std::move(input), n, skip, ctx);
  }
};

result<std::uint64_t> count_arg(const value& spec, bool positive, const char* what) {
  const double d = spec.is_number() && !spec.is_decimal() ? spec.number_as_double() : -1;
  if (!spec.is_number() || d != static_cast<double>(static_cast<std::int64_t>(d)) || d < (positive ? 1 : 0) ||
      d > 9.2e18) {
    return make_error(std::string(what) + (positive ? " must be a positive integer" : " must be a non-negative integer"));
  }
  return static_cast<std::uint64_t>(d);
}

// --- $count ---------------------------------------------------------------------------------

struct count_stage final : stage {
  std::string name;
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    std::int64_t n = 0;
    document d;
    while (input->next(d)) {
      ctx.poll();
      ++n;
    }
    std::vector<document> out;
    if (n > 0) out.push_back(document{{name, n <= INT32_MAX ? value(static_cast<std::int32_t>(n)) : value(n)}});
    return vector_cursor(std::move(out));
  }
};

// --- $replaceRoot / $replaceWith -----------------------------------------------------------

struct replace_root_stage final : stage {
  expression root;
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    // The new root is a value the call built: held (and depth-checked) while it is the
    // stage's latest output.
    auto held = std::make_shared<output_hold>(ctx);
    return each(std::move(input), ctx, [this, &ctx, held](document& d) {
      held->reset();
      expr_value v = ctx.eval(root, d);
      if (!v || !v->is_document()) {
        fail("'newRoot' expression must evaluate to an object, but resulting value was of type " +
             std::string(v ? bson_type_alias(*v) : "missing"));
      }
      d = std::move(v->as_document());
      held->hold(d, "stage `$replaceRoot`");
      return true;
    });
  }
};

// --- $redact -------------------------------------------------------------------------------

struct redact_stage final : stage {
  expression decide;
  // Applies the decision to `d` and, for $$DESCEND, to its embedded documents; false: prune.
  bool redact(document& d, exec_ctx& ctx) const {
    expr_value v = ctx.eval(decide, d);
    const std::string verdict = v && v->is_string() ? v->as_string() : "";
    if (verdict == "$$PRUNE") return false;
    if (verdict == "$$KEEP") return true;
    if (verdict != "$$DESCEND") fail("$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned " + std::string(v ? bson_type_alias(*v) : "missing"));
    document kept;
    for (field& f : d) {
      if (f.val.is_document()) {
        if (!redact(f.val.as_document(), ctx)) continue;
      } else if (f.val.is_array()) {
        array elems;
        for (value& e : f.val.as_array()) {
          if (e.is_document() && !redact(e.as_document(), ctx)) continue;
          elems.push_back(std::move(e));
        }
        f.val = value(std::move(elems));
      }
      kept.push_back(std::move(f));
    }
    d = std::move(kept);
    return true;
  }
  cursor_ptr open(cursor_ptr input, exec_ctx& ctx) const override {
    return each(std::move(input), ctx, [this, &ctx](document& d) { return redact(d, ctx); });
  }
};

}  // namespace

result<stage_ptr> compile_limit(const value& spec, const compile_ctx&) {
  auto n = count_arg(spec, true, "the limit");
  if (!n) return std::move(n).error();
  auto s = std::make_shared<limit_stage>();
  s->n = *n;
  return stage_ptr(s);
}

result<stage_ptr> compile_skip(const value& spec, const compile_ctx&) {
  auto n = count_arg(spec, false, "the number to skip");
  if (!n) return std::move(n).error();
  auto s = std::make_shared<limit_stage>();
  s->n = *n;
  s->skip = true;
  return stage_ptr(s);
}

std::optional<std::uint64_t> limit_of(const stage_ptr& s) {
  const auto* l = dynamic_cast<const limit_stage*>(s.get());
  if (l == nullptr || l->skip) return std::nullopt;
  return l->n;
}

result<stage_ptr> compile_count(const value& spec, const compile_ctx&) {
  if (!spec.is_string() || spec.as_string().empty()) return make_error("the count field must be a non-empty string");
  const std::string& n = spec.as_string();
  if (n.front() == '$') return make_error("the count field must not start with '$'");
  if (n.find('.') != std::string::npos) return make_error("the count field must not contain '.'");
  auto s = std::make_shared<count_stage>();
  s->name = n;
  return stage_ptr(s);
}

result<stage_ptr> compile_replace_with(const value& spec, const compile_ctx& ctx) {
  auto e = ctx.compile(spec);
  if (!e) return std::move(e).error();
  auto s = std::make_shared<replace_root_stage>();
  s->root = std::move(*e);
  return stage_ptr(s);
}

result<stage_ptr> compile_replace_root(const value& spec, const compile_ctx& ctx) {
  const value* root = spec.is_document() ? find_field(spec.as_document(), "newRoot") : nullptr;
  if (root == nullptr || spec.as_document().size() != 1) return make_error("takes exactly one field, `newRoot`");
  return compile_replace_with(*root, ctx);
}

result<stage_ptr> compile_redact(const value& spec, const compile_ctx& ctx) {
  auto e = ctx.compile(spec);
  if (!e) return std::move(e).error();
  auto s = std::make_shared<redact_stage>();
  s->decide = std::move(*e);
  return stage_ptr(s);
}

}  // namespace omgdb::engine::aggregate_detail
