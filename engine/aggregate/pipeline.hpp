// omgdb engine — MongoDB's aggregation pipeline over document sources.
//
// run_pipeline compiles `pipeline` (an array of stage documents: {$match: …}, {$group: …},
// …), then pulls documents from `collection` through the stages and hands each output
// document to `sink`. Stages, accumulators and expression operators, with the refused ones
// and why, are listed in docs/aggregation.md. Semantics are MongoDB's (9.0): the filter of
// `$match` is the query language (engine/query/filter.hpp), expressions are
// engine/query/expr.hpp.
//
// Bounds: `$group`, `$sort`, `$bucket`, `$bucketAuto`, `$facet`, `$sample`, `$lookup`,
// `$setWindowFields`, `$fill` and `$densify` (with the documents it generates) hold documents; each instance counts the approximate bytes it holds
// and fails the whole call with an error naming the stage and the limit once it would pass
// pipeline_options::max_stage_bytes (there is no spill to disk). `$sort` followed by
// `$limit` keeps only the top k. Sub-pipelines ($lookup, $facet, $unionWith) nest at most
// pipeline_options::max_depth deep.
//
// Cancellation and progress: every stage's loop polls options.control (engine/store/
// store.hpp); a set `cancelled` flag fails the call with "cancelled"; progress reports the
// documents read from the source collection.
//
// Thread safety: run_pipeline may be called from many threads at once; a provider must then
// be thread-safe itself.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "engine/query/sort.hpp"
#include "engine/store/store.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine {

// A stream of documents. next() returns false at the end.
class document_source {
 public:
  virtual ~document_source() = default;
  virtual result<bool> next(document& out) = 0;
};

// Where stages find collections: the pipeline's own, and those named by `$lookup` and
// `$unionWith`. `filter` is a query filter (engine/query/filter.hpp) the provider applies
// (and may answer with an index); {} means every document. Documents come in `_id` order.
// An unknown collection yields no documents, as in MongoDB.
class collection_provider {
 public:
  virtual ~collection_provider() = default;
  virtual result<std::unique_ptr<document_source>> scan(std::string_view collection, const document& filter,
                                                        const scan_control& control) const = 0;
  // scan() for a pipeline that reads only the top-level `fields` (sorted, `_id` among them):
  // a provider may leave the other fields out of the documents. The default gives them all.
  virtual result<std::unique_ptr<document_source>> scan_fields(std::string_view collection, const document& filter,
                                                               const scan_control& control,
                                                               const std::vector<std::string>& /*fields*/) const {
    return scan(collection, filter, control);
  }

  // `$lookup`'s foreign side through `_id` or an index leading with the foreign field (not
  // partial) — the foreignField, or the field of a `let` / `pipeline` form's `$expr` equality —
  // opened once per `$lookup` (store::equality_reader): read() appends the documents whose
  // `path` may equal one of `values` (a superset, in `_id` order; the caller confirms with the
  // equality filter), or returns false when a value has no index point (null, an array, a
  // regex, MinKey / MaxKey) so the caller reads another way; more than `max_bytes` for one
  // call is an error.
  class equality_source {
   public:
    virtual ~equality_source() = default;
    virtual result<bool> read(const array& values, std::vector<document>& out, std::size_t max_bytes) = 0;
  };
  // nullptr when `collection` has no such index (`_id` always has one in a store): `$lookup`
  // then reads the foreign collection once into a hash table (stage_lookup.cpp).
  virtual result<std::unique_ptr<equality_source>> equality_lookup(std::string_view /*collection*/,
                                                                   std::string_view /*path*/) const {
    return std::unique_ptr<equality_source>();
  }
};

// Collections held in memory (tests, and callers that have documents at hand).
class memory_provider final : public collection_provider {
 public:
  std::map<std::string, std::vector<document>, std::less<>> collections;
  // Leave out the fields a pipeline does not read, as the store does (scan_fields): the
  // aggregate fuzz target runs each pipeline both ways and the answers must be the same.
  bool honor_fields = false;
  result<std::unique_ptr<document_source>> scan(std::string_view collection, const document& filter,
                                                const scan_control& control) const override;
  result<std::unique_ptr<document_source>> scan_fields(std::string_view collection, const document& filter,
                                                       const scan_control& control,
                                                       const std::vector<std::string>& fields) const override;
};

// The collections of an open store, read through store::scan in `_id` order under one
// snapshot per scan, a page at a time (memory stays at one page), decoded from their stored
// BSON so types are exact (an int64 stays an int64). `stats`, when given, counts what was read.
class store_provider final : public collection_provider {
 public:
  struct stats {
    std::atomic<std::uint64_t> scans{0};        // scans opened
    std::atomic<std::uint64_t> index_scans{0};  // of them, answered from an index
    std::atomic<std::uint64_t> documents{0};    // documents read
  };
  explicit store_provider(const store& s, stats* counters = nullptr) : store_(s), stats_(counters) {}
  result<std::unique_ptr<document_source>> scan(std::string_view collection, const document& filter,
                                                const scan_control& control) const override;
  // Decodes only `fields` of each stored document (store::scan's `fields`).
  result<std::unique_ptr<document_source>> scan_fields(std::string_view collection, const document& filter,
                                                       const scan_control& control,
                                                       const std::vector<std::string>& fields) const override;
  result<std::unique_ptr<equality_source>> equality_lookup(std::string_view collection,
                                                           std::string_view path) const override;

 private:
  const store& store_;
  stats* stats_;
};

struct pipeline_options {
  // per stage instance: the same bound as an unindexed find sort (100 MiB; docs/decisions.md)
  std::size_t max_stage_bytes = k_max_sort_bytes;
  int max_depth = 20;                                    // nesting of sub-pipelines
  std::int64_t now_millis = 0;                           // $$NOW; 0: the system clock
  std::uint64_t sample_seed = 0;                         // $sample's random sequence
  scan_control control;
};

// Returning false from the sink stops the pipeline early (the call still succeeds).
using document_sink = std::function<bool(document&& out)>;

// Errors: a malformed pipeline or stage (naming the stage and its position: "stage 2
// (`$group`): …"), an unknown stage ("unknown stage `$grup` (did you mean `$group`?)"),
// a refused stage ($out, $merge: use the write tools; JavaScript: none), an expression that
// fails on some document, a stage past its memory limit, "cancelled".
[[nodiscard]] status run_pipeline(const collection_provider& provider, std::string_view collection,
                                  const array& pipeline, const pipeline_options& options,
                                  const document_sink& sink);

// run_pipeline collecting the output (for tests and small results).
[[nodiscard]] result<std::vector<document>> run_pipeline(const collection_provider& provider,
                                                         std::string_view collection, const array& pipeline,
                                                         const pipeline_options& options = {});

}  // namespace omgdb::engine
