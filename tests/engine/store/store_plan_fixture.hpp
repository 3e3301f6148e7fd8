// Helpers for the verify and plan tests: the whole RocksDB state of a closed store (every
// column family, keys and values), and raw writes and deletes behind the store's back.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/engine/store/store_fixture.hpp"

namespace omgdb::engine::test {

// The store's RocksDB opened directly; the store must be closed.
class raw_store {
 public:
  explicit raw_store(const std::string& path) {
    rocksdb::DBOptions o;
    REQUIRE(rocksdb::DB::ListColumnFamilies(o, path, &names_).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& n : names_) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
    REQUIRE(rocksdb::DB::Open(o, path, families, &handles_, &db_).ok());
  }
  ~raw_store() {
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
    db_->Close().PermitUncheckedError();
    delete db_;
  }
  raw_store(const raw_store&) = delete;
  raw_store& operator=(const raw_store&) = delete;

  rocksdb::ColumnFamilyHandle* family(std::string_view name) {
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (names_[i] == name) return handles_[i];
    }
    FAIL("no column family " << std::string(name));
    return nullptr;
  }
  void put(std::string_view fam, const std::string& key, const std::string& v) {
    REQUIRE(db_->Put(rocksdb::WriteOptions(), family(fam), key, v).ok());
  }
  void del(std::string_view fam, const std::string& key) {
    REQUIRE(db_->Delete(rocksdb::WriteOptions(), family(fam), key).ok());
  }
  // Every (key, value) of a family, in key order.
  std::vector<std::pair<std::string, std::string>> entries(std::string_view fam) {
    std::vector<std::pair<std::string, std::string>> out;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), family(fam)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key().ToString(), it->value().ToString());
    return out;
  }
  // Every family's entries, by family name.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> everything() {
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;
    for (const auto& n : names_) out[n] = entries(n);
    return out;
  }

 private:
  rocksdb::DB* db_ = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::vector<std::string> names_;
};

// The complete stored state of `s` (closed for the read, then reopened).
inline std::map<std::string, std::vector<std::pair<std::string, std::string>>> stored_state(fresh_store& s) {
  s.db.reset();
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;
  {
    raw_store raw(s.path);
    out = raw.everything();
  }
  s.reopen();
  return out;
}

}  // namespace omgdb::engine::test
