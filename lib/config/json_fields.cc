#include "config/json_fields.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/utf8.h"

namespace aorta::config {

std::string join_key(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

void reject_unknown_keys(const json& obj, const std::string& prefix,
                         std::initializer_list<const char*> allowed, ConfigErrors& errors) {
  if (!obj.is_object()) return;
  for (const auto& item : obj.items()) {
    const std::string& name = item.key();
    bool known = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return name == a; });
    if (!known) errors.add(join_key(prefix, name), "Unknown key (not part of the Aorta config schema)");
  }
}

std::string shown(const json& value) {
  constexpr std::size_t kMax = 80;
  // replace: a string holding bytes that are not UTF-8 (from $USER, say) must not
  // turn an error message into type_error.316.
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() <= kMax) return text;
  return valid_utf8(utf8_prefix(text, kMax)) + "... (" + std::to_string(text.size()) + " characters)";
}

std::optional<long long> as_integer(const json& value) {
  if (value.is_number_unsigned()) {
    // 2^64 - 1 read as long long would be -1.
    auto u = value.get<unsigned long long>();
    if (u > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) return std::nullopt;
    return static_cast<long long>(u);
  }
  if (value.is_number_integer()) return value.get<long long>();
  if (value.is_number_float()) {
    double d = value.get<double>();
    // Casting a double outside long long's range is undefined behaviour (1e300, 2^64).
    if (!std::isfinite(d) || d != std::floor(d) || d < -9.2e18 || d > 9.2e18) return std::nullopt;
    return static_cast<long long>(d);
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    if (s.empty()) return std::nullopt;
    size_t pos = 0;
    try {
      long long v = std::stoll(s, &pos);
      if (pos == s.size()) return v;
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

std::optional<bool> as_bool(const json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer()) {
    long long v = value.get<long long>();
    if (v == 0 || v == 1) return v == 1;
  }
  if (value.is_string()) {
    std::string s = value.get<std::string>();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const char* t : {"true", "1", "yes", "on", "t", "y"})
      if (s == t) return true;
    for (const char* f : {"false", "0", "no", "off", "f", "n"})
      if (s == f) return false;
  }
  return std::nullopt;
}

std::string scalar_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

void read_string(const json& obj, const char* key, const std::string& prefix, std::string& out,
                 ConfigErrors& errors) {
  if (!obj.contains(key)) return;
  const json& v = obj.at(key);
  if (!v.is_string()) {
    errors.add(join_key(prefix, key), "must be a string, got " + shown(v));
    return;
  }
  out = v.get<std::string>();
}

void read_bool(const json& obj, const char* key, const std::string& prefix, bool& out,
               ConfigErrors& errors) {
  if (!obj.contains(key)) return;
  auto b = as_bool(obj.at(key));
  if (!b) {
    errors.add(join_key(prefix, key), "must be a boolean (true or false), got " + shown(obj.at(key)));
    return;
  }
  out = *b;
}

void read_int(const json& obj, const char* key, const std::string& prefix, int& out,
              ConfigErrors& errors) {
  if (!obj.contains(key)) return;
  auto i = as_integer(obj.at(key));
  if (!i || *i > std::numeric_limits<int>::max() || *i < std::numeric_limits<int>::min()) {
    errors.add(join_key(prefix, key), "must be an integer" + std::string(i || obj.at(key).is_number() ? " from -2147483648 to 2147483647" : "") +
                                          ", got " + shown(obj.at(key)));
    return;
  }
  out = static_cast<int>(*i);
}

void read_string_list(const json& obj, const char* key, const std::string& prefix,
                      std::vector<std::string>& out, ConfigErrors& errors) {
  if (!obj.contains(key)) return;
  const json& v = obj.at(key);
  if (!v.is_array()) {
    errors.add(join_key(prefix, key), "must be a list of strings, got " + shown(v));
    return;
  }
  out.clear();
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      errors.add(join_key(prefix, key) + "[" + std::to_string(i) + "]",
                 "must be a string, got " + shown(v[i]));
      continue;
    }
    out.push_back(v[i].get<std::string>());
  }
}

void read_key_values(const json& obj, const char* key, const std::string& prefix, KeyValues& out,
                     ConfigErrors& errors) {
  if (!obj.contains(key)) return;
  const json& v = obj.at(key);
  if (!v.is_object()) {
    errors.add(join_key(prefix, key), "must be an object, got " + shown(v));
    return;
  }
  out.clear();
  for (const auto& [name, value] : v.items()) {
    if (value.is_object() || value.is_array() || value.is_null()) {
      errors.add(join_key(join_key(prefix, key), name), "must be a string or number, got " + shown(value));
      continue;
    }
    out.emplace_back(name, scalar_text(value));
  }
}

}  // namespace aorta::config
