#include "tools/result_bound.hpp"

namespace omgdb::tools {
namespace bj = boost::json;

namespace {

// The longest prefix of `s` of at most `n` bytes that ends on a UTF-8 character boundary.
std::size_t utf8_cut(std::string_view s, std::size_t n) {
  if (n >= s.size()) return s.size();
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

// What to do instead, for the tools whose results are one large thing.
std::string hint_for(std::string_view tool) {
  if (tool == "get") {
    return "To read the document in parts, call `find` with the filter {\"_id\": …} and a `project` naming the "
           "fields you need.";
  }
  if (tool == "describe") return "Describe one collection at a time (`collection`) for a shorter answer.";
  return "Narrow the call (a filter, a projection, a smaller `limit`, one collection) to see the rest.";
}

}  // namespace

std::string size_text(std::size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

void bound_result(mcp::tool_result& r, std::size_t max_bytes, std::string_view tool, mcp::result_shape shape) {
  std::size_t total = 0;
  for (const auto& t : r.texts) total += t.size();
  if (r.texts.empty() || total <= max_bytes + k_note_room) return;
  std::string& first = r.texts.front();
  std::size_t keep = utf8_cut(first, max_bytes);
  std::uint64_t lines = 0;
  if (shape == mcp::result_shape::ndjson && !r.is_error) {
    const std::size_t nl = keep == first.size() ? keep : first.rfind('\n', keep == 0 ? 0 : keep - 1);
    keep = nl == std::string::npos ? 0 : std::min(first.size(), nl + 1);
    for (std::size_t i = 0; i < keep; ++i) lines += first[i] == '\n';
  }
  first.resize(keep);
  // Later blocks (notes, a cursor's state) stay while they fit the room for notes.
  std::size_t room = k_note_room;
  std::vector<std::string> kept{std::move(first)};
  std::size_t dropped = 0;
  for (std::size_t i = 1; i < r.texts.size(); ++i) {
    if (r.texts[i].size() <= room) {
      room -= r.texts[i].size();
      kept.push_back(std::move(r.texts[i]));
    } else {
      ++dropped;
    }
  }
  std::string note = "Result cut at the " + size_text(max_bytes) + " reply limit: `" + std::string(tool) + "` returned " +
                     std::to_string(total) + " bytes, the first " + std::to_string(keep) + " are shown";
  if (shape == mcp::result_shape::ndjson && !r.is_error) note += " (" + std::to_string(lines) + " whole documents)";
  if (dropped > 0) note += " and " + std::to_string(dropped) + " further blocks were left out";
  note += ". " + hint_for(tool) + " The limit is the server's `--max-result-bytes` (`max_result_bytes` in the config).";
  kept.push_back(std::move(note));
  r.texts = std::move(kept);
  r.structured_extra["truncated"] =
      bj::object{{"shownBytes", keep}, {"totalBytes", total}, {"limitBytes", max_bytes}};
}

}  // namespace omgdb::tools
