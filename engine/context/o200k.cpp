// omgdb engine — the exact o200k_base token count: tiktoken's pre-tokenizer regex (PCRE2,
// UTF + UCP) splits the text into pieces, and each piece is byte-pair merged by rank (lowest
// rank first, leftmost on a tie — tiktoken's rule), with a heap so a long piece costs
// O(n log n). Special tokens (<|endoftext|> …) are not recognised: text is counted as text.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fstream>
#include <memory>
#include <optional>
#include <map>
#include <mutex>
#include <queue>
#include <unordered_map>
#include <vector>

#include "common/base64.hpp"
#include "engine/context/tokens.hpp"

namespace omgdb::engine::context {
namespace {

constexpr const char* k_pattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3})"
    R"(| ?[^\s\p{L}\p{N}]+[\r\n/]*)"
    R"(|\s*[\r\n]+)"
    R"(|\s+(?!\S))"
    R"(|\s+)";

struct sv_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using rank_map = std::unordered_map<std::string, std::uint32_t, sv_hash, std::equal_to<>>;

class o200k final : public token_counter {
 public:
  o200k(rank_map ranks, pcre2_code* code) : ranks_(std::move(ranks)), code_(code) {}
  ~o200k() override { pcre2_code_free(code_); }
  o200k(const o200k&) = delete;
  o200k& operator=(const o200k&) = delete;

  std::string_view name() const noexcept override { return "o200k"; }

  std::uint64_t count(std::string_view text) const override {
    std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md(
        pcre2_match_data_create_from_pattern(code_, nullptr), pcre2_match_data_free);
    std::uint64_t total = 0;
    std::size_t at = 0;
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    while (at < text.size()) {
      const int rc = pcre2_match(code_, subject, text.size(), at, 0, md.get(), nullptr);
      if (rc < 0) {  // nothing more matches (not expected): count the rest byte by byte
        total += text.size() - at;
        break;
      }
      const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
      if (ov[0] > at) total += ov[0] - at;  // unmatched bytes (invalid UTF-8): one token each
      std::size_t end = ov[1];
      if (end <= ov[0]) end = ov[0] + 1;  // never loop on an empty match
      total += piece(text.substr(ov[0], end - ov[0]));
      at = end;
    }
    return total;
  }

 private:
  std::optional<std::uint32_t> rank(std::string_view bytes) const {
    auto it = ranks_.find(bytes);
    if (it == ranks_.end()) return std::nullopt;
    return it->second;
  }

  // Tokens of one piece after byte-pair merging.
  std::uint64_t piece(std::string_view p) const {
    if (p.size() <= 1 || rank(p)) return 1;
    const int n = static_cast<int>(p.size());
    std::vector<int> prev(n), next(n);
    std::vector<std::uint32_t> version(n, 0);
    std::vector<char> alive(n, 1);
    for (int i = 0; i < n; ++i) {
      prev[i] = i - 1;
      next[i] = i + 1 < n ? i + 1 : -1;
    }
    struct entry {
      std::uint32_t rank;
      int pos;
      std::uint32_t version;
      bool operator>(const entry& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<entry, std::vector<entry>, std::greater<entry>> heap;
    auto push = [&](int i) {
      const int j = next[i];
      if (j < 0) return;
      const int end = next[j] < 0 ? n : next[j];
      if (auto r = rank(p.substr(static_cast<std::size_t>(i), static_cast<std::size_t>(end - i)))) {
        heap.push({*r, i, version[i]});
      }
    };
    for (int i = 0; i + 1 < n; ++i) push(i);
    std::uint64_t parts = static_cast<std::uint64_t>(n);
    while (!heap.empty()) {
      const entry e = heap.top();
      heap.pop();
      if (!alive[e.pos] || version[e.pos] != e.version || next[e.pos] < 0) continue;
      const int i = e.pos, j = next[i];
      alive[j] = 0;
      next[i] = next[j];
      if (next[j] >= 0) prev[next[j]] = i;
      ++version[i];
      --parts;
      push(i);
      if (prev[i] >= 0) {
        ++version[prev[i]];
        push(prev[i]);
      }
    }
    return parts;
  }

  rank_map ranks_;
  pcre2_code* code_;
};

result<std::shared_ptr<const token_counter>> load_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("cannot read the o200k rank file `" + file + "`", failure_kind::io);
  rank_map ranks;
  ranks.reserve(200000);
  std::string line, token;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const auto space = line.find(' ');
    std::uint32_t r = 0;
    std::optional<std::string> bytes;
    if (space != std::string::npos) bytes = decode_base64(std::string_view(line).substr(0, space));
    bool ok = bytes && !bytes->empty() && space + 1 < line.size();
    if (ok) token = std::move(*bytes);
    for (std::size_t i = space + 1; ok && i < line.size(); ++i) {
      ok = line[i] >= '0' && line[i] <= '9' && r < 100000000u;
      r = r * 10 + static_cast<std::uint32_t>(line[i] - '0');
    }
    if (!ok) {
      return make_error("the o200k rank file `" + file + "` is not a tiktoken rank file (line " +
                        std::to_string(number) + ": expected `<base64 token> <rank>`)");
    }
    ranks.emplace(token, r);
  }
  if (ranks.size() < 256) {
    return make_error("the o200k rank file `" + file + "` holds " + std::to_string(ranks.size()) +
                      " tokens; a tiktoken rank file holds every single byte at least");
  }
  int err = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(k_pattern), PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &err, &offset, nullptr);
  if (code == nullptr) return make_error("the o200k pre-tokenizer pattern does not compile", failure_kind::internal);
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // optional: the interpreter is used without JIT
  return std::shared_ptr<const token_counter>(std::make_shared<o200k>(std::move(ranks), code));
}

}  // namespace

result<std::shared_ptr<const token_counter>> load_o200k(const std::string& file) {
  static std::mutex m;
  static std::map<std::string, std::shared_ptr<const token_counter>> loaded;
  std::lock_guard<std::mutex> lock(m);
  if (auto it = loaded.find(file); it != loaded.end()) return it->second;
  auto r = load_file(file);
  if (!r) return std::move(r).error();
  loaded.emplace(file, *r);
  return *r;
}

}  // namespace omgdb::engine::context
