// Files a reader can hold (issue 33): no source file over 400 lines and no function
// over 80, tests and benchmarks included. Read from the sources, as the layering
// test reads includes. A function is a definition that opens at column 0 (the house
// style: clang-format's Google style) and ends at the next "}" at column 0.
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
constexpr size_t kMaxFileLines = 400;
constexpr size_t kMaxFunctionLines = 80;

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool ends_with(const std::string& line, char c) {
  const auto end = line.find_last_not_of(" \t\r");
  return end != std::string::npos && line[end] == c;
}

// "file:line: N lines" for each function definition longer than kMaxFunctionLines.
std::vector<std::string> long_functions(const fs::path& file, const std::vector<std::string>& lines) {
  // A definition's first line: a declaration at column 0 with a parameter list,
  // not a namespace, type, preprocessor line, comment or using.
  static const std::regex head(R"re(^(?!namespace|class|struct|enum|union|extern|#|//|using)[A-Za-z_~].*\()re");
  std::vector<std::string> found;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!std::regex_search(lines[i], head) || ends_with(lines[i], ';')) continue;
    size_t open = i;  // the signature may wrap before its "{"
    while (open < lines.size() && open - i < 8 && !ends_with(lines[open], '{') && !ends_with(lines[open], ';')) ++open;
    if (open >= lines.size() || !ends_with(lines[open], '{')) continue;
    size_t close = open + 1;
    while (close < lines.size() && lines[close].rfind('}', 0) != 0) ++close;
    const size_t length = close - i + 1;
    if (length > kMaxFunctionLines)
      found.push_back(fs::relative(file, kSource).string() + ":" + std::to_string(i + 1) + ": " +
                      std::to_string(length) + " lines");
    i = close;
  }
  return found;
}

TEST(SourceLimits, NoFileOver400LinesAndNoFunctionOver80) {
  std::vector<std::string> over;
  size_t files = 0;
  for (const char* dir : {"lib", "report", "fixtures", "suites", "app", "bench", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kSource / dir)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cc")) continue;
      ++files;
      const auto lines = read_lines(entry.path());
      if (lines.size() > kMaxFileLines)
        over.push_back(fs::relative(entry.path(), kSource).string() + ": " + std::to_string(lines.size()) + " lines");
      for (auto& f : long_functions(entry.path(), lines)) over.push_back(std::move(f));
    }
  }
  EXPECT_GT(files, 100u);
  EXPECT_EQ(over, std::vector<std::string>{});
}

}  // namespace
