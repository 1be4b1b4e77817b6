// Typed reads of JSON fields with lax coercion (the original accepted pydantic's lax
// inputs, e.g. "2" for an int and "true" for a bool; we accept the same so existing
// configs keep loading). Every failure is recorded against its dotted key.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_error.h"
#include "config/variant.h"

namespace aorta::config {

// ordered_json keeps file order: env exports and overrides are applied in the order written.
using json = nlohmann::ordered_json;

std::string join_key(const std::string& prefix, const std::string& key);

// Records "Unknown key" for every member of obj not in allowed (closed blocks).
void reject_unknown_keys(const json& obj, const std::string& prefix,
                         std::initializer_list<const char*> allowed, ConfigErrors& errors);

// Each reader leaves out untouched when the key is absent (the default stands) and
// records an error when present with the wrong type.
void read_string(const json& obj, const char* key, const std::string& prefix, std::string& out,
                 ConfigErrors& errors);
void read_bool(const json& obj, const char* key, const std::string& prefix, bool& out,
               ConfigErrors& errors);
void read_int(const json& obj, const char* key, const std::string& prefix, int& out,
              ConfigErrors& errors);
void read_string_list(const json& obj, const char* key, const std::string& prefix,
                      std::vector<std::string>& out, ConfigErrors& errors);
// Object of scalars; numbers and bools become their JSON text (env values may be numeric).
void read_key_values(const json& obj, const char* key, const std::string& prefix, KeyValues& out,
                     ConfigErrors& errors);

// The value as JSON for an error message: at most 80 characters, never throwing.
std::string shown(const json& value);

// Lax scalar conversions shared with the validation rules.
std::optional<long long> as_integer(const json& value);
std::optional<bool> as_bool(const json& value);
std::string scalar_text(const json& value);

}  // namespace aorta::config
