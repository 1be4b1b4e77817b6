// aorta_suite's own command line, parsed before GoogleTest sees the rest.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace aorta::cli {

enum class Command { kRun, kHelp, kVersion, kList, kConfigCopy, kConfigList, kAnalyze };

struct Options {
  Command command = Command::kRun;
  std::string error;  // set: a usage error (exit 2)
  // run
  std::string cluster_file;
  std::string config_file;
  std::string output_dir;
  std::vector<std::string> gtest_args;  // --gtest_* flags, passed through
  // list
  std::string suite;
  // config copy
  std::string config_name;
  std::string output;
  // analyze
  std::string trace_dir;
  bool include_unlinked = false;
  int jobs = 0;  // 0: one per core
};

Options parse(const std::vector<std::string>& args);

std::string usage();

// The --gtest_filter value among gtest_args, or nothing.
std::optional<std::string> gtest_filter(const std::vector<std::string>& gtest_args);

// GoogleTest filter semantics (':'-separated globs, optional '-' negative part)
// applied to a full test name such as aorta_single.test_teardown.
bool filter_matches(const std::string& filter, const std::string& test_name);

}  // namespace aorta::cli
