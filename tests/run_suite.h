// The built aorta_suite run from a unit test, for what only the whole command shows:
// its exit status and the exact bytes it writes to stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/shell_quote.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::testing {

struct SuiteRun {
  int exit_code = -1;  // -1: it did not exit normally
  std::string out;
  std::string err;
};

// Runs in cwd, its streams caught in files there (named so no test input clashes).
inline SuiteRun run_suite(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  const auto out = cwd / ".suite-stdout", err = cwd / ".suite-stderr";
  std::vector<std::string> argv{AORTA_SUITE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string command = "cd " + shell_quote(cwd.string()) + " && " + shell_join(argv) + " > " +
                              shell_quote(out.string()) + " 2> " + shell_quote(err.string()) + " < /dev/null";
  const int status = std::system(command.c_str());
  auto slurp = [](const std::filesystem::path& p) {
    std::ostringstream text;
    text << std::ifstream(p, std::ios::binary).rdbuf();
    return text.str();
  };
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

}  // namespace aorta::testing
