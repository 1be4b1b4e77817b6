// FakeTransport: the one scripted stand-in for cluster::Transport, for unit tests of
// stage bodies (lib/stages/*_test.cc, through tests/stage_harness.h). Real transports
// stay the default everywhere else; this one runs nothing. A test scripts what each
// command returns (by host and by a substring or regex of the command line), reads
// back every command each host was sent, and serves download() (and the streams that
// name a served file) from a local folder per host.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <variant>
#include <vector>

#include "cluster/transport.h"
#include "common/shell_quote.h"

namespace aorta::testing {

class FakeTransport : public cluster::Transport {
 public:
  // Any host (in rules and serve_files).
  static inline const std::string kAnyHost = "*";

  // Commands on `host` that contain `needle` exit with `exit_code` and print `output`.
  // Rules added later win over earlier ones; an unmatched command exits 0, silently.
  FakeTransport& on(const std::string& host, const std::string& needle, int exit_code, std::string output = "") {
    return add({host, needle, std::nullopt, cluster::CommandResult{exit_code, std::move(output)}});
  }
  // The same, matching `pattern` anywhere in the command (std::regex_search).
  FakeTransport& on_regex(const std::string& host, const std::string& pattern, int exit_code, std::string output = "") {
    return add({host, "", std::regex(pattern), cluster::CommandResult{exit_code, std::move(output)}});
  }
  // Commands that contain `needle` do not run at all: run() returns `error` (a
  // timeout, an unreachable node).
  FakeTransport& fail(const std::string& host, const std::string& needle, Error error) {
    return add({host, needle, std::nullopt, std::move(error)});
  }

  // download(host, "/a/b", dest) copies <folder>/a/b: the host's file system, rooted at `folder`.
  void serve_files(const std::string& host, const std::filesystem::path& folder) {
    std::lock_guard lock(mutex_);
    roots_[host] = folder;
  }

  Result<cluster::CommandResult> run(const std::string& host, const std::string& command,
                                     std::chrono::seconds) override {
    std::lock_guard lock(mutex_);
    log_[host].push_back(command);
    for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule) {
      if (rule->host != kAnyHost && rule->host != host) continue;
      bool match = rule->pattern ? std::regex_search(command, *rule->pattern) : command.find(rule->needle) != std::string::npos;
      if (!match) continue;
      if (const auto* error = std::get_if<Error>(&rule->reply)) return *error;
      return std::get<cluster::CommandResult>(rule->reply);
    }
    return cluster::CommandResult{0, ""};
  }

  Status download(const std::string& host, const std::string& remote_path, const std::filesystem::path& local_path,
                  uint64_t max_bytes) override {
    std::filesystem::path source;
    {
      std::lock_guard lock(mutex_);
      downloads_[host].push_back(remote_path);
      auto root = roots_.find(host);
      if (root == roots_.end()) root = roots_.find(kAnyHost);
      if (root == roots_.end()) return Error{ErrorCode::kNotFound, "no files served for " + host, host};
      source = root->second / std::filesystem::path(remote_path).relative_path();
    }
    std::error_code ec;
    if (!std::filesystem::is_regular_file(source, ec))
      return Error{ErrorCode::kNotFound, remote_path + ": no such file", host};
    if (std::filesystem::file_size(source, ec) > max_bytes) return cluster::copy_over_limit(host, local_path, max_bytes);
    std::filesystem::copy_file(source, local_path, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) return Error{ErrorCode::kIo, "copy " + remote_path + ": " + ec.message(), host};
    return ok_status();
  }

  // A stream: the command a rule matches writes the rule's output (stderr too, when
  // it fails). Otherwise, on a host with served files, a command that names one of
  // them as a shell word (as the collection's node-side copy does) streams that file,
  // recorded among downloads(); any other command writes nothing and exits 0.
  Result<cluster::StreamResult> stream(const std::string& host, const std::string& command,
                                       const std::filesystem::path& local_path, std::chrono::seconds timeout,
                                       uint64_t max_bytes) override {
    auto scripted = matching_rule(host, command);
    if (scripted) {
      auto ran = run(host, command, timeout);
      if (!ran) return ran.error();
      if (ran->output.size() > max_bytes) return cluster::copy_over_limit(host, local_path, max_bytes);
      std::ofstream(local_path, std::ios::binary | std::ios::trunc) << ran->output;
      return cluster::StreamResult{ran->exit_code, ran->output.size(), ran->exit_code != 0 ? ran->output : ""};
    }
    if (auto named = served_file_named(host, command)) {
      Status copied = download(host, *named, local_path, max_bytes);
      if (!copied) return copied.error();
      return cluster::StreamResult{0, std::filesystem::file_size(local_path), ""};
    }
    std::ofstream(local_path, std::ios::binary | std::ios::trunc);
    return cluster::StreamResult{0, 0, ""};
  }

  std::string name() const override { return "fake"; }

  // Every command `host` was sent, in order.
  std::vector<std::string> commands(const std::string& host) const {
    std::lock_guard lock(mutex_);
    auto it = log_.find(host);
    return it == log_.end() ? std::vector<std::string>{} : it->second;
  }
  // Those that contain `needle`.
  std::vector<std::string> commands_with(const std::string& host, const std::string& needle) const {
    std::vector<std::string> all = commands(host), found;
    std::copy_if(all.begin(), all.end(), std::back_inserter(found),
                 [&](const std::string& c) { return c.find(needle) != std::string::npos; });
    return found;
  }
  // Every remote path `host` was asked for.
  std::vector<std::string> downloads(const std::string& host) const {
    std::lock_guard lock(mutex_);
    auto it = downloads_.find(host);
    return it == downloads_.end() ? std::vector<std::string>{} : it->second;
  }

 private:
  struct Rule {
    std::string host;
    std::string needle;
    std::optional<std::regex> pattern;
    std::variant<cluster::CommandResult, Error> reply;
  };
  bool matching_rule(const std::string& host, const std::string& command) const {
    std::lock_guard lock(mutex_);
    return std::any_of(rules_.begin(), rules_.end(), [&](const Rule& rule) {
      if (rule.host != kAnyHost && rule.host != host) return false;
      return rule.pattern ? std::regex_search(command, *rule.pattern) : command.find(rule.needle) != std::string::npos;
    });
  }
  // The node path of a served file that `command` names as a shell word.
  std::optional<std::string> served_file_named(const std::string& host, const std::string& command) const {
    std::lock_guard lock(mutex_);
    auto root = roots_.find(host);
    if (root == roots_.end()) root = roots_.find(kAnyHost);
    if (root == roots_.end()) return std::nullopt;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(root->second, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      const std::string node_path = "/" + std::filesystem::relative(it->path(), root->second).string();
      if ((command + " ").find(" " + shell_quote(node_path) + " ") != std::string::npos) return node_path;
    }
    return std::nullopt;
  }
  FakeTransport& add(Rule rule) {
    std::lock_guard lock(mutex_);
    rules_.push_back(std::move(rule));
    return *this;
  }

  mutable std::mutex mutex_;
  std::vector<Rule> rules_;
  std::map<std::string, std::vector<std::string>> log_;
  std::map<std::string, std::vector<std::string>> downloads_;
  std::map<std::string, std::filesystem::path> roots_;
};

}  // namespace aorta::testing
