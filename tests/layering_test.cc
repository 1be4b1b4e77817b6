// The library never reaches up into the report, fixture or application code (audit
// D16: the metrics and threshold code imports nothing of the report): lib/ builds
// and is tested on its own, and a report change cannot alter a verdict. Read from
// the sources, since a path that climbs out ("../../report/x.h") still compiles.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace {

namespace fs = std::filesystem;

const fs::path kSource = AORTA_SOURCE_DIR;

// "file:line: include" for each quoted include under `dir` that names one of
// `layers` or climbs out of the include root.
std::vector<std::string> includes_into(const fs::path& dir, const std::vector<std::string>& layers) {
  static const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const auto ext = entry.path().extension();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
    std::ifstream in(entry.path());
    int number = 0;
    for (std::string line; std::getline(in, line);) {
      ++number;
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string target = m[1];
      bool bad = target.find("..") != std::string::npos;
      for (const auto& layer : layers) bad = bad || target.rfind(layer + "/", 0) == 0;
      if (bad) found.push_back(fs::relative(entry.path(), kSource).string() + ":" + std::to_string(number) + ": " + target);
    }
  }
  return found;
}

// No folder of lib/ is exempt (issue 44, 3): the stages write their JSON through
// lib/result_json, below the report.
TEST(Layering, LibraryIncludesNoReportFixtureOrApplicationCode) {
  ASSERT_TRUE(fs::is_directory(kSource / "lib/metrics"));
  ASSERT_TRUE(fs::is_directory(kSource / "lib/stages"));
  EXPECT_EQ(includes_into(kSource / "lib", {"report", "fixtures", "suites", "app"}), std::vector<std::string>{});
}

// The stages sit at the top of lib/: the library below them never includes them,
// except a test of job code that drives a stage's body (stages/specs.h).
TEST(Layering, NothingBelowTheStagesIncludesThem) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(kSource / "lib")) {
    if (!entry.is_directory() || entry.path().filename() == "stages") continue;
    for (const auto& line : includes_into(entry.path(), {"stages"}))
      if (line.find("_test.cc:") == std::string::npos) found.push_back(line);
  }
  EXPECT_EQ(found, std::vector<std::string>{});
}

}  // namespace
