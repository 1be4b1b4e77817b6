// aorta_suite compare run whole (issue 29, item 11 in part): names from files reach
// the terminal printable.
#include <gtest/gtest.h>

#include "tests/run_suite.h"
#include "tests/temp_dir.h"

namespace aorta::app {
namespace {

using aorta::testing::run_suite;
using aorta::testing::TempDir;

// A file name is bytes: an escape in it must not reach the terminal as one.
TEST(CompareCommand, NamesFromFilesReachTheTerminalPrintable) {
  TempDir dir;
  const std::string titled = "b\x1b]0;owned\x07.json", cleared = "bad\x1b[2J.json";
  dir.write(titled, R"({"performance": {"avg_iteration_time_ms": 10}})");
  dir.write(cleared, "not json");
  const auto ok = run_suite({"compare", titled, titled}, dir.path());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out.find('\x1b'), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("baseline  b\\x1b]0;owned\\x07.json\n"), std::string::npos) << ok.out;
  const auto bad = run_suite({"compare", titled, cleared}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.find('\x1b'), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("candidate bad\\x1b[2J.json: not JSON"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace aorta::app
