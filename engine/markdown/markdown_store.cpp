// omgdb engine — importing Markdown files and editing imported documents, through the write
// session.
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/markdown/markdown_store.hpp"
#include "engine/store/store_detail.hpp"
#include "engine/value/ejson.hpp"

namespace omgdb::engine::markdown {
namespace fs = std::filesystem;
using detail::session_doc;
using detail::write_session;

namespace {

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;  // continuation bytes
    if (c < 0x80) n = 0;
    else if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) n = 2;
    else if (c >= 0xF0 && c <= 0xF4) n = 3;
    else return false;
    if (s.size() - i <= n) return false;
    for (std::size_t k = 1; k <= n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    const auto c1 = n > 0 ? static_cast<unsigned char>(s[i + 1]) : 0;
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) || (c == 0xF0 && c1 < 0x90) ||
        (c == 0xF4 && c1 >= 0x90)) {
      return false;  // overlong, surrogate, above U+10FFFF
    }
    i += n + 1;
  }
  return true;
}

bool matches(const std::string& glob, const std::string& id) {
  const bool whole = glob.find('/') != std::string::npos;
  const std::string name = whole ? id : fs::path(id).filename().string();
  return fnmatch(glob.c_str(), name.c_str(), whole ? FNM_PATHNAME : 0) == 0;
}

// The fields an import writes; the others of a stored document are kept.
bool import_owned(std::string_view name) {
  return name == "title" || name == "frontmatter" || name == k_text_field || name == k_sections_field ||
         name == k_marker_field;
}

// `old` with the import-owned fields taken from `fresh`: old's `_id` and the fields the user
// added, in their order, then fresh's fields.
document merge_owned(const document& old, document fresh) {
  document out;
  for (const field& f : old) {
    if (!import_owned(f.name)) out.push_back(f);
  }
  for (field& f : fresh) {
    if (f.name != "_id") out.push_back(std::move(f));
  }
  return out;
}

std::string text_hash(const document& d) {
  const value* m = find_field(d, k_marker_field);
  if (m == nullptr || !m->is_document()) return {};
  const value* h = find_field(m->as_document(), "hash");
  return h && h->is_string() ? h->as_string() : std::string();
}

failure not_markdown(std::string_view collection, const value& id) {
  return make_error("document " + to_json(id) + " of `" + std::string(collection) +
                        "` was not imported as Markdown (it has no `_markdown` marker and `text`); the Markdown "
                        "tools only edit documents written by `omgdb import-markdown`",
                    failure_kind::conflict);
}

std::string title_of(const document& d) {
  if (const value* t = find_field(d, "title"); t && t->is_string()) return t->as_string();
  return {};
}

using edit_fn = std::function<result<std::string>(std::string_view text)>;

// An edit parses outside the store's writer: the document is read, the new text made and
// parsed, its fields built, and only then is the write session opened (so no other writer
// waits for a parse). The session writes only if the document still holds the text (and
// title) that was parsed; if a concurrent write changed it, the edit starts over, at most
// k_edit_attempts times.
constexpr int k_edit_attempts = 3;

// `front`, when given, is where `change` leaves the new text's frontmatter values (so they
// are not parsed again).
result<edit_result> edit(store& s, std::string_view collection, const value& id, const edit_fn& change,
                         const std::optional<document>* front = nullptr) {
  for (int attempt = 1;; ++attempt) {
    auto read = s.get(collection, id);
    if (!read) return std::move(read).error();
    if (!read->has_value()) {
      return make_error("no document with _id " + to_json(id) + " in `" + std::string(collection) + "`",
                        failure_kind::not_found);
    }
    const document& seen = **read;
    if (!is_markdown(seen)) return not_markdown(collection, id);
    const std::string& text = find_field(seen, k_text_field)->as_string();
    const std::string title = title_of(seen);
    auto next = change(text);
    if (!next) return std::move(next).error();
    edit_result out;
    if (*next == text) {
      auto current = parse_sections(text);
      if (!current) return std::move(current).error();
      out.sections = std::move(*current);
      return out;
    }
    const value* stored_id = find_field(seen, "_id");
    auto fresh = build_document(stored_id ? *stored_id : id, std::move(*next), title, front);
    if (!fresh) return std::move(fresh).error();
    auto sections = sections_of(*fresh);
    if (!sections) return std::move(sections).error();

    write_session w(detail::store_access::of(s));
    auto c = w.existing(collection);
    if (!c) return std::move(c).error();
    auto old = w.get(**c, id);
    if (!old) return std::move(old).error();
    if (!old->has_value()) {
      return make_error("no document with _id " + to_json(id) + " in `" + std::string(collection) + "`",
                        failure_kind::not_found);
    }
    const session_doc& doc = **old;
    if (!is_markdown(doc.doc)) return not_markdown(collection, id);
    if (find_field(doc.doc, k_text_field)->as_string() != text || title_of(doc.doc) != title) {
      if (attempt < k_edit_attempts) continue;  // changed meanwhile: parse the new text
      return make_error("document " + to_json(id) + " of `" + std::string(collection) + "` changed " +
                            std::to_string(k_edit_attempts) + " times while this edit was being prepared; nothing "
                            "was written: try again",
                        failure_kind::conflict);
    }
    const document updated = merge_owned(doc.doc, std::move(*fresh));
    auto written = w.overwrite(**c, doc, updated, "update");
    if (!written) return std::move(written).error();
    if (*written) {
      if (auto st = w.commit(); !st) return std::move(st).error();
    }
    out.modified = *written;
    out.sections = std::move(*sections);
    return out;
  }
}

}  // namespace

