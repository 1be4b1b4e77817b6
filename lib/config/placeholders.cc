#include "config/placeholders.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/utf8.h"
#include "config/json_file.h"

namespace aorta::config {
namespace {

using Lookup = std::function<const std::string*(std::string_view token)>;

// Expansion with a budget: every replacement in the file draws on one allowance, and
// no string may outgrow kMaxExpandedString, so no input can make us allocate more
// than a few MB (the old repeat-until-stable loop grew past 4 GB).
class Expander {
 public:
  bool exhausted() const { return exhausted_; }
  explicit Expander(ConfigErrors& errors) : errors_(errors) {}

  // s with every {token} that lookup knows replaced, in one left-to-right pass (the
  // innermost braces count: "{{a}" holds the token a). False, with s unchanged and
  // the error recorded against key, when a bound would be passed.
  bool expand(std::string& s, const std::string& key, const Lookup& lookup) {
    if (exhausted_ || s.find('{') == std::string::npos) return !exhausted_;
    std::string out;
    size_t start = 0, open = std::string::npos;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '{') {
        open = i;
      } else if (s[i] == '}' && open != std::string::npos) {
        const std::string* value = lookup(std::string_view(s).substr(open + 1, i - open - 1));
        if (exhausted_) return false;  // a nested expansion (paths entries) failed
        if (value) {
          out.append(s, start, open - start);
          out += *value;
          start = i + 1;
          if (out.size() > kMaxExpandedString) return fail(key, "placeholders expand it past " +
                                                                     std::to_string(kMaxExpandedString >> 10) + " KiB");
        }
        open = std::string::npos;
      }
    }
    if (start == 0) return true;
    out.append(s, start, std::string::npos);
    if (out.size() > s.size()) {
      added_ += out.size() - s.size();
      if (added_ > kMaxExpansionTotal)
        return fail(key, "placeholders expand the file by more than " + std::to_string(kMaxExpansionTotal >> 20) +
                             " MiB in all");
    }
    s = std::move(out);
    return true;
  }

 private:
  bool fail(const std::string& key, const std::string& what) {
    if (std::exchange(exhausted_, true)) return false;
    errors_.add(key, what + " (entries that refer to each other several times grow at every step); nothing "
                            "past this point is expanded");
    return false;
  }

  ConfigErrors& errors_;
  size_t added_ = 0;
  bool exhausted_ = false;
};

template <typename Fn>
void for_each_string(json& node, const std::string& key, Fn&& fn) {
  if (node.is_string()) {
    fn(node.get_ref<std::string&>(), key);
  } else if (node.is_object()) {
    for (auto& [name, child] : node.items()) for_each_string(child, join_key(key, name), fn);
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) for_each_string(node[i], key + "[" + std::to_string(i) + "]", fn);
  }
}

// Bare {name} references between paths entries, resolved depth first with each entry
// resolved once; a cycle (or a self-reference) is left as written and reported as
// unresolved by the check.
class PathResolver {
 public:
  PathResolver(json& paths, Expander& expander, ConfigErrors& errors) : expander_(expander), errors_(errors) {
    for (auto& [name, value] : paths.items())
      if (value.is_string()) {
        entries_.emplace(name, Entry{&value.get_ref<std::string&>(), State::kNew});
        order_.push_back(name);
      }
  }
  void resolve_all() {  // in file order, so the entry an error names is the first one written
    for (const auto& name : order_) resolve(name, entries_.at(name), 0);
  }

 private:
  enum class State { kNew, kVisiting, kDone };
  struct Entry {
    std::string* value;
    State state;
  };

  // A chain of entries each naming the next recurses once per link; the bound keeps a
  // chain of 100,000 entries from overflowing the stack.
  void resolve(const std::string& name, Entry& entry, size_t depth) {
    if (entry.state != State::kNew || too_deep_) return;
    if (depth > kMaxConfigDepth) {
      too_deep_ = true;
      errors_.add("paths." + name, "paths entries refer to each other in a chain longer than " +
                                       std::to_string(kMaxConfigDepth) + " entries; it is not expanded");
      return;
    }
    entry.state = State::kVisiting;
    expander_.expand(*entry.value, "paths." + name, [&](std::string_view token) -> const std::string* {
      auto it = entries_.find(std::string(token));
      if (it == entries_.end()) return nullptr;
      resolve(it->first, it->second, depth + 1);
      return it->second.state == State::kDone ? it->second.value : nullptr;
    });
    entry.state = State::kDone;
  }

