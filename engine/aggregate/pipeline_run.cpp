// Running a pipeline: the execution context, cursors over memory and collections, memory
// accounting, and the public run_pipeline.
#include <chrono>
#include <utility>

#include "engine/aggregate/stage.hpp"

namespace omgdb::engine {
namespace aggregate_detail {
namespace {

class memory_cursor final : public cursor {
 public:
  memory_cursor(std::vector<document> docs, std::unique_ptr<memory_budget> held)
      : docs_(std::move(docs)), held_(std::move(held)) {}
  bool next(document& out) override {
    if (pos_ >= docs_.size()) {
      held_.reset();
      docs_.clear();
      docs_.shrink_to_fit();
      return false;
    }
    out = std::move(docs_[pos_++]);
    return true;
  }

 private:
  std::vector<document> docs_;
  std::unique_ptr<memory_budget> held_;
  std::size_t pos_ = 0;
};

class source_cursor final : public cursor {
 public:
  source_cursor(std::unique_ptr<document_source> src, exec_ctx& ctx, bool report)
      : src_(std::move(src)), ctx_(ctx), report_(report) {}
  bool next(document& out) override {
    ctx_.poll();
    auto r = src_->next(out);
    if (!r) fail(r.error().message);
    if (*r && report_ && ++read_ % 1000 == 0 && ctx_.options->control.progress) {
      ctx_.options->control.progress(read_, 0);
    }
    return *r;
  }