result<std::vector<source_file>> list_sources(const std::vector<std::string>& paths, const std::string& glob) {
  std::vector<source_file> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    const fs::path arg(p);
    const auto st = fs::status(arg, ec);
    if (ec || !fs::exists(st)) return make_error("`" + p + "` does not exist", failure_kind::not_found);
    if (fs::is_regular_file(st)) {
      source_file f{fs::absolute(arg).string(), arg.filename().string()};
      if (matches(glob, f.id)) out.push_back(std::move(f));
      continue;
    }
    if (!fs::is_directory(st)) return make_error("`" + p + "` is neither a file nor a directory");
    fs::recursive_directory_iterator it(arg, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) return make_error("cannot read the directory `" + p + "`: " + ec.message(), failure_kind::io);
    for (; it != end; it.increment(ec)) {
      if (ec) return make_error("cannot read the directory `" + p + "`: " + ec.message(), failure_kind::io);
      if (!it->is_regular_file(ec)) continue;
      // The path as walked (a symlinked file keeps its own name), not the canonical one.
      std::string id = it->path().lexically_relative(arg).generic_string();
      if (id.empty()) continue;
      if (matches(glob, id)) out.push_back({fs::absolute(it->path()).string(), std::move(id)});
    }
  }
  std::sort(out.begin(), out.end(), [](const source_file& a, const source_file& b) { return a.id < b.id; });
  return out;
}

result<import_report> import_files(store& s, std::string_view collection, const std::vector<source_file>& files,
                                   const import_options& options) {
  import_report report;
  report.files = files.size();
  auto& impl = detail::store_access::of(s);
  std::size_t at = 0;
  while (at < files.size()) {
    write_session w(impl);
    auto c = w.collection(collection, true);
    if (!c) return std::move(c).error();
    std::size_t in_batch = 0;
    std::uint64_t bytes = 0;
    bool wrote = w.created(**c);
    for (; at < files.size() && in_batch < options.batch_files && bytes < options.batch_bytes; ++at) {
      const source_file& f = files[at];
      auto skip = [&](std::string reason) { report.skipped.push_back({f.id, std::move(reason)}); };
      if (at > 0 && files[at - 1].id == f.id) {
        skip("`" + files[at - 1].file + "` has the same `_id`; the first one was imported");
        continue;
      }
      std::error_code ec;
      const auto size = fs::file_size(f.file, ec);
      if (ec) {
        skip("cannot read it: " + ec.message());
        continue;
      }
      if (size > options.max_file_bytes) {
        skip("larger than " + std::to_string(options.max_file_bytes) + " bytes");
        continue;
      }
      std::ifstream in(f.file, std::ios::binary);
      std::ostringstream buf;
      buf << in.rdbuf();
      if (!in && !in.eof()) {
        skip("cannot read it");
        continue;
      }
      std::string text = std::move(buf).str();
      if (!valid_utf8(text)) {
        skip("not UTF-8 text");
        continue;
      }
      ++in_batch;
      bytes += text.size();
      const value id(f.id);
      auto old = w.get(**c, id);
      if (!old) return std::move(old).error();
      if (old->has_value() && !is_markdown((*old)->doc)) {
        skip("the `_id` is held by a document that was not imported as Markdown; it was left as it is");
        continue;
      }
      if (old->has_value() && text_hash((*old)->doc) == content_hash(text) &&
          find_field((*old)->doc, k_text_field)->as_string() == text) {
        ++report.unchanged;
        continue;
      }
      const std::string stem = fs::path(f.id).stem().string();
      auto doc = build_document(id, std::move(text), stem);
      if (!doc) {
        skip(doc.error().message);
        continue;
      }
      if (old->has_value()) {
        document next = merge_owned((*old)->doc, std::move(*doc));  // `_id` first, from old
        auto written = w.overwrite(**c, **old, next, "replace");
        if (!written) return std::move(written).error();
        if (*written) ++report.updated, wrote = true;
        else ++report.unchanged;
      } else {
        auto inserted = w.insert(**c, std::move(*doc));
        if (!inserted) return std::move(inserted).error();
        ++report.inserted;
        wrote = true;
      }
    }
    if (wrote) {
      if (auto st = w.commit(); !st) return std::move(st).error();
      ++report.batches;
    }
    if (options.progress) options.progress(at, files.size());
  }
  return report;
}

result<edit_result> store_set_section(store& s, std::string_view collection, const value& id,
                                      std::string_view section_id, std::string_view body) {
  return edit(s, collection, id, [&](std::string_view text) { return set_section(text, section_id, body); });
}

result<edit_result> store_patch_frontmatter(store& s, std::string_view collection, const value& id,
                                            const document& patch, const std::vector<std::string>& remove) {
  std::optional<document> front;
  return edit(
      s, collection, id, [&](std::string_view text) { return patch_frontmatter(text, patch, remove, &front); },
      &front);
}

}  // namespace omgdb::engine::markdown
