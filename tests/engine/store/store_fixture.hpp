// Shared helpers for the store tests: temporary stores, documents from JSON text, raw
// RocksDB access for corrupting or downgrading a store on purpose.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/db.h>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "engine/store/store.hpp"

namespace omgdb::engine::test {

namespace fs = std::filesystem;

// A fresh directory under the system temp directory, removed (with everything in it) at the end.
class temp_dir {
 public:
  temp_dir() {
    std::random_device rd;
    std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
    path_ = fs::temp_directory_path() / ("omgdb-store-test-" + std::to_string(gen()));
    fs::create_directories(path_);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const fs::path& path() const { return path_; }
  std::string sub(std::string_view name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

inline document doc(std::string_view json_text) {
  auto j = json::parse_strict(json_text);
  REQUIRE_MESSAGE(j.ok(), json_text);
  auto d = document_from_json(*j);
  REQUIRE_MESSAGE(d.ok(), json_text);
  return std::move(*d);
}

inline value val(std::string_view json_text) {
  auto j = json::parse_strict(json_text);
  REQUIRE_MESSAGE(j.ok(), json_text);
  auto v = from_json(*j);
  REQUIRE_MESSAGE(v.ok(), json_text);
  return std::move(*v);
}

inline std::vector<document> docs(std::initializer_list<std::string_view> texts) {
  std::vector<document> out;
  for (auto t : texts) out.push_back(doc(t));
  return out;
}

// A created and opened store in its own temporary directory.
struct fresh_store {
  temp_dir dir;
  std::string path = dir.sub("app.omgdb");
  std::shared_ptr<store> db;

  fresh_store() {
    auto c = store::create(path);
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
    reopen();
  }
  void reopen() {
    db.reset();
    auto o = store::open(path);
    REQUIRE_MESSAGE(o.ok(), (o.ok() ? "" : o.error().message));
    db = std::move(*o);
  }
  store& operator*() { return *db; }
  store* operator->() { return db.get(); }
};

inline std::string dump_text(const store& s) {
  std::string out;
  auto st = s.dump([&](std::string_view line) {
    out.append(line).push_back('\n');
    return true;
  });
  REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
  return out;
}

inline std::size_t oplog_size(const store& s) {
  auto log = s.oplog();
  REQUIRE(log.ok());
  return log->size();
}

inline std::string find_all(const store& s, std::string_view collection, find_options o = {}) {
  auto page = s.find(collection, o);
  REQUIRE_MESSAGE(page.ok(), (page.ok() ? "" : page.error().message));
  return page->ndjson;
}

// The store's RocksDB opened directly (the store must be closed), with handles by name.
class raw_db {
 public:
  explicit raw_db(const std::string& path) {
    std::vector<std::string> names;
    rocksdb::DBOptions o;
    REQUIRE(rocksdb::DB::ListColumnFamilies(o, path, &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& n : names) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
    REQUIRE(rocksdb::DB::Open(o, path, families, &handles_, &db_).ok());
    names_ = names;
  }
  ~raw_db() {
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
    db_->Close().PermitUncheckedError();
    delete db_;
  }
  raw_db(const raw_db&) = delete;
  raw_db& operator=(const raw_db&) = delete;

  rocksdb::ColumnFamilyHandle* family(std::string_view name) {
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) return handles_[i];
    }
    FAIL("no column family " << std::string(name));
    return nullptr;
  }
  void put(std::string_view family_name, const std::string& key, const std::string& v) {
    REQUIRE(db_->Put(rocksdb::WriteOptions(), family(family_name), key, v).ok());
  }
  std::string get(std::string_view family_name, const std::string& key) {
    std::string v;
    REQUIRE(db_->Get(rocksdb::ReadOptions(), family(family_name), key, &v).ok());
    return v;
  }
  void erase(std::string_view family_name, const std::string& key) {
    REQUIRE(db_->Delete(rocksdb::WriteOptions(), family(family_name), key).ok());
  }
  // Every key of a family, in order.
  std::vector<std::string> keys(std::string_view family_name) {
    std::vector<std::string> out;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), family(family_name)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.push_back(it->key().ToString());
    return out;
  }

 private:
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::vector<std::string> names_;
};

}  // namespace omgdb::engine::test
