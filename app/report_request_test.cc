// Issue 42, 9: two outputs on one file are refused before anything runs, naming both:
// every pair of the paths a run is given (the report options, gtest's JUnit file by
// flag or variable, the runner files), whatever the spelling of the path. Issue 42, 7:
// the files a test runner has gtest write are probed like reports and written by the
// run, never through a link or into a FIFO; the premature-exit file is removed at the
// normal end, and only if it is still the file written.
#include "app/report_request.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::app {
namespace {
namespace fs = std::filesystem;

// A request with one output per label, each at the path given (empty: not asked for).
ReportRequest request_with(const std::map<std::string, fs::path>& paths) {
  ReportRequest r;
  r.outputs = report::default_outputs();
  for (const auto& [label, path] : paths) {
    if (label == "--html") r.html_file = path;
    else if (label == "--log-file") r.log_file = path;
    else if (label == "--junitxml") r.junit_files.push_back(path);
    else if (label == "--gtest_output" || label == "XML_OUTPUT_FILE") r.gtest_junit = JunitOutput{path, false, label};
    else r.runner_files.push_back({label, path});
  }
  return r;
}

// A link to a precious file and a FIFO in `dir`, as another user could plant them.
void plant_link_and_fifo(const testing::TempDir& dir) {
  dir.write("target", "precious");
  ::symlink((dir.path() / "target").c_str(), (dir.path() / "link").c_str());
  ::mkfifo((dir.path() / "fifo").c_str(), 0600);
}

const std::vector<std::string> kLabels = {"--html", "--log-file", "--junitxml", "--gtest_output",
                                          "GTEST_SHARD_STATUS_FILE", "TEST_PREMATURE_EXIT_FILE"};

TEST(ReportPaths, EveryPairOnOneFileIsRefusedNamingBoth) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "sub");
  ::symlink("sub", (dir.path() / "via").c_str());  // ours: a folder link the walk follows
  const fs::path file = dir.path() / "sub" / "r.xml";
  // The same file by other spellings: dots, a link on the way, a hard link.
  const std::vector<fs::path> spellings = {dir.path() / "sub" / "." / "r.xml", dir.path() / "x" / ".." / "sub" / "r.xml",
                                           dir.path() / "via" / "r.xml", dir.path() / "sub" / "hard.xml"};
  dir.write("sub/r.xml", "earlier");
  ASSERT_EQ(::link(file.c_str(), (dir.path() / "sub" / "hard.xml").c_str()), 0);
  for (size_t i = 0; i < kLabels.size(); ++i)
    for (size_t j = i + 1; j < kLabels.size(); ++j)
      for (const auto& other : spellings) {
        const auto problem = report_path_problem(request_with({{kLabels[i], file}, {kLabels[j], other}}), "aorta_single");
        ASSERT_TRUE(problem) << kLabels[i] << " and " << kLabels[j] << " at " << other;
        EXPECT_NE(problem->find(kLabels[i] + " " + file.string() + " and " + kLabels[j] + " " + other.string() +
                                " are one file"),
                  std::string::npos)
            << *problem;
      }
  // Apart, they are taken.
  std::map<std::string, fs::path> apart;
  for (const auto& label : kLabels) apart[label] = dir.path() / (label.substr(label.find_first_not_of('-')) + ".out");
  EXPECT_EQ(report_path_problem(request_with(apart), "aorta_single"), std::nullopt);
}

// A file inside the HTML's <suite>_html/ folder would be replaced by the page's own files.
TEST(ReportPaths, AnOutputInsideTheHtmlFolderIsRefused) {
  testing::TempDir dir;
  const auto problem = report_path_problem(
      request_with({{"--html", dir.path() / "r.html"}, {"--junitxml", dir.path() / "aorta_single_html" / "report.css"}}),
      "aorta_single");
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("--junitxml " + (dir.path() / "aorta_single_html" / "report.css").string() +
                          " is inside the HTML report's folder"),
            std::string::npos)
      << *problem;
  // Without --html's folder in play (no HTML asked for), the same path is fine.
  auto no_html = request_with({{"--html", dir.path() / "r.html"}, {"--junitxml", dir.path() / "aorta_single_html" / "j.xml"}});
  no_html.outputs = {"junit"};
  EXPECT_EQ(report_path_problem(no_html, "aorta_single"), std::nullopt);
}

