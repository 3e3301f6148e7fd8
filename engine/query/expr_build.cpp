// Building results in a loop under the call's budget (expr_detail.hpp): the helpers every
// operator that builds an array or a string as it goes uses, so that nothing an argument asks
// for is built past the bound before it is refused.
#include <algorithm>
#include <string>

#include "engine/query/expr_detail.hpp"

namespace omgdb::engine::expr_detail {

std::uint64_t held_extra(const value& v) {
  switch (v.type()) {
    case kind::string: return v.as_string().capacity() > 15 ? v.as_string().capacity() : 0;
    case kind::binary: return std::get<binary>(v.raw()).bytes.capacity();
    case kind::regex: return std::get<regex>(v.raw()).pattern.capacity();
    case kind::array:
    case kind::document: return measure_value(v, k_max_built_depth).bytes - sizeof(value);
    default: return 0;
  }
}

void reserve_built(eval_ctx& ctx, array& out, std::size_t more, std::string_view what) {
  const std::size_t need = out.size() + more;
  if (need <= out.capacity()) return;
  const std::size_t cap = std::max({need, out.capacity() * 2, std::size_t{4}});
  charge_built(ctx, static_cast<std::uint64_t>(cap - out.capacity()) * sizeof(value), what);
  out.reserve(cap);
}

void push_built(eval_ctx& ctx, array& out, value v, std::string_view what) {
  if (out.size() == out.capacity()) {
    reserve_built(ctx, out, 1, what);
  } else {
    ctx.budget.poll();
  }
  out.push_back(std::move(v));
}

void push_copy(eval_ctx& ctx, array& out, const value& v, std::string_view what) {
  if (const std::uint64_t extra = held_extra(v); extra != 0) charge_built(ctx, extra, what);
  push_built(ctx, out, v, what);
}

void append_built(eval_ctx& ctx, std::string& out, std::string_view piece, std::string_view what) {
  const std::size_t need = out.size() + piece.size();
  if (need > out.capacity()) {
    const std::size_t cap = std::max({need, out.capacity() * 2, std::size_t{32}});
    charge_built(ctx, cap - out.capacity(), what);
    out.reserve(cap);
  } else {
    ctx.budget.poll();
  }
  out.append(piece);
}

void fail_string_bound(std::string_view op) {
  throw expression_error(std::string(op) + ": the result would be longer than " + byte_size_text(k_max_string_bytes) +
                             ", the longest string omgdb builds (a BSON document holds no longer one)",
                         failure_kind::limit_exceeded);
}

}  // namespace omgdb::engine::expr_detail
