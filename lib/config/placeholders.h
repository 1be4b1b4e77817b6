// Placeholder resolution (reference §2.1) and the check that nothing unresolved is
// left behind (§2.5): a config that still says <changeme> or {shared_fs} must never
// reach a node.
#pragma once

#include <cstddef>
#include <string>

#include "config/config_error.h"
#include "config/json_fields.h"

namespace aorta::config {

struct PlaceholderValues {
  std::string user_id;         // {user-id}
  std::string suite_workload;  // {aorta-suite-workload}: the CPU workload shipped with us
};

// Placeholders that refer to each other can double a string at every step
// ("a": "{b}{b}", "b": "{c}{c}", ...): 30 entries make 4 GB. No real path or value
// comes near these bounds, so passing one is reported as an error.
inline constexpr std::size_t kMaxExpandedString = std::size_t{64} << 10;  // one string after resolution
inline constexpr std::size_t kMaxExpansionTotal = std::size_t{4} << 20;   // bytes added in the whole file

// Resolves {user-id}, {aorta-suite-workload}, bare {name} references between paths.*
// entries, then {paths.<key>} everywhere, in one pass over each string. Unknown tokens
// are left for the check below. A string or file that would outgrow the bounds above
// is recorded against its dotted key and left unexpanded.
void resolve_placeholders(json& doc, const PlaceholderValues& values, ConfigErrors& errors);

// Records "Unresolved configuration placeholder" for every string still holding
// <changeme> or a placeholder token. Opaque fields (env values, raw launch arguments,
// overrides) may hold braces of their own, so only known CVS tokens are flagged there.
void check_unresolved(const json& doc, const std::string& prefix, ConfigErrors& errors);

}  // namespace aorta::config
