#include "report/console_printer.h"

#include <gtest/gtest.h>

namespace aorta::report {
namespace {

// Counts what reaches the printer it wraps.
class Recorder : public ::testing::EmptyTestEventListener {
 public:
  explicit Recorder(int& parts, int& starts) : parts_(parts), starts_(starts) {}
  void OnTestPartResult(const ::testing::TestPartResult&) override { ++parts_; }
  void OnTestStart(const ::testing::TestInfo&) override { ++starts_; }

 private:
  int& parts_;
  int& starts_;
};

// Issue 33 (5): a skip or a failure reads as gtest writes it, without the build
// machine's "<file>:<line>: " in front; other events reach gtest's printer.
TEST(ConsolePrinter, SkipsAndFailuresWithoutTheBuildMachinesPath) {
  int parts = 0, starts = 0;
  ConsolePrinter printer(std::make_unique<Recorder>(parts, starts));
  ::testing::internal::CaptureStdout();
  printer.OnTestPartResult(::testing::TestPartResult(::testing::TestPartResult::kSkip,
                                                     "/build/machine/fixtures/stage_fixture.cc", 75,
                                                     "skip_rccl_build=true"));
  printer.OnTestPartResult(::testing::TestPartResult(::testing::TestPartResult::kNonFatalFailure,
                                                     "/build/machine/fixtures/stage_fixture.cc", 72, "node n1 lost"));
  printer.OnTestPartResult(::testing::TestPartResult(::testing::TestPartResult::kSuccess, "/x.cc", 1, "fine"));
  printer.OnTestStart(*::testing::UnitTest::GetInstance()->current_test_info());
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "Skipped\nskip_rccl_build=true\nFailure\nnode n1 lost\n");
  EXPECT_EQ(parts, 0) << "gtest's printer would have written the path";
  EXPECT_EQ(starts, 1);
}

}  // namespace
}  // namespace aorta::report
