#include "report/node_test_fold.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "report/node_subtests.h"

namespace aorta::report {
namespace {

// What the console shows of a run: "RUN <name>", "END <name>" and the fold's lines, as
// ConsolePrinter would print them; `fails` names the tests that fail.
std::vector<std::string> shown(NodeTestFold& fold, const std::vector<std::string>& names,
                               const std::vector<std::string>& fails = {}) {
  std::vector<std::string> out;
  for (const auto& name : names) {
    auto start = fold.start("aorta_distributed", name);
    if (start.family_end) out.push_back(*start.family_end);
    if (start.show) out.push_back("RUN " + name);
    const bool passed = std::find(fails.begin(), fails.end(), name) == fails.end();
    if (!passed && fold.reveal()) out.push_back("RUN " + name);
    if (fold.end(passed)) out.push_back("END " + name);
  }
  if (auto end = fold.finish()) out.push_back(*end);
  return out;
}

std::vector<std::string> nodes(size_t count) {
  std::vector<std::string> names{"test_run_benchmark", "test_collect_traces"};
  for (size_t i = 1; i <= count; ++i) names.push_back("test_collect_traces/node" + std::to_string(i));
  names.push_back("test_parse_results");
  return names;
}

// Up to kListedNodes node sub-tests: every one as gtest shows it.
TEST(NodeTestFold, AFewNodesShowAsGtestShowsThem) {
  NodeTestFold fold({"test_collect_traces/"});
  auto out = shown(fold, nodes(kListedNodes));
  EXPECT_EQ(out.size(), 2 * (kListedNodes + 3));
  EXPECT_EQ(std::count_if(out.begin(), out.end(), [](const auto& l) { return l.rfind("RUN ", 0) != 0 && l.rfind("END ", 0) != 0; }), 0);
}

// 64 nodes, node 17 failing and node 40 skipped (not passed): the first 8 show, then 17 and
// 40 whole (RUN before END), and one line counting the 54 withheld before the next stage.
TEST(NodeTestFold, SixtyFourNodesAreEightTheOnesThatDidNotPassAndOneLine) {
  NodeTestFold fold({"test_collect_traces/"});
  auto out = shown(fold, nodes(64), {"test_collect_traces/node17", "test_collect_traces/node40"});
  const std::string end = "[----------] aorta_distributed.test_collect_traces/* 54 more passed, not shown here (the "
                          "JUnit file and the HTML report have each)";
  std::vector<std::string> want{"RUN test_run_benchmark", "END test_run_benchmark", "RUN test_collect_traces",
                                "END test_collect_traces"};
  for (int i = 1; i <= 8; ++i)
    for (const char* what : {"RUN ", "END "}) want.push_back(what + std::string("test_collect_traces/node") + std::to_string(i));
  for (int i : {17, 40})
    for (const char* what : {"RUN ", "END "}) want.push_back(what + std::string("test_collect_traces/node") + std::to_string(i));
  want.insert(want.end(), {end, "RUN test_parse_results", "END test_parse_results"});
  EXPECT_EQ(out, want);
}

// The family ending with the run (no stage after it) still says what it withheld, once.
TEST(NodeTestFold, TheRunsEndSaysWhatWasWithheld) {
  NodeTestFold fold({"test_collect_traces/"});
  std::vector<std::string> names;
  for (int i = 1; i <= 10; ++i) names.push_back("test_collect_traces/n" + std::to_string(i));
  auto out = shown(fold, names);
  ASSERT_EQ(out.size(), 2 * kListedNodes + 1);
  EXPECT_NE(out.back().find("test_collect_traces/* 2 more passed"), std::string::npos) << out.back();
  EXPECT_EQ(fold.finish(), std::nullopt);
}

}  // namespace
}  // namespace aorta::report
