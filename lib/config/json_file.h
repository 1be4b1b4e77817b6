// Reading a config, cluster or threshold file as JSON, safe against hostile files:
// they come from users and CI jobs, and the suite must answer every one of them
// with a configuration error (exit 2), never an exception, a signal or an OOM.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "config/config_error.h"
#include "config/json_fields.h"

namespace aorta::config {

// ordered_json (file order matters for env and overrides) finds a key by a linear
// scan, so loading an object of n members costs n^2: 80,000 members took 14 s. Real
// objects have tens of members.
inline constexpr std::size_t kMaxConfigMembers = 10000;
// Real configs are a few KB; 1 MiB leaves room for long lists, and stops /dev/zero,
// a trace passed by mistake or a generated monster before it is read whole.
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{1} << 20;
// Our schema nests 4 levels; 64 is far beyond any real file and keeps every
// recursive walk over the document (placeholders, checks, dump) shallow.
inline constexpr std::size_t kMaxConfigDepth = 64;

// The file's JSON, or nullopt with the reason recorded against the dotted key where
// the parser stopped: not a regular file (a directory, /dev/zero, a pipe), larger
// than kMaxConfigFileBytes, nested deeper than kMaxConfigDepth, an object of more than
// kMaxConfigMembers members, a number out of
// double's range (1e400), ill-formed UTF-8, or any other syntax error. what names the
// file's role in messages ("variant config", "cluster file", "threshold file").
std::optional<json> read_config_json(const std::filesystem::path& file, const std::string& what,
                                     ConfigErrors& errors);

// The same checks on text already in memory (the unit tests and fuzzers use it).
std::optional<json> parse_config_json(const std::string& text, ConfigErrors& errors);

}  // namespace aorta::config
