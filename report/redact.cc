#include "report/redact.h"

#include "config/json_file.h"
#include "redact/redact.h"

namespace aorta::report {
namespace {

using config::json;

void redact_json(json& value, std::string_view key) {
  if (value.is_object()) {
    for (auto& [name, child] : value.items()) {
      if (redact::is_secret_key(name) && !child.is_null() && !child.is_boolean())
        child = redact::kRedacted;
      else
        redact_json(child, name);
    }
  } else if (value.is_array()) {
    for (auto& child : value) redact_json(child, key);
  } else if (value.is_string()) {
    value = redact::redact_value(key, value.get_ref<const std::string&>());
  }
}

}  // namespace

std::optional<std::string> redacted_json(const std::filesystem::path& file) {
  // The loader's reader: its size and depth limits keep a hostile copy from
  // exhausting memory or the stack here, and it never throws.
  config::ConfigErrors ignored(file.string());
  auto doc = config::read_config_json(file, "input file", ignored);
  if (!doc) return std::nullopt;
  redact_json(*doc, "");
  return doc->dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace aorta::report
