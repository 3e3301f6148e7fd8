// Helpers for the pipeline tests: collections from JSON text in a memory_provider, pipelines
// from JSON text, results as one line of relaxed Extended JSON per document.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "engine/aggregate/pipeline.hpp"
#include "tests/engine/query/expr_ops_fixture.hpp"

namespace omgdb::engine::aggregate_test {

using expr_test::json_value;

inline std::vector<document> docs(std::string_view json_array) {
  value v = json_value(json_array);
  REQUIRE(v.is_array());
  std::vector<document> out;
  for (value& e : v.as_array()) {
    REQUIRE(e.is_document());
    out.push_back(std::move(e.as_document()));
  }
  return out;
}

struct fixture {
  memory_provider provider;
  pipeline_options options;

  fixture& with(std::string name, std::string_view json_array) {
    provider.collections[std::move(name)] = docs(json_array);
    return *this;
  }

  result<std::vector<document>> try_run(std::string_view pipeline_json, std::string_view collection = "c") {
    value p = json_value(pipeline_json);
    REQUIRE(p.is_array());
    return run_pipeline(provider, collection, p.as_array(), options);
  }

  // The output, one document per line.
  std::string run(std::string_view pipeline_json, std::string_view collection = "c") {
    return output(pipeline_json, collection, ejson_mode::relaxed);
  }

  std::string canonical(std::string_view pipeline_json, std::string_view collection = "c") {
    return output(pipeline_json, collection, ejson_mode::canonical);
  }

  // Runs the pipeline over whole documents, then again over documents cut to the fields it
  // reads (as the store's scan decodes them: pipeline_deps.cpp), and checks that both answer
  // alike, so every golden here also tests the field analysis. Pipelines that read the clock
  // or a random sequence are run once.
  std::string output(std::string_view pipeline_json, std::string_view collection, ejson_mode mode) {
    auto text = [&]() {
      auto r = try_run(pipeline_json, collection);
      REQUIRE_MESSAGE(r.ok(), pipeline_json, " failed: ", (r.ok() ? "" : r.error().message));
      std::string out;
      for (const document& d : *r) out += to_json(d, mode) + "\n";
      return out;
    };
    const std::string whole = text();
    const bool varies = pipeline_json.find("NOW") != std::string_view::npos ||
                        pipeline_json.find("$rand") != std::string_view::npos ||
                        pipeline_json.find("$sample") != std::string_view::npos ||
                        pipeline_json.find("CLUSTER_TIME") != std::string_view::npos;
    if (!varies && !provider.honor_fields) {
      provider.honor_fields = true;
      const std::string cut = text();
      provider.honor_fields = false;
      CHECK_MESSAGE(cut == whole, pipeline_json, ": decoding only the fields it reads gives\n", cut);
    }
    return whole;
  }

  std::string error(std::string_view pipeline_json, std::string_view collection = "c") {
    auto r = try_run(pipeline_json, collection);
    REQUIRE_MESSAGE(!r.ok(), "expected an error from ", pipeline_json);
    return r.error().message;
  }
};

// Lines joined with '\n' after each.
inline std::string lines(std::initializer_list<std::string_view> ls) {
  std::string out;
  for (std::string_view l : ls) out.append(l).push_back('\n');
  return out;
}

}  // namespace omgdb::engine::aggregate_test
