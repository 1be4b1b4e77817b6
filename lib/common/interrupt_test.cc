#include "common/interrupt.h"

#include <signal.h>

#include <cstdlib>

#include <gtest/gtest.h>

namespace aorta {
namespace {

// Each case runs in a child process (a death test): the first signal is process
// state that the other unit tests must not see.
using InterruptDeathTest = ::testing::Test;

TEST_F(InterruptDeathTest, SighupStopsTheRunLikeSigterm) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        raise(SIGHUP);
        std::exit(interrupt_name() == "SIGHUP" && !sleep_unless_interrupted(std::chrono::milliseconds(10)) ? 7 : 1);
      },
      ::testing::ExitedWithCode(7), "");
}

TEST_F(InterruptDeathTest, ASecondHangupDoesNotEndTheProcess) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        raise(SIGHUP);
        raise(SIGHUP);
        std::exit(interrupt_name() == "SIGHUP" ? 7 : 1);
      },
      ::testing::ExitedWithCode(7), "");
}

TEST_F(InterruptDeathTest, TheFirstSignalIsTheOneReported) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        raise(SIGINT);
        raise(SIGTERM);
        raise(SIGHUP);
        std::exit(interrupt_name() == "SIGINT" && interrupt_signal() == SIGINT ? 7 : 1);
      },
      ::testing::ExitedWithCode(7), "");
}

// Both pending at once, as when SIGTERM follows Ctrl-C before the process runs: the
// kernel delivers them together, and SIGTERM must not get to record first.
TEST_F(InterruptDeathTest, TwoSignalsDeliveredTogetherReportTheFirst) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        sigset_t both;
        sigemptyset(&both);
        sigaddset(&both, SIGINT);
        sigaddset(&both, SIGTERM);
        sigprocmask(SIG_BLOCK, &both, nullptr);
        raise(SIGINT);
        raise(SIGTERM);
        sigprocmask(SIG_UNBLOCK, &both, nullptr);
        std::exit(interrupt_name() == "SIGINT" ? 7 : 1);
      },
      ::testing::ExitedWithCode(7), "");
}

TEST_F(InterruptDeathTest, ASecondSigintEndsTheProcessAtOnce) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        raise(SIGINT);
        raise(SIGINT);
        std::exit(7);
      },
      ::testing::KilledBySignal(SIGINT), "");
}

TEST_F(InterruptDeathTest, ABrokenPipeDoesNotEndTheProcess) {
  EXPECT_EXIT(
      {
        install_interrupt_handlers();
        raise(SIGPIPE);
        std::exit(interrupt_signal() == 0 ? 7 : 1);
      },
      ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace aorta
