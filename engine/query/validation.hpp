// omgdb engine — collection validation rules: a documented subset of JSON Schema
// (docs/validation.md), compiled once and checked against documents.
//
// A spec is a schema object (or {"$jsonSchema": schema}). Keywords, at the root and in every
// nested `properties` entry:
//   bsonType      a type name or an array of them: double string object array binData
//                 objectId bool date null regex int timestamp long decimal minKey maxKey,
//                 and "number" (int, long, double, decimal)
//   enum          an array: the value must equal one of them (1 == 1.0)
//   minimum / maximum      numbers only, inclusive
//   minLength / maxLength  strings only, in Unicode code points
//   pattern       strings only, a PCRE2 regex searched (unanchored) in the string
//   required      an array of field names that must be present (null counts as present)
//   properties    an object: field name → schema for that field when present (nested
//                 `required` / `properties` apply when the value is a document)
//   title, description    ignored annotations
// Anything else (JSON Schema's `type`, `items`, `unique`, …) is refused, so a rule that would
// not be enforced is never accepted. The root `bsonType`, if given, must be "object".
//
// Thread safety: a compiled `rules` is immutable and may be shared between threads.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "engine/value/value.hpp"

namespace omgdb::engine::validation {

struct violation {
  std::string field;    // dotted path, e.g. "address.city"
  std::string rule;     // the keyword: required, bsonType, enum, minimum, …
  std::string message;  // "field `age` must be at least 0 (minimum), got -3"
};

class rules {
 public:
  struct node;

  // Compiles a spec. Errors name the place in the spec: "spec.properties.age.minimum must be
  // a number". `spec.unique` is refused: unique indexes are not available in this version.
  static result<rules> compile(const document& spec);

  // Up to `max` violations of `doc`, in spec order (required before properties). A failure
  // when `doc` cannot be checked: a `pattern` reached the regex match limit (the error names
  // the pattern and the limit; such a document is neither valid nor invalid).
  [[nodiscard]] result<std::vector<violation>> check(const document& doc, std::size_t max) const;
  [[nodiscard]] result<std::optional<violation>> first_violation(const document& doc) const;

 private:
  std::shared_ptr<const node> root_;
};

}  // namespace omgdb::engine::validation
