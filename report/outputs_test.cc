// The one report pipeline: the listener writes exactly the outputs it was given, in
// order, and refuses an unknown name before anything runs.
#include "report/outputs.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "report/aorta_listener.h"

namespace aorta::report {
namespace {
namespace fs = std::filesystem;

TEST(ReportOutputs, AnUnknownNameIsRefusedNamingItAndTheKnownOnes) {
  auto made = create_outputs({"junit", "pdf"});
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message, "unknown report output \"pdf\"; known: summary, junit, log, deck, html, bundle");
  ReportContext context;
  auto listener = AortaListener::create(context, "aorta_single", "r1", {}, {"log", "xml"});
  ASSERT_FALSE(listener.ok());
  EXPECT_NE(listener.error().message.find("\"xml\""), std::string::npos);
  EXPECT_TRUE(create_outputs(default_outputs()).ok());
}

TEST(ReportOutputs, TheListenerWritesTheNamedOutputsOnlyWithTheContextsJunitOptions) {
  fs::path dir = fs::temp_directory_path() / ("aorta_outputs_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ReportContext context;
  context.report_dir = dir;
  context.junit = {"rack7", JunitFamily::kLegacy};
  context.extra_junit_paths = {dir / "extra" / "copy.xml"};
  auto listener = AortaListener::create(context, "aorta_single", "r1", {}, {"junit", "log"});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  (*listener)->write_reports();
  EXPECT_FALSE((*listener)->write_failed());
  std::vector<std::string> written;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) written.push_back(fs::relative(e.path(), dir).string());
  std::sort(written.begin(), written.end());
  EXPECT_EQ(written, (std::vector<std::string>{"aorta_single.log", "aorta_single.xml", "extra/copy.xml"}));
  std::ifstream in(dir / "extra" / "copy.xml");
  std::stringstream xml;
  xml << in.rdbuf();
  EXPECT_NE(xml.str().find("<testsuite name=\"rack7.aorta_single\""), std::string::npos) << xml.str();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace aorta::report
