// dump, describe and did-you-mean names.
#include "tests/engine/store/store_fixture.hpp"

using namespace omgdb::engine;
using namespace omgdb::engine::test;

TEST_CASE("dump writes a header per collection, then canonical Extended JSON in _id order") {
  fresh_store s;
  REQUIRE(s->insert("users", doc(R"({"_id":2,"n":1.5,"d":{"$date":"2024-01-02T03:04:05Z"}})")).ok());
  REQUIRE(s->insert("users", doc(R"({"_id":1,"big":{"$numberLong":"7"}})")).ok());
  REQUIRE(s->create_collection("a_empty").ok());
  CHECK(dump_text(*s) ==
        "{\"collection\":\"a_empty\",\"count\":0}\n"
        "{\"collection\":\"users\",\"count\":2}\n"
        "{\"_id\":{\"$numberInt\":\"1\"},\"big\":{\"$numberLong\":\"7\"}}\n"
        "{\"_id\":{\"$numberInt\":\"2\"},\"n\":{\"$numberDouble\":\"1.5\"},"
        "\"d\":{\"$date\":{\"$numberLong\":\"1704164645000\"}}}\n");
}

TEST_CASE("dump is byte-identical for the same documents inserted in different orders") {
  std::vector<std::pair<std::string, std::string>> data = {
      {"users", R"({"_id":1,"name":"ana"})"},
      {"users", R"({"_id":"x","tags":["a",1]})"},
      {"orders", R"({"_id":{"$oid":"65a1b2c3d4e5f60718293a4b"},"total":9.5})"},
      {"users", R"({"_id":-2.5,"nested":{"a":{"b":null}}})"},
      {"orders", R"({"_id":3})"},
  };
  fresh_store forward;
  for (const auto& [c, d] : data) REQUIRE(forward->insert(c, doc(d)).ok());
  fresh_store backward;
  for (auto it = data.rbegin(); it != data.rend(); ++it) {
    REQUIRE(backward->insert(it->first, doc(it->second)).ok());
  }
  std::string a = dump_text(*forward);
  CHECK(a == dump_text(*backward));
  CHECK(a.find("{\"collection\":\"orders\",\"count\":2}\n") == 0);
}

TEST_CASE("dump stops when the sink returns false") {
  fresh_store s;
  REQUIRE(s->insert_many("c", docs({R"({"_id":1})", R"({"_id":2})", R"({"_id":3})"})).ok());
  int lines = 0;
  auto st = s->dump([&](std::string_view) { return ++lines < 2; });
  CHECK(st.ok());
  CHECK(lines == 2);
}

TEST_CASE("describe lists collections, counts, sampled field paths and indexes") {
  fresh_store s;
  REQUIRE(s->insert_many("users", docs({R"({"_id":1,"name":"ana","address":{"city":"Oslo","geo":{"lat":1.5,"x":{"y":1}}},"tags":["a",2]})",
                                        R"({"_id":2,"name":"bo","tags":[]})",
                                        R"({"_id":"three","name":3})"}))
              .ok());
  REQUIRE(s->create_collection("empty").ok());
  auto md = s->describe();
  REQUIRE(md.ok());
  const std::string& m = *md;
  CAPTURE(m);
  CHECK(m.find("# omgdb store `" + s.path + "`\n") == 0);
  CHECK(m.find("2 collections, 3 documents.") != std::string::npos);
  CHECK(m.find("| `empty` | 0 |") != std::string::npos);
  CHECK(m.find("| `users` | 3 |") != std::string::npos);
  CHECK(m.find("## `users`") != std::string::npos);
  CHECK(m.find("| `_id` | int32\\|string | 3 of 3 |") != std::string::npos);
  CHECK(m.find("| `name` | int32\\|string | 3 of 3 |") != std::string::npos);
  CHECK(m.find("| `address` | document | 1 of 3 |") != std::string::npos);
  CHECK(m.find("| `address.city` | string | 1 of 3 |") != std::string::npos);
  CHECK(m.find("| `address.geo.lat` | double | 1 of 3 |") != std::string::npos);
  // Depth 3 is the deepest path; its document is not walked further.
  CHECK(m.find("| `address.geo.x` | document | 1 of 3 |") != std::string::npos);
  CHECK(m.find("address.geo.x.y") == std::string::npos);
  CHECK(m.find("| `tags` | array\\|array<int32\\|string> | 2 of 3 |") != std::string::npos);
  CHECK(m.find("Indexes: `_id_` (unique)") != std::string::npos);
}

TEST_CASE("describe of an empty store says there are no collections") {
  fresh_store s;
  auto md = s->describe();
  REQUIRE(md.ok());
  CHECK(*md == "# omgdb store `" + s.path + "`\n\nNo collections yet.\n");
}

TEST_CASE("closest_name finds near and case-insensitive names") {
  std::vector<std::string> names = {"users", "orders", "events"};
  CHECK(closest_name("userz", names) == "users");
  CHECK(closest_name("USERS", names) == "users");
  CHECK(closest_name("order", names) == "orders");
  CHECK(closest_name("evnts", names) == "events");
  CHECK(closest_name("products", names).empty());
  CHECK(closest_name("ab", {"xy"}).empty());
  CHECK(closest_name("x", {}).empty());
}
