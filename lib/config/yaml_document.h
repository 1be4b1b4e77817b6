// Reading a YAML file (CVS's legacy test_aorta config) into our JSON document, safe
// against hostile files the way json_file.h is: a file of at most 1 MiB, UTF-8 without
// control characters, one document (never yaml-cpp's LoadAll, which loops on a ','),
// at most 64 levels and 10,000 members per mapping, and at most 100,000 values once
// aliases are followed (an alias bomb is named, never expanded). Scalars are typed as
// PyYAML's safe_load types them (YAML 1.1: yes/no/on/off are booleans, 012 is octal,
// 1e5 is a string), so a value means here what it meant to CVS. Refused, each with the
// dotted key and line: duplicate keys (PyYAML silently keeps the last), merge keys (<<),
// keys that are not scalars, tags beyond YAML's core ones (!!python/...), .inf and .nan
// (JSON holds neither).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "config/config_error.h"
#include "config/json_fields.h"

namespace aorta::config {

// The most values one document may expand to once aliases are followed: real configs
// hold a few dozen; a billion-laughs file reaches this within a few levels.
inline constexpr std::size_t kMaxYamlValues = 100000;
// The most text its scalars may add up to once aliases are followed: one long scalar
// aliased many times stays under the value count yet would copy it each time.
inline constexpr std::size_t kMaxYamlTextBytes = 4 << 20;

// The file's top-level mapping as JSON, or nullopt with every reason in errors.
std::optional<json> read_yaml_file(const std::filesystem::path& file, ConfigErrors& errors);

// The same on text already in memory (the unit tests use it).
std::optional<json> parse_yaml_text(const std::string& text, ConfigErrors& errors);

// A plain (unquoted, untagged) scalar typed as PyYAML's safe_load types it: null,
// a boolean, an integer, a float, or the text itself. nullopt: .inf or .nan, or an
// integer beyond 64 bits (JSON and our readers hold neither).
std::optional<json> plain_scalar(const std::string& text);

}  // namespace aorta::config
