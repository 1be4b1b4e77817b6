// wait_for_exit returns when the child has ended, not when its limit does, also for
// a child that ended before the wait began (an agent told "done" ends before rank 0
// waits for it): Boost's wait_for then waited its whole limit (boostorg/process#69).
#include "common/child_exit.h"

#include <atomic>
#include <thread>

#include <boost/process.hpp>
#include <gtest/gtest.h>

namespace aorta {
namespace {

namespace bp = boost::process;

TEST(ChildExit, ReturnsWhenTheChildEndsNotWhenTheLimitDoes) {
  std::atomic<bool> stop{false};
  std::thread busy([&] {  // another thread, as the suite's transports have
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  bp::child quick("/bin/true");
  bp::child witness("/bin/sleep", "10");  // still running unless the wait took the limit
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // `quick` has ended by now
  EXPECT_TRUE(wait_for_exit(quick, std::chrono::seconds(30)));
  std::error_code ec;
  EXPECT_TRUE(witness.running(ec)) << "the wait lasted past the 10 s witness: it waited out its 30 s limit";
  witness.terminate(ec);
  stop = true;
  busy.join();
}

TEST(ChildExit, FalseWhileTheChildStillRuns) {
  bp::child slow("/bin/sleep", "10");
  EXPECT_FALSE(wait_for_exit(slow, std::chrono::milliseconds(100)));
  std::error_code ec;
  slow.terminate(ec);
  EXPECT_TRUE(wait_for_exit(slow, std::chrono::seconds(5)));
}

}  // namespace
}  // namespace aorta
