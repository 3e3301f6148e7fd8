// omgdb engine — import_jsonl: a JSON Lines file in atomic batches.
//
// Lines are parsed (strict JSON, then the document rules) outside the writer lock; each batch
// of `batch_size` non-blank lines is then inserted on one write_session and committed once.
// The first batch holding a bad line is not written, and the import stops there.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/json.hpp"
#include "engine/value/ejson.hpp"
#include "engine/store/store_detail.hpp"

namespace omgdb::engine {
namespace {

using namespace detail;

constexpr std::uint64_t k_default_batch = 1000;
constexpr std::uint64_t k_max_batch = 100000;
constexpr std::size_t k_max_line = (16u << 20) + (64u << 10);  // a 16 MiB document as JSON, roughly
constexpr std::size_t k_listed_errors = 20;

struct parsed_line {
  std::uint64_t line = 0;
  document doc;
};

struct batch_state {
  std::vector<parsed_line> docs;
  std::vector<std::string> errors;
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

failure batch_failed(const batch_state& b, const store::import_result& done) {
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
         plural(done.batches, "batch", "batches") + " were imported before it";
  return make_error(msg);
}

}  // namespace

result<store::import_result> store::import_jsonl(std::string_view collection, const std::string& file,
                                                 std::uint64_t batch_size, const scan_control& control) {
  if (auto n = check_collection_name(collection); !n) return std::move(n).error();
  if (batch_size == 0) batch_size = k_default_batch;
  if (batch_size > k_max_batch) {
    return make_error("batchSize " + std::to_string(batch_size) + " is too large (at most " +
                      std::to_string(k_max_batch) + ")");
  }
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) return make_error("`" + file + "` is a directory, not a JSON Lines file");
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("cannot open `" + file + "`: " + std::strerror(errno));
  const auto total = std::filesystem::file_size(file, ec);
  const std::uint64_t total_bytes = ec ? 0 : static_cast<std::uint64_t>(total);

  import_result out;
  std::uint64_t bytes_read = 0;
  batch_state batch;

  auto flush = [&]() -> status {
    if (batch.size() == 0) return {};
    if (!batch.errors.empty()) return batch_failed(batch, out);
    std::lock_guard lock(impl_->writer);
    write_session w(*impl_, control);
    auto c = w.collection(collection, true);
    if (!c) return std::move(c).error();
    for (auto& p : batch.docs) {
      auto id = w.insert(**c, std::move(p.doc));
      if (!id) batch.errors.push_back("line " + std::to_string(p.line) + ": " + id.error().message);
    }
    if (!batch.errors.empty()) return batch_failed(batch, out);
    if (auto cm = w.commit(); !cm) return std::move(cm).error();
    out.imported += batch.docs.size();
    ++out.batches;
    batch = batch_state{};
    return poll(control, bytes_read, total_bytes);
  };

  std::string line;
  while (std::getline(in, line)) {
    ++out.lines;
    bytes_read += line.size() + 1;
    if (out.lines % k_poll_every == 0) {
      if (auto p = poll(control, bytes_read, total_bytes); !p) return std::move(p).error();
    }
    if (blank(line)) continue;
    if (batch.size() == 0) batch.first_line = out.lines;
    batch.last_line = out.lines;
    auto where = [&] { return "line " + std::to_string(out.lines) + ": "; };  // errors only
    if (line.size() > k_max_line) {
      batch.errors.push_back(where() + "longer than " + std::to_string(k_max_line) + " bytes");
    } else if (auto j = json::parse_strict(line); !j) {
      batch.errors.push_back(where() + j.error().message);
    } else if (auto d = document_from_json(*j); !d) {
      batch.errors.push_back(where() + d.error().message);
    } else {
      batch.docs.push_back(parsed_line{out.lines, std::move(*d)});
    }
    if (batch.size() >= batch_size) {
      if (auto f = flush(); !f) return std::move(f).error();
    }
  }
  if (in.bad()) return make_error("cannot read `" + file + "`: " + std::strerror(errno));
  if (auto f = flush(); !f) return std::move(f).error();
  if (auto p = poll(control, total_bytes, total_bytes); !p) return std::move(p).error();
  return out;
}

}  // namespace omgdb::engine
