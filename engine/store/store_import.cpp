// omgdb engine — import_jsonl: a JSON Lines file in atomic batches.
//
// Lines are read with a bound (line_reader.hpp: regular files only, a line past the limit is
// refused without being held, cancellation checked while reading), parsed (strict JSON, then
// the document rules) outside the writer lock; each batch of `batch_size` non-blank lines is
// then inserted on one write_session and committed once. The first batch holding a bad line is
// not written, and the import stops there; its error says how far the committed batches reach
// and the line to resume from. Progress is reported at most every k_progress_every, plus once
// at the end.
#include <chrono>

#include "common/json.hpp"
#include "engine/store/line_reader.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::engine {
namespace {

using namespace detail;

constexpr std::uint64_t k_default_batch = 1000;
constexpr std::uint64_t k_max_batch = 100000;
constexpr std::size_t k_max_line = (16u << 20) + (64u << 10);  // a 16 MiB document as JSON, roughly
constexpr std::size_t k_listed_errors = 20;
constexpr std::chrono::milliseconds k_progress_every{200};

struct parsed_line {
  std::uint64_t line = 0;
  document doc;
};

struct batch_state {
  std::vector<parsed_line> docs;
  std::vector<std::string> errors;
  // The kind of the batch's failure: conflict when every bad line is a duplicate `_id` (or
  // another conflict with what is stored), else invalid_argument.
  failure_kind kind = failure_kind::conflict;
  std::uint64_t first_line = 0;
  std::uint64_t last_line = 0;
  std::uint64_t size() const { return docs.size() + errors.size(); }
};

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

std::string plural(std::uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

// How far the committed batches reach and where to go on, for an import that stopped after
// committing some (nothing when none was: running the same import again is the way on).
std::string resume_hint(const store::import_result& done, std::uint64_t committed_through) {
  if (done.batches == 0) return "";
  return " (lines 1–" + std::to_string(committed_through) + "); they stay. To resume, import from line " +
         std::to_string(committed_through + 1) + " (on the command line: `omgdb import … --from-line " +
         std::to_string(committed_through + 1) + "`): importing the whole file again fails on the committed _ids";
}

// A line that is not valid JSON: invalid UTF-8 is named as such, with its byte offset.
std::string parse_error(std::string_view line, const failure& why) {
  if (auto bad = first_invalid_utf8(line)) {
    return "invalid UTF-8 at byte " + std::to_string(*bad) + " of the line (0x" +
           hex(line.substr(*bad, 1)) + ")";
  }
  return why.message;
}

failure batch_failed(const batch_state& b, const store::import_result& done, std::uint64_t committed_through) {
  std::string msg = "batch " + std::to_string(done.batches + 1) + " (lines " + std::to_string(b.first_line) +
                    "–" + std::to_string(b.last_line) + ") was not imported: ";
  for (std::size_t i = 0; i < b.errors.size() && i < k_listed_errors; ++i) {
    if (i != 0) msg += "; ";
    msg += b.errors[i];
  }
  if (b.errors.size() > k_listed_errors) {
    msg += "; and " + std::to_string(b.errors.size() - k_listed_errors) + " more bad lines";
  }
  msg += ". " + plural(done.imported, "document", "documents") + " in " +
         plural(done.batches, "batch", "batches") + " were imported before it" + resume_hint(done, committed_through);
  return make_error(msg, b.kind);
}

}  // namespace

result<store::import_result> store::import_jsonl(std::string_view collection, const std::string& file,
                                                 std::uint64_t batch_size, const scan_control& control,
                                                 std::uint64_t from_line) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  if (batch_size == 0) batch_size = k_default_batch;
  if (batch_size > k_max_batch) {
    return make_error("batchSize " + std::to_string(batch_size) + " is too large (at most " +
                      std::to_string(k_max_batch) + ")");
  }
  auto reader = line_reader::open(file, k_max_line, control.cancelled);
  if (!reader) return std::move(reader).error();
  const std::uint64_t total_bytes = reader->file_size();

  import_result out;
  batch_state batch;
  std::uint64_t committed_through = from_line > 0 ? from_line - 1 : 0;  // lines before are done
  const scan_control quiet{control.cancelled, {}};
  auto last_report = std::chrono::steady_clock::now();
  // Cancellation at every call; progress only every k_progress_every, or when `last`.
  auto report = [&](bool last) -> status {
    if (auto p = poll(quiet, 0, 0); !p) return p;
    auto now = std::chrono::steady_clock::now();
    if (!control.progress || (!last && now - last_report < k_progress_every)) return {};
    last_report = now;
    control.progress(last ? total_bytes : reader->bytes_read(), total_bytes);
    return {};
  };
  // Every error after a committed batch says how far the import got.
  auto stopped = [&](failure f) {
    if (out.batches > 0 && f.message.find(" were imported before it") == std::string::npos) {
      f.message += ". " + plural(out.imported, "document", "documents") + " in " +
                   plural(out.batches, "batch", "batches") + " were committed before it" +
                   resume_hint(out, committed_through);
    }
    return f;
  };

  auto flush = [&]() -> status {
    if (batch.size() == 0) return {};
    if (!batch.errors.empty()) return batch_failed(batch, out, committed_through);
    write_session w(*impl_, quiet);
    auto c = w.collection(collection, true);
    if (!c) return std::move(c).error();
    for (auto& p : batch.docs) {
      auto id = w.insert(**c, std::move(p.doc));
      if (!id) {
        batch.errors.push_back("line " + std::to_string(p.line) + ": " + id.error().message);
        if (id.error().kind != failure_kind::conflict) batch.kind = id.error().kind;
      }
    }
    if (!batch.errors.empty()) return batch_failed(batch, out, committed_through);
    if (auto cm = w.commit(); !cm) return std::move(cm).error();
    out.imported += batch.docs.size();
    ++out.batches;
    committed_through = batch.last_line;
    batch = batch_state{};
    return report(false);
  };

  std::string line;
  while (true) {
    auto got = reader->next(line);
    if (!got) return stopped(std::move(got).error());
    if (*got == line_reader::got::end) break;
    ++out.lines;
    if (out.lines % k_poll_every == 0) {
      if (auto p = report(false); !p) return stopped(std::move(p).error());
    }
    if (out.lines < from_line) continue;
    if (*got == line_reader::got::line && blank(line)) continue;
    if (batch.size() == 0) batch.first_line = out.lines;
    batch.last_line = out.lines;
    auto where = [&] { return "line " + std::to_string(out.lines) + ": "; };  // errors only
    if (*got == line_reader::got::too_long) {
      batch.errors.push_back(where() + "longer than " + std::to_string(k_max_line) + " bytes");
      batch.kind = failure_kind::invalid_argument;
    } else if (auto j = json::parse_strict(line); !j) {
      batch.errors.push_back(where() + parse_error(line, j.error()));
      batch.kind = failure_kind::invalid_argument;
    } else if (auto d = document_from_json(*j); !d) {
      batch.errors.push_back(where() + d.error().message);
      batch.kind = failure_kind::invalid_argument;
    } else {
      batch.docs.push_back(parsed_line{out.lines, std::move(*d)});
    }
    if (batch.size() >= batch_size) {
      if (auto f = flush(); !f) return stopped(std::move(f).error());
    }
  }
  if (auto f = flush(); !f) return stopped(std::move(f).error());
  if (auto p = report(true); !p) return stopped(std::move(p).error());
  return out;
}

}  // namespace omgdb::engine
