#include "config/placeholders.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace aorta::config {
namespace {

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
}

template <typename Fn>
void for_each_string(json& node, Fn&& fn) {
  if (node.is_string()) {
    fn(node.get_ref<std::string&>());
  } else if (node.is_object() || node.is_array()) {
    for (auto& child : node) for_each_string(child, fn);
  }
}

const char* const kOpaqueFields[] = {"container.env", "multi_node.extra_env",
                                     "multi_node.extra_torchrun_args",
                                     "multi_node.extra_train_args", "training_overrides"};

bool is_opaque(const std::string& key) {
  for (const char* field : kOpaqueFields) {
    std::string f(field);
    if (key == f || key.rfind(f + ".", 0) == 0 || key.rfind(f + "[", 0) == 0) return true;
  }
  return false;
}

bool has_changeme(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text.find("<changeme>") != std::string::npos;
}

bool has_known_token(const std::string& text) {
  static const std::regex known(
      R"(\{(user-id|paths\.[^}]*|shared_fs|models_dir|log_dir|hf_token_file|temp_dir|home|user|home-mount-dir|node-dir-name|aorta-suite-workload)\})");
  return std::regex_search(text, known);
}

bool has_any_token(const std::string& text) {
  static const std::regex any(R"(\{[A-Za-z0-9_.-]+\})");
  return std::regex_search(text, any);
}

void check_node(const json& node, const std::string& key, ConfigErrors& errors) {
  if (node.is_string()) {
    const std::string& text = node.get_ref<const std::string&>();
    bool unresolved = has_changeme(text) || has_known_token(text) || (!is_opaque(key) && has_any_token(text));
    if (unresolved) errors.add(key, "Unresolved configuration placeholder: '" + text + "'");
  } else if (node.is_object()) {
    for (const auto& [name, child] : node.items()) check_node(child, join_key(key, name), errors);
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i)
      check_node(node[i], key + "[" + std::to_string(i) + "]", errors);
  }
}

}  // namespace

void resolve_placeholders(json& doc, const PlaceholderValues& values) {
  for_each_string(doc, [&](std::string& s) {
    replace_all(s, "{user-id}", values.user_id);
    replace_all(s, "{aorta-suite-workload}", values.suite_workload);
  });
  if (!doc.is_object()) return;
  if (doc.contains("paths") && doc["paths"].is_object()) {
    json& paths = doc["paths"];
    // Entries may refer to each other ({shared_fs}/models); repeat until stable, with a
    // bound so a cycle cannot loop forever (it is then reported as unresolved).
    for (size_t round = 0; round <= paths.size(); ++round) {
      bool changed = false;
      for (auto& [name, value] : paths.items()) {
        if (!value.is_string()) continue;
        std::string& s = value.get_ref<std::string&>();
        for (const auto& [other, other_value] : paths.items()) {
          if (other == name || !other_value.is_string()) continue;
          std::string before = s;
          replace_all(s, "{" + other + "}", other_value.get<std::string>());
          changed |= before != s;
        }
      }
      if (!changed) break;
    }
    json snapshot = paths;
    for_each_string(doc, [&](std::string& s) {
      for (const auto& [name, value] : snapshot.items())
        if (value.is_string()) replace_all(s, "{paths." + name + "}", value.get<std::string>());
    });
  }
}

void check_unresolved(const json& doc, const std::string& prefix, ConfigErrors& errors) {
  if (doc.is_object()) {
    for (const auto& [name, child] : doc.items()) check_node(child, join_key(prefix, name), errors);
  } else {
    check_node(doc, prefix, errors);
  }
}

}  // namespace aorta::config
