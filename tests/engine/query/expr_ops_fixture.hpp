// Helpers for the expression operator tests: evaluate an expression (JSON text) against a
// document with the aggregation pipeline's options ($$NOW at a fixed instant, $$REMOVE).
#pragma once

#include <doctest/doctest.h>

#include "engine/query/expr.hpp"
#include "tests/engine/query/query_fixture.hpp"

namespace omgdb::engine::expr_test {

inline value json_value(std::string_view text) {
  auto j = json::parse_strict(text);
  REQUIRE_MESSAGE(j.ok(), "bad JSON in test: ", text);
  auto v = from_json(*j);
  REQUIRE_MESSAGE(v.ok(), "bad value in test: ", text);
  return std::move(*v);
}

inline result<expr_value> try_eval(std::string_view expr_json, std::string_view doc_json) {
  expression_options o;
  o.system_variables = true;
  auto e = expression::compile(json_value(expr_json), o);
  if (!e) return std::move(e).error();
  eval_env env;
  env.now_millis = 1700000000000;
  return e->evaluate(query_test::doc(doc_json), env);
}

// The result in relaxed Extended JSON, or "missing".
inline std::string ev(std::string_view expr_json, std::string_view doc_json = "{}") {
  auto v = try_eval(expr_json, doc_json);
  REQUIRE_MESSAGE(v.ok(), expr_json, " failed: ", (v.ok() ? "" : v.error().message));
  return *v ? to_json(**v) : "missing";
}

// The result in canonical Extended JSON (types show), or "missing".
inline std::string canon(std::string_view expr_json, std::string_view doc_json = "{}") {
  auto v = try_eval(expr_json, doc_json);
  REQUIRE_MESSAGE(v.ok(), expr_json, " failed: ", (v.ok() ? "" : v.error().message));
  return *v ? to_json(**v, ejson_mode::canonical) : "missing";
}

// A compile or run-time error.
inline std::string err(std::string_view expr_json, std::string_view doc_json = "{}") {
  auto v = try_eval(expr_json, doc_json);
  REQUIRE_MESSAGE(!v.ok(), "expected an error from ", expr_json);
  return v.error().message;
}

}  // namespace omgdb::engine::expr_test
