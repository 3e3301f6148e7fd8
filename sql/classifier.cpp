// omgdb sql — the read-only classifier. Placeholder until the tokenizer lands: refuses all.
#include "sql/classifier.hpp"

namespace omgdb::sql {

classification classify(std::string_view, config::sql_dialect) {
  return {verdict::refused, "the SQL classifier is not built yet", ""};
}

}  // namespace omgdb::sql
