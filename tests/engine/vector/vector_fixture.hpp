// Test helpers for engine/vector: a store whose documents each hold one made-up word, and
// an installed word-vector model that gives every word a known random vector, so the
// embedding of a document is exactly that vector normalised.
#pragma once

#include <cmath>
#include <random>
#include <sstream>

#include "engine/embed/loaders.hpp"
#include "engine/vector/vector_search.hpp"
#include "tests/engine/embed/model_files.hpp"
#include "tests/engine/store/store_fixture.hpp"

namespace omgdb::engine::test {

struct vector_world {
  temp_dir dir;
  std::shared_ptr<store> db;
  std::shared_ptr<embed::model_registry> models;
  std::uint32_t dim = 0;
  std::vector<std::vector<float>> unit;  // word i's vector, normalised

  // `words` random words w0 … of `dim` components, installed as models `name` (and, with
  // `second`, a different set of vectors as `second`).
  vector_world(std::size_t words, std::uint32_t d, std::uint64_t seed = 7) : dim(d) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<float> normal;
    std::ostringstream text, other;
    for (std::size_t i = 0; i < words; ++i) {
      std::vector<float> v(dim);
      text << "w" << i;
      other << "w" << i;
      for (auto& x : v) {
        x = normal(gen);
        text << ' ' << x;
        other << ' ' << -x;
      }
      text << '\n';
      other << '\n';
      double s = 0;
      for (float x : v) s += double(x) * x;
      for (auto& x : v) x = static_cast<float>(x / std::sqrt(s));
      unit.push_back(std::move(v));
    }
    write_file(dir.path() / "a.txt", text.str());
    write_file(dir.path() / "b.txt", other.str());
    const auto mdir = dir.path() / "models";
    REQUIRE(embed::install_model(mdir, "a", dir.path() / "a.txt", std::string(64, 'a')).ok());
    REQUIRE(embed::install_model(mdir, "b", dir.path() / "b.txt", std::string(64, 'b')).ok());
    models = std::make_shared<embed::model_registry>(mdir);
    REQUIRE(store::create(dir.sub("s.omgdb")).ok());
    auto opened = store::open(dir.sub("s.omgdb"));
    REQUIRE(opened.ok());
    db = *opened;
  }

  // Documents {_id: i, text: "w<i>", grp: i % 3} for i < n.
  void fill(std::size_t n) {
    std::vector<document> docs;
    for (std::size_t i = 0; i < n; ++i) {
      docs.push_back(document{{"_id", value(static_cast<std::int64_t>(i))},
                              {"text", value("w" + std::to_string(i))},
                              {"title", value("w" + std::to_string((i + 1) % unit.size()))},
                              {"grp", value(static_cast<std::int64_t>(i % 3))}});
    }
    REQUIRE(db->insert_many("docs", std::move(docs)).ok());
  }

  vector::sync_result sync(std::string field, std::optional<std::string> model = {}, std::size_t batch = 256) {
    vector::sync_request r;
    r.collection = "docs";
    r.field = std::move(field);
    r.model = std::move(model);
    r.batch = batch;
    auto out = vector::sync(*db, *models, r);
    REQUIRE_MESSAGE(out.ok(), (out ? "" : out.error().message));
    return *out;
  }
};

}  // namespace omgdb::engine::test
