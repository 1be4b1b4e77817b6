#include "common/run_both.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

namespace aorta {
namespace {

TEST(RunBoth, BothRunAndTheSecondOnItsOwnThreadOnlyWhenAllowed) {
  for (unsigned threads : {1u, 2u}) {
    std::thread::id first, second;
    run_both([&] { first = std::this_thread::get_id(); }, [&] { second = std::this_thread::get_id(); }, threads);
    EXPECT_EQ(first, std::this_thread::get_id());
    EXPECT_EQ(second == first, threads == 1) << threads;
  }
}

// A throw on either side reaches the caller once both have ended; the other side's
// work is not cut short (nothing is left running on the helper thread).
TEST(RunBoth, AThrowOnEitherSideReachesTheCallerAfterBothEnded) {
  for (unsigned threads : {1u, 2u}) {
    std::atomic<bool> other_done{false};
    EXPECT_THROW(run_both([&] { other_done = true; }, [] { throw std::runtime_error("second"); }, threads),
                 std::runtime_error);
    EXPECT_TRUE(other_done);
    other_done = false;
    EXPECT_THROW(run_both([] { throw std::runtime_error("first"); },
                          [&] {
                            std::this_thread::sleep_for(std::chrono::milliseconds(50));
                            other_done = true;
                          },
                          threads),
                 std::runtime_error);
    // With one thread the second never starts after the first threw.
    EXPECT_EQ(other_done.load(), threads > 1) << threads;
  }
}

}  // namespace
}  // namespace aorta
