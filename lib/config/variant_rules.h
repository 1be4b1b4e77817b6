// Post-parse validation rules of a variant (reference §2.5, in the original's order).
#pragma once

#include "config/config_error.h"
#include "config/json_fields.h"
#include "config/variant.h"

namespace aorta::config {

// raw_args is container.runtime.args as written (its keys are checked against the
// allowed set); the rest is read from the typed variant.
void validate_variant(const Variant& v, const json& raw_args, ConfigErrors& errors);

// Threshold block rules; thresholds are parsed here too since their checks need the
// raw JSON types (a boolean is not a number).
void read_thresholds(const json& doc, bool enforce, std::vector<Threshold>& out, ConfigErrors& errors);

}  // namespace aorta::config
