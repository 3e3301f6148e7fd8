// Which top-level fields of the source documents a pipeline can read (source_fields,
// stage.hpp), so that the collection scan decodes only those from the stored BSON.
//
// The analysis walks the stage specifications as written, from the first stage after the
// scan's own filter, and is conservative: every string "$a.b" counts field `a`, a stage or
// operator it does not know the reads of makes the answer "the whole document", and so does
// reaching the end of the pipeline (its output is the documents themselves). It stops at the
// first stage whose output no longer holds the input's fields ($group, $count, an inclusion
// $project, $replaceRoot, $bucket, $facet, …): later stages read that output, not the source.
// A field a stage sets ($addFields, $lookup's `as`, $unwind's path) also counts as read,
// because a dotted set merges into what was there.
#include <algorithm>
#include <set>

#include "engine/aggregate/stage.hpp"

namespace omgdb::engine::aggregate_detail {
namespace {

struct deps {
  std::set<std::string, std::less<>> fields;
  bool whole = false;

  void add_path(std::string_view path) {  // a dotted field path without '$'
    const std::string_view top = path.substr(0, path.find('.'));
    if (top.empty()) {
      whole = true;
      return;
    }
    fields.emplace(top);
  }
};

// "$a.b" reads `a`; "$$ROOT" / "$$CURRENT" read everything ("$$ROOT.a" reads `a`); other
// variables read no field of the document.
void string_deps(std::string_view s, deps& d) {
  if (s.size() < 2 || s[0] != '$') return;
  if (s[1] != '$') return d.add_path(s.substr(1));
  const std::string_view var = s.substr(2, s.find('.') == std::string_view::npos ? std::string_view::npos : s.find('.') - 2);
  if (var == "ROOT" || var == "CURRENT") {
    const std::size_t dot = s.find('.');
    if (dot == std::string_view::npos) {
      d.whole = true;
    } else {
      d.add_path(s.substr(dot + 1));
    }
  }
}

void expr_deps(const value& e, deps& d) {
  if (d.whole) return;
  if (e.is_string()) return string_deps(e.as_string(), d);
  if (e.is_array()) {
    for (const value& x : e.as_array()) expr_deps(x, d);
    return;
  }
  if (!e.is_document()) return;
  for (const field& f : e.as_document()) {
    if (f.name == "$literal") continue;
    // $getField without `input` reads $$CURRENT by a name that is not a path; `CURRENT` as a
    // $let variable rebinds what "$a" means.
    if (f.name == "$getField" || f.name == "CURRENT" || f.name == "ROOT") {
      d.whole = true;
      return;
    }
    // {sortBy: {score: -1}} ($top, $bottom, $sortArray, $setWindowFields): the keys are paths.
    if (f.name == "sortBy" && f.val.is_document()) {
      for (const field& k : f.val.as_document()) d.add_path(k.name);
      continue;
    }
    expr_deps(f.val, d);
  }
}

void filter_deps(const value& spec, deps& d) {
  if (!spec.is_document()) {
    d.whole = true;
    return;
  }
  for (const field& f : spec.as_document()) {
    if (f.name == "$and" || f.name == "$or" || f.name == "$nor") {
      if (!f.val.is_array()) {
        d.whole = true;
        return;
      }
      for (const value& x : f.val.as_array()) filter_deps(x, d);
    } else if (f.name == "$expr") {
      expr_deps(f.val, d);
    } else if (f.name == "$comment") {
      continue;
    } else if (!f.name.empty() && f.name[0] == '$') {
      d.whole = true;  // $text, $jsonSchema, $where, …: reads the document as a whole
      return;
    } else {
      d.add_path(f.name);  // the condition's operands are literals ($elemMatch: relative paths)
    }
  }
}

bool truthy_flag(const value& v) {
  if (v.is_bool()) return v.as_bool();
  if (v.is_number()) return v.number_as_double() != 0;
  return true;  // an expression: included
}

bool is_flag(const value& v) { return v.is_bool() || v.is_number(); }

// {b: 0} or {b: {c: false}} as a $project value: a nested projection that excludes (an
// operator document such as {$add: …} is an expression, not a projection).
bool nested_exclusion(const value& v) {
  if (!v.is_document() || v.as_document().empty() || v.as_document().front().name.starts_with('$')) return false;
  for (const field& f : v.as_document()) {
    if (is_flag(f.val) && !truthy_flag(f.val)) return true;
    if (nested_exclusion(f.val)) return true;
  }
  return false;
}

// Adds what `stage` reads; true when later stages no longer see the source's fields.
bool stage_deps(const document& stage, deps& d) {
  if (stage.size() != 1) {
    d.whole = true;
    return true;
  }
  const std::string& name = stage.front().name;
  const value& spec = stage.front().val;
  if (name == "$match") {
    filter_deps(spec, d);
    return false;
  }
  if (name == "$limit" || name == "$skip" || name == "$sample" || name == "$unset" || name == "$unionWith") {
    return false;  // pass documents through (or drop fields, or append other collections')
  }
  if (name == "$count") return true;
  if (name == "$sort") {
    if (!spec.is_document()) {
      d.whole = true;
      return true;
    }
    for (const field& f : spec.as_document()) d.add_path(f.name);
    return false;
  }
  if (name == "$addFields" || name == "$set") {
    if (!spec.is_document()) {
      d.whole = true;
      return true;
    }
    for (const field& f : spec.as_document()) {
      d.add_path(f.name);
      expr_deps(f.val, d);
    }
    return false;
  }
  if (name == "$project") {
    if (!spec.is_document()) {
      d.whole = true;
      return true;
    }
    // An exclusion keeps every field it does not name, so it needs the whole document:
    // {a: 0}, a nested {a: {b: 0}}, and {_id: 0} alone (with other fields, `_id: 0` is allowed
    // in an inclusion).
    bool exclusion = false, others = false;
    for (const field& f : spec.as_document()) {
      if (f.name != "_id") others = true;
      if (f.name != "_id" && is_flag(f.val) && !truthy_flag(f.val)) exclusion = true;
      if (nested_exclusion(f.val)) exclusion = true;
    }
    if (!others) {
      const value* id = find_field(spec.as_document(), "_id");
      if (id != nullptr && is_flag(*id) && !truthy_flag(*id)) exclusion = true;
    }
    if (exclusion) {
      d.whole = true;  // keeps everything but the excluded fields
      return true;
    }
    d.add_path("_id");
    for (const field& f : spec.as_document()) {
      d.add_path(f.name);
      expr_deps(f.val, d);
    }
    return true;
  }
  if (name == "$unwind") {
    expr_deps(spec, d);  // "$path" or {path: "$path", …}
    return false;
  }
  if (name == "$lookup") {
    if (!spec.is_document()) {
      d.whole = true;
      return true;
    }
    const document& l = spec.as_document();
    if (const value* lf = find_field(l, "localField"); lf != nullptr && lf->is_string()) d.add_path(lf->as_string());
    if (const value* as = find_field(l, "as"); as != nullptr && as->is_string()) d.add_path(as->as_string());
    if (const value* let = find_field(l, "let")) expr_deps(*let, d);
    return false;  // the `pipeline` reads the foreign documents ($$ variables come from `let`)
  }
  if (name == "$group" || name == "$replaceRoot" || name == "$replaceWith" || name == "$sortByCount" ||
      name == "$bucket" || name == "$bucketAuto") {
    expr_deps(spec, d);
    return true;
  }
  if (name == "$facet") {
    if (!spec.is_document()) {
      d.whole = true;
      return true;
    }
    for (const field& f : spec.as_document()) {
      if (!f.val.is_array()) {
        d.whole = true;
        return true;
      }
      bool stopped = false;
      for (const value& s : f.val.as_array()) {
        if (!s.is_document()) {
          d.whole = true;
          return true;
        }
        if (stage_deps(s.as_document(), d)) {
          stopped = true;
          break;
        }
      }
      if (!stopped) d.whole = true;  // that facet outputs the documents themselves
      if (d.whole) return true;
    }
    return true;
  }
  if (name == "$setWindowFields") {
    expr_deps(spec, d);  // partitionBy, sortBy's keys, the outputs' arguments
    return false;
  }
  d.whole = true;  // $redact and any stage whose reads are not known here
  return true;
}

}  // namespace

std::optional<std::vector<std::string>> source_fields(const array& pipeline, std::size_t first) {
  deps d;
  bool stopped = false;
  for (std::size_t i = first; i < pipeline.size() && !d.whole; ++i) {
    if (!pipeline[i].is_document()) return std::nullopt;
    if (stage_deps(pipeline[i].as_document(), d)) {
      stopped = true;
      break;
    }
  }
  if (d.whole || !stopped) return std::nullopt;
  d.fields.emplace("_id");  // the scan resumes after the last `_id`; cheap and always there
  return std::vector<std::string>(d.fields.begin(), d.fields.end());
}

}  // namespace omgdb::engine::aggregate_detail
