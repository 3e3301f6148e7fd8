// omgdb engine — an update applied to a stored document's BSON bytes, decoding only the
// top-level fields the update names (update_raw.cpp). Not public: the write paths use it.
//
// The untouched top-level fields stand in the document apply() sees as placeholders (a field
// "." per run of them, holding the run's index) and are copied back byte for byte; only the touched
// fields are decoded, updated by update_spec::apply and encoded again. The result is the
// bytes `to_bson(apply(from_bson(stored)))` would give, whenever this path answers at all:
// it declines (outcome::decode) whenever the stored bytes are anything but what to_bson
// writes (corrupt, deprecated types, regexes, non-canonical array keys, a field name the
// document rules refuse, an `_id` array) and whenever the update fails or builds a document
// the rules or the encoder refuse, so that the caller's decoding path produces the exact
// error.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/update/update.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::detail {

class raw_updater {
 public:
  // nullopt when `spec` cannot run on bytes: it uses the positional `$`, a path starts with
  // `$[]` / `$[id]`, or it names `_id`. `spec` must outlive the updater.
  static std::optional<raw_updater> make(const update_spec& spec);

  // One stored document split into top-level elements, the touched ones decoded.
  struct prepared {
    std::string_view stored;
    // [begin, end) offsets of each run of untouched elements
    std::vector<std::pair<std::uint32_t, std::uint32_t>> elements;
    // The touched fields decoded, each run of untouched ones as one placeholder field named
    // "." holding the run's index
    document view;
  };
  // Splits and checks `stored` (see the header comment); false: decode it instead.
  bool prepare(std::string_view stored, prepared& out) const;

  enum class outcome { unchanged, changed, decode };
  // Applies the update to a prepared document. `changed`: the update is not a no-op
  // (update_outcome::changed) and `out` holds the new bytes — the stored ones again when a
  // $push was trimmed away by its $slice (still counted as modified, as MongoDB does).
  // `decode`: the caller must take the decoding path for this document.
  outcome finish(prepared& doc, const update_apply_options& options, std::string& out) const;

 private:
  raw_updater(const update_spec& spec, std::vector<std::string> roots) : spec_(&spec), roots_(std::move(roots)) {}
  bool touched(std::string_view name) const;

  const update_spec* spec_;
  std::vector<std::string> roots_;
};

// True when `stored` is a document from_bson accepts, written exactly as to_bson would write
// its decoded form, of only the types the byte path copies, with field names the document
// rules accept (checked at every depth). Exposed for tests.
bool raw_copyable_document(std::string_view stored);

}  // namespace omgdb::engine::detail
