// Placeholder resolution (reference §2.1) and the check that nothing unresolved is
// left behind (§2.5): a config that still says <changeme> or {shared_fs} must never
// reach a node.
#pragma once

#include <string>

#include "config/config_error.h"
#include "config/json_fields.h"

namespace aorta::config {

struct PlaceholderValues {
  std::string user_id;         // {user-id}
  std::string suite_workload;  // {aorta-suite-workload}: the CPU workload shipped with us
};

// Resolves {user-id}, {aorta-suite-workload}, bare {name} references between paths.*
// entries, then {paths.<key>} everywhere. Unknown tokens are left for the check below.
void resolve_placeholders(json& doc, const PlaceholderValues& values);

// Records "Unresolved configuration placeholder" for every string still holding
// <changeme> or a placeholder token. Opaque fields (env values, raw launch arguments,
// overrides) may hold braces of their own, so only known CVS tokens are flagged there.
void check_unresolved(const json& doc, const std::string& prefix, ConfigErrors& errors);

}  // namespace aorta::config