  Expander& expander_;
  ConfigErrors& errors_;
  bool too_deep_ = false;
  std::vector<std::string> order_;
  std::unordered_map<std::string, Entry> entries_;
};

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

// The two checks below were std::regex searches, whose recursion grows with the
// length of the text: a long value overflowed the stack. These scans are linear.

// {user-id}, {paths.<anything but }>}, or another token CVS knows.
bool has_known_token(const std::string& text) {
  static const char* const kKnown[] = {"user-id", "shared_fs", "models_dir", "log_dir", "hf_token_file", "temp_dir",
                                       "home", "user", "home-mount-dir", "node-dir-name", "aorta-suite-workload"};
  size_t close = 0;
  for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    if (close <= open) close = text.find('}', open);
    if (close == std::string::npos) return false;
    std::string_view token = std::string_view(text).substr(open + 1, close - open - 1);
    if (token.substr(0, 6) == "paths.") return true;
    for (const char* known : kKnown)
      if (token == known) return true;
  }
  return false;
}

// {name} with name made of [A-Za-z0-9_.-], as the original's pattern.
bool has_any_token(const std::string& text) {
  auto is_name = [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '-'; };
  for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
    size_t i = open + 1;
    while (i < text.size() && is_name(static_cast<unsigned char>(text[i]))) ++i;
    if (i > open + 1 && i < text.size() && text[i] == '}') return true;
    if (i > open + 1) open = i - 1;  // the name's characters hold no '{'
  }
  return false;
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

void resolve_placeholders(json& doc, const PlaceholderValues& values, ConfigErrors& errors) {
  if (!doc.is_object()) return;
  Expander expander(errors);
  // $USER and the install path are bytes; a report that quotes a value holding bytes
  // that are not UTF-8 cannot be written, so such a value is refused here.
  const std::string user_id = valid_utf8(values.user_id);
  const std::string workload = valid_utf8(values.suite_workload);
  bool user_reported = false, workload_reported = false;
  for_each_string(doc, "", [&](std::string& s, const std::string& key) {
    expander.expand(s, key, [&](std::string_view token) -> const std::string* {
      if (token == "user-id") {
        if (user_id != values.user_id && !std::exchange(user_reported, true))
          errors.add(key, "{user-id} is the login name ($USER), which is not valid UTF-8");
        return &user_id;
      }
      if (token == "aorta-suite-workload") {
        if (workload != values.suite_workload && !std::exchange(workload_reported, true))
          errors.add(key, "{aorta-suite-workload} is aorta_suite's install path, which is not valid UTF-8");
        return &workload;
      }
      return nullptr;
    });
  });
  auto paths_it = doc.find("paths");
  if (paths_it == doc.end() || !paths_it->is_object()) return;
  PathResolver(*paths_it, expander, errors).resolve_all();
  std::unordered_map<std::string, std::string> resolved;
  for (const auto& [name, value] : paths_it->items())
    if (value.is_string()) resolved.emplace("paths." + name, value.get<std::string>());
  for_each_string(doc, "", [&](std::string& s, const std::string& key) {
    expander.expand(s, key, [&](std::string_view token) -> const std::string* {
      auto it = resolved.find(std::string(token));
      return it == resolved.end() ? nullptr : &it->second;
    });
  });
}

void check_unresolved(const json& doc, const std::string& prefix, ConfigErrors& errors) {
  if (doc.is_object()) {
    for (const auto& [name, child] : doc.items()) check_node(child, join_key(prefix, name), errors);
  } else {
    check_node(doc, prefix, errors);
  }
}

}  // namespace aorta::config
