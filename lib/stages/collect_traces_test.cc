// test_collect_traces after an interrupt: a node that wrote no trace of this run is
// skipped (its training was stopped), told by the collection's typed reason, never by
// what a message happens to say. Death tests: the interrupt is process state.
#include <signal.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "common/interrupt.h"
#include "tests/stage_harness.h"
#include "tests/temp_dir.h"

namespace aorta::stages {
namespace {

using job::Outcome;

using CollectTracesDeathTest = ::testing::Test;

// The head node's sub-test after SIGINT, its listing answered with (exit code, output).
Outcome interrupted_outcome(int exit_code, const std::string& listing) {
  Harness h;
  aorta::testing::TempDir dir;
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.v.multi_node.collect_traces = false;  // the head node only
  h.state.output_root = dir.path();
  h.fake.on("n1", "find .", exit_code, listing);
  install_interrupt_handlers();
  raise(SIGINT);
  return h.run(kCollectTraces).subtests.at(0).outcome;
}

TEST_F(CollectTracesDeathTest, ANodeWithNothingFreshIsSkippedAfterAnInterrupt) {
  EXPECT_EXIT(std::exit(interrupted_outcome(0, "") == Outcome::kSkipped ? 7 : 1), ::testing::ExitedWithCode(7), "");
}

// The listing failed: a failure of the node's own, whatever its output quotes.
TEST_F(CollectTracesDeathTest, AFailedListingQuotingTheNothingFreshTextStaysFailed) {
  const std::string said = "find: './No fresh torch_profiler files found': Permission denied";
  EXPECT_EXIT(std::exit(interrupted_outcome(2, said) == Outcome::kFailed ? 7 : 1), ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace aorta::stages
