// Issue 29, item 1: the relaxed and canonical JSON writers and to_boost_json walk a value
// without recursion, so no value — however deep, whatever built it — can overflow the stack
// of the thread that writes a tool's result. Run on a thread with a 256 KiB stack, where the
// recursive writers overflowed at a few thousand levels.
#include <doctest/doctest.h>
#include <pthread.h>

#include <boost/json.hpp>
#include <functional>
#include <string>

#include "engine/value/ejson.hpp"

using namespace omgdb::engine;

namespace {

// `depth` arrays (or documents {"a": …}) around 7.
value nested(int depth, bool documents) {
  value v(std::int32_t{7});
  for (int i = 0; i < depth; ++i) {
    if (documents) {  // no initializer lists: they would copy the value
      document d;
      d.push_back(field{"a", std::move(v)});
      v = value(std::move(d));
    } else {
      array a;
      a.push_back(std::move(v));
      v = value(std::move(a));
    }
  }
  return v;
}

// Runs `f` on a thread whose stack is `bytes` long.
void on_small_stack(std::size_t bytes, std::function<void()> f) {
  pthread_attr_t attr;
  REQUIRE(pthread_attr_init(&attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&attr, bytes) == 0);
  pthread_t t;
  auto run = [](void* p) -> void* {
    (*static_cast<std::function<void()>*>(p))();
    return nullptr;
  };
  REQUIRE(pthread_create(&t, &attr, run, &f) == 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
}

// Takes `v` apart level by level, so that its destructor does not recurse either.
void dismantle(value& v) {
  while (v.is_array() || v.is_document()) {
    value inner = v.is_array() ? std::move(v.as_array().front()) : std::move(v.as_document().front().val);
    v = std::move(inner);
  }
}

}  // namespace

TEST_CASE("a value nested 30,000 deep is written as relaxed and canonical JSON on a small stack") {
  for (bool documents : {false, true}) {
    value v = nested(30000, documents);
    std::string relaxed, canonical;
    on_small_stack(256 << 10, [&] {
      relaxed = to_json(v);
      canonical = to_json(v, ejson_mode::canonical);
    });
    const std::string open = documents ? "{\"a\":" : "[";
    const std::string close = documents ? "}" : "]";
    CHECK(relaxed.size() == 30000 * (open.size() + close.size()) + 1);
    CHECK(relaxed.substr(0, 2 * open.size()) == open + open);
    CHECK(relaxed.substr(30000 * open.size(), 3) == "7" + close + close);
    CHECK(canonical.find("{\"$numberInt\":\"7\"}") == 30000 * open.size());
    dismantle(v);
  }
}

TEST_CASE("to_boost_json converts a value nested 30,000 deep on a small stack, keeping its meaning") {
  value v = nested(30000, true);
  boost::json::value j;
  on_small_stack(256 << 10, [&] { j = to_boost_json(v); });
  const boost::json::value* p = &j;
  int depth = 0;
  while (p->is_object()) {
    p = &p->as_object().at("a");
    ++depth;
  }
  CHECK(depth == 30000);
  CHECK(p->as_int64() == 7);
  // Boost.JSON frees a nested value recursively; release it level by level.
  while (j.is_object()) {
    boost::json::value inner = std::move(j.as_object().at("a"));
    j = std::move(inner);
  }
  dismantle(v);
  CHECK(to_json(value(document{{"x", value(array{value(1), value(document{})})}, {"y", value(array{})}})) ==
        R"({"x":[1,{}],"y":[]})");
}
