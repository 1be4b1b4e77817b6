// The console's echo of a stage's notes at 512 ranks (issue 46): the same words said of
// many traces or nodes are one line; a few are each a line, as before.
#include "report/console_fold.h"

#include <gtest/gtest.h>
#include <fmt/format.h>

namespace aorta::report {
namespace {

const std::string kNoSteps = "no ProfilerStep annotations (torch.profiler's step()); the per-step figures are null";

TEST(ConsoleFold, ManySubjectsSayingTheSameAreOneLineWhereTheFirstStood) {
  std::vector<std::string> lines = {"Node-side analysis: off"};
  for (int r = 0; r < 512; ++r) lines.push_back(fmt::format("/out/rank{}/t.json: {}", r, kNoSteps));
  lines.push_back("trace error: /out/rank9/x.json: truncated");
  EXPECT_EQ(fold_alike_lines(lines),
            (std::vector<std::string>{"Node-side analysis: off",
                                      kNoSteps + ": said of 512 (/out/rank0/t.json, /out/rank1/t.json and 510 more; "
                                                 "each in the run's log)",
                                      "trace error: /out/rank9/x.json: truncated"}));
}

// Up to kAlikeShown alike lines, lines without a subject and lines that only share a
// subject are echoed as they are.
TEST(ConsoleFold, AFewAlikeLinesAndDistinctLinesStayAsTheyAre) {
  std::vector<std::string> lines;
  for (size_t n = 1; n <= kAlikeShown; ++n) lines.push_back(fmt::format("node{}: found 2 file(s)", n));
  lines.insert(lines.end(), {"node1: kept", "node1: removed", "no subject here", "  a: 1", "  b: 1"});
  EXPECT_EQ(fold_alike_lines(lines), lines);
}

// A node log's last 20 lines, where the training wrote a line per rank: the console
// keeps the last 8 and says how many it cut; a short block and the lines after a block
// stay as they are.
TEST(ConsoleFold, ABlockKeepsItsLastLines) {
  std::vector<std::string> lines = {"localhost benchmark.log, last lines:"};
  for (int r = 0; r < 20; ++r) lines.push_back(fmt::format("  rank {} trace t{}.json", r, r));
  lines.push_back("after the block");
  const auto shown = console_notes(lines);
  ASSERT_EQ(shown.size(), 11u);
  EXPECT_EQ(shown[0], lines[0]);
  EXPECT_EQ(shown[1], "  (12 earlier lines in the run's log)");
  EXPECT_EQ(shown[2], "  rank 12 trace t12.json");
  EXPECT_EQ(shown[9], "  rank 19 trace t19.json");
  EXPECT_EQ(shown[10], "after the block");
  const std::vector<std::string> short_block = {"node1 benchmark.log, last lines:", "  loss 1.0", "", "  CVS_AORTA_EXIT=0"};
  EXPECT_EQ(console_notes(short_block), short_block);
  const std::vector<std::string> no_header = {"not a header", "  a", "  b", "  c", "  d", "  e", "  f", "  g", "  h", "  i"};
  EXPECT_EQ(console_notes(no_header), no_header);
}

// 64 nodes' log tails: the first 4 are shown, the other 60 one line in their place.
TEST(ConsoleFold, PastFourBlocksTheOthersAreOneLine) {
  std::vector<std::string> lines;
  for (int n = 1; n <= 64; ++n)
    lines.insert(lines.end(), {fmt::format("node{} benchmark.log, last lines:", n), "  loss 1.0"});
  lines.push_back("kernel log: clean");
  const auto shown = console_notes(lines);
  ASSERT_EQ(shown.size(), 10u);
  EXPECT_EQ(shown[6], "node4 benchmark.log, last lines:");
  EXPECT_EQ(shown[8], "(60 more blocks like these, e.g. other nodes' last log lines: in the run's log)");
  EXPECT_EQ(shown[9], "kernel log: clean");
}

}  // namespace
}  // namespace aorta::report
