#include "common/version.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta {
namespace {

std::string git_head() {
  std::string cmd = std::string("git -C '") + AORTA_SOURCE_DIR + "' rev-parse --short=12 HEAD 2>/dev/null";
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[64];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// The commit is the one git names for the source tree, asked here independently.
TEST(Version, NamesTheCommitTheBuildWasMadeFrom) {
  std::string head = git_head();
  if (head.empty()) GTEST_SKIP() << "not built from a git checkout";
  std::string commit = git_commit();
  EXPECT_TRUE(commit == head || commit == head + "-dirty")
      << commit << " vs git's " << head << " (a commit since the last build? rebuild first)";
  EXPECT_EQ(version_line(), std::string("aorta_suite ") + version() + " (commit " + commit + ")");
}

}  // namespace
}  // namespace aorta
