// Configuration problems are collected, not thrown one by one: a user fixing a file
// wants every mistake in it named at once, each with the file and the dotted key.
#pragma once

#include <string>
#include <vector>

#include "common/utf8.h"

namespace aorta::config {

struct ConfigError {
  std::string file;
  std::string key;  // dotted path, e.g. container.runtime.args.volumes[0]; empty: whole file
  std::string message;

  std::string describe() const {
    std::string out = file;
    if (!key.empty()) out += (out.empty() ? "" : ": ") + key;
    return out + ": " + message;
  }
};

class ConfigErrors {
 public:
  explicit ConfigErrors(std::string file) : file_(std::move(file)) {}
  void add(std::string key, std::string message) {
    errors_.push_back({file_, clip(std::move(key), 200), clip(std::move(message), 1000)});
  }
  void append(const std::vector<ConfigError>& more) { errors_.insert(errors_.end(), more.begin(), more.end()); }
  bool empty() const { return errors_.empty(); }
  const std::vector<ConfigError>& list() const { return errors_; }
  const std::string& file() const { return file_; }
  void set_file(std::string file) { file_ = std::move(file); }

 private:
  // A hostile file can make a key or a quoted value a megabyte long; the message
  // still has to fit on a screen.
  static std::string clip(std::string text, size_t max) {
    if (text.size() <= max) return text;
    return std::string(utf8_prefix(text, max)) + "... (" + std::to_string(text.size()) + " bytes)";
  }

  std::string file_;
  std::vector<ConfigError> errors_;
};

}  // namespace aorta::config