 private:
  std::unique_ptr<document_source> src_;
  exec_ctx& ctx_;
  bool report_;
  std::uint64_t read_ = 0;
};

}  // namespace

void exec_ctx::poll() const {
  if (ticks != nullptr && (++*ticks & 255) != 1) return;  // the first call, then every 256th
  const auto* flag = options->control.cancelled;
  if (flag != nullptr && flag->load(std::memory_order_relaxed)) throw expression_error("cancelled", failure_kind::cancelled);
  budget->poll();
}

void memory_budget::over() const {
  fail_limit("stage " + quoted(stage_) + " exceeded its memory limit of " + limit_text(limit_) +
             " (it holds documents in memory and does not spill to disk): add a `$match` or `$project` before it, "
             "group on fewer distinct keys, or add a `$limit` after a `$sort`");
}

void memory_budget::add(std::size_t bytes) {
  if (bytes > limit_ - std::min(used_, limit_)) over();
  call_.charge(bytes, what_);
  used_ += bytes;
}

void memory_budget::adopt(std::size_t bytes, bool check) {
  call_.adopt(bytes);
  used_ += bytes;
  if (check && used_ > limit_) over();
}

void output_hold::check_depth(const document& d, std::string_view what) {
  call_budget::check_depth(measure_document(d, k_max_built_depth).depth, what);
}

void output_hold::hold(const document& d, std::string_view what) {
  hold_.reset();
  const value_measure m = measure_document(d, k_max_built_depth);
  call_budget::check_depth(m.depth, what);
  hold_.charge(m.bytes, what);
}

std::size_t approx_bytes(const document& d) { return held_bytes(d); }
std::size_t approx_bytes(const value& v) { return held_bytes(v); }

cursor_ptr vector_cursor(std::vector<document> docs, std::unique_ptr<memory_budget> held) {
  return std::make_unique<memory_cursor>(std::move(docs), std::move(held));
}

cursor_ptr collection_cursor(exec_ctx& ctx, std::string_view collection, const document& filter,
                             const std::vector<std::string>* fields) {
  auto src = fields != nullptr ? ctx.provider->scan_fields(collection, filter, ctx.options->control, *fields)
                               : ctx.provider->scan(collection, filter, ctx.options->control);
  if (!src) fail(src.error().message);
  return std::make_unique<source_cursor>(std::move(*src), ctx, ctx.depth == 0);
}

cursor_ptr open_pipeline(const stage_list& stages, cursor_ptr input, exec_ctx& ctx) {
  for (const stage_ptr& s : stages) input = s->open(std::move(input), ctx);
  return input;
}

namespace {

// set_path's walk; `copy_bytes` is what one more copy of the value costs (measured once,
// when the path first meets an array), `charged` what the copies have charged.
void set_path_at(document& doc, std::string_view path, value v, std::uint64_t& copy_bytes, std::uint64_t& charged) {
  const std::size_t dot = path.find('.');
  const std::string_view head = path.substr(0, dot);
  value* existing = find_field(doc, head);
  if (dot == std::string_view::npos) {
    if (existing != nullptr) {
      *existing = std::move(v);
    } else {
      doc.push_back(field{std::string(head), std::move(v)});
    }
    return;
  }
  const std::string_view rest = path.substr(dot + 1);
  if (existing == nullptr) {
    doc.push_back(field{std::string(head), value(document{})});
    existing = &doc.back().val;
  }
  if (existing->is_array()) {
    // Through an array the value is copied into every element: each copy is charged before
    // it is made (an array of a million documents would otherwise multiply the value).
    if (copy_bytes == 0) copy_bytes = measure_value(v, k_max_built_depth).bytes + sizeof(field) + sizeof(document);
    call_budget& budget = current_budget();
    for (value& e : existing->as_array()) {
      budget.charge(copy_bytes, "a field set through an array");
      charged += copy_bytes;
      if (!e.is_document()) e = value(document{});
      set_path_at(e.as_document(), rest, v, copy_bytes, charged);
    }
    return;
  }
  if (!existing->is_document()) *existing = value(document{});
  set_path_at(existing->as_document(), rest, std::move(v), copy_bytes, charged);
}

}  // namespace

std::uint64_t set_path(document& doc, std::string_view path, value v) {
  std::uint64_t copy_bytes = 0, charged = 0;
  set_path_at(doc, path, std::move(v), copy_bytes, charged);
  return charged;
}

}  // namespace aggregate_detail

using namespace aggregate_detail;

status run_pipeline(const collection_provider& provider, std::string_view collection, const array& pipeline,
                    const pipeline_options& options, const document_sink& sink) {
  compile_ctx cctx;
  cctx.expr.system_variables = true;
  cctx.max_depth = options.max_depth;
  auto stages = compile_pipeline(pipeline, cctx);
  if (!stages) return std::move(stages).error();
  std::uint64_t ticks = 0;
  exec_ctx ctx;
  ctx.provider = &provider;
  ctx.options = &options;
  ctx.ticks = &ticks;
  ctx.env.now_millis = options.now_millis != 0
                           ? options.now_millis
                           : std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch()).count();
  ctx.env.variables = &ctx.variables;
  ctx.budget = &current_budget();
  try {
    // A leading $match without $expr is the collection scan's own filter (and can use an index).
    document filter;
    std::size_t first = 0;
    if (!stages->empty()) {
      if (const document* f = pushable_filter(stages->front())) {
        filter = *f;
        first = 1;
      }
    }
    const stage_list rest(stages->begin() + static_cast<std::ptrdiff_t>(first), stages->end());
    // Only the fields the stages can read are decoded from the store (pipeline_deps.cpp).
    const auto fields = source_fields(pipeline, first);
    cursor_ptr out = open_pipeline(rest, collection_cursor(ctx, collection, filter, fields ? &*fields : nullptr), ctx);
    document d;
    while (out->next(d)) {
      ctx.poll();
      if (!sink(std::move(d))) break;
      d = document{};
    }
  } catch (const expression_error& e) {
    return e.to_failure();
  }
  return {};
}

result<std::vector<document>> run_pipeline(const collection_provider& provider, std::string_view collection,
                                           const array& pipeline, const pipeline_options& options) {
  std::vector<document> out;
  auto st = run_pipeline(provider, collection, pipeline, options, [&](document&& d) {
    out.push_back(std::move(d));
    return true;
  });
  if (!st) return std::move(st).error();
  return out;
}

}  // namespace omgdb::engine