// Issue 42, 7: the runner files are probed as the report paths are: a link, a FIFO or
// a device there is refused, naming the variable and the path.
TEST(ReportPaths, RunnerFilesAreProbedLikeReports) {
  testing::TempDir dir;
  plant_link_and_fifo(dir);
  for (const char* variable : {"GTEST_SHARD_STATUS_FILE", "TEST_PREMATURE_EXIT_FILE"})
    for (const auto& [path, kind] : {std::pair{dir.path() / "link", "a symbolic link"}, std::pair{dir.path() / "fifo", "a FIFO"},
                                     std::pair{fs::path("/dev/null"), "a character device"}}) {
      const auto problem = report_path_problem(request_with({{variable, path}}), "aorta_single");
      ASSERT_TRUE(problem) << variable << " " << path;
      EXPECT_NE(problem->find(std::string(variable) + " " + path.string() + ": refused to write there: it is " + kind),
                std::string::npos)
          << *problem;
    }
  EXPECT_EQ(report_path_problem(request_with({{"TEST_PREMATURE_EXIT_FILE", dir.path() / "new"}}), "aorta_single"),
            std::nullopt);
}

TEST(ReportPaths, RunnerFilesComeFromTheEnvironmentAbsolute) {
  auto getenv = [](const char* name) -> const char* {
    if (std::string(name) == "GTEST_SHARD_STATUS_FILE") return "rel/shard";
    if (std::string(name) == "TEST_PREMATURE_EXIT_FILE") return "";  // empty: none
    return nullptr;
  };
  const auto files = runner_files(getenv);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].variable, "GTEST_SHARD_STATUS_FILE");
  EXPECT_EQ(files[0].path, fs::current_path() / "rel" / "shard");
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RunnerFiles, WrittenAsGtestWouldAndThePrematureExitFileRemovedAtTheEnd) {
  testing::TempDir dir;
  const fs::path shard = dir.path() / "shard", premature = dir.path() / "premature";
  {
    auto written = RunnerFilesWritten::write({{"GTEST_SHARD_STATUS_FILE", shard}, {"TEST_PREMATURE_EXIT_FILE", premature}});
    ASSERT_TRUE(written) << written.error().describe();
    EXPECT_EQ(slurp(shard), "");
    EXPECT_EQ(slurp(premature), "0");
  }
  EXPECT_TRUE(fs::exists(shard));  // the runner's to read
  EXPECT_FALSE(fs::exists(premature));
  // Replaced by someone else's file while the run ran: left alone.
  {
    auto written = RunnerFilesWritten::write({{"TEST_PREMATURE_EXIT_FILE", premature}});
    ASSERT_TRUE(written);
    dir.write("other", "another's");  // made first: it cannot reuse the written file's inode
    fs::rename(dir.path() / "other", premature);
  }
  EXPECT_EQ(slurp(premature), "another's");
}

TEST(RunnerFiles, NeverThroughALinkOrIntoAFifo) {
  testing::TempDir dir;
  plant_link_and_fifo(dir);
  for (const char* variable : {"GTEST_SHARD_STATUS_FILE", "TEST_PREMATURE_EXIT_FILE"})
    for (const char* name : {"link", "fifo"}) {
      auto written = RunnerFilesWritten::write({{variable, dir.path() / name}});
      ASSERT_FALSE(written) << variable << " " << name;
      const std::string e = written.error().describe();
      EXPECT_EQ(e.rfind(std::string(variable) + ": " + (dir.path() / name).string() + ": refused to write there", 0), 0u)
          << e;
    }
  EXPECT_EQ(slurp(dir.path() / "target"), "precious");
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link"));
}

// gtest reads the variables when it runs the tests, and the workload inherits them:
// the request takes them and unsets them in this process.
TEST(RunnerFiles, TakenIntoTheRequestAndHiddenFromGtest) {
  ::setenv("GTEST_SHARD_STATUS_FILE", "/nonexistent/shard", 1);
  ::setenv("TEST_PREMATURE_EXIT_FILE", "/nonexistent/premature", 1);
  const ReportRequest request = report_request(cli::Options{}, GtestFlags{}, [](const char* n) -> const char* { return std::getenv(n); });
  ASSERT_EQ(request.runner_files.size(), 2u);
  EXPECT_EQ(request.runner_files[1].path, "/nonexistent/premature");
  EXPECT_EQ(std::getenv("GTEST_SHARD_STATUS_FILE"), nullptr);
  EXPECT_EQ(std::getenv("TEST_PREMATURE_EXIT_FILE"), nullptr);
}

}  // namespace
}  // namespace aorta::app
