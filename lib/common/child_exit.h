// Waiting for a Boost.Process child with a time limit. Boost's child::wait_for can
// wait its whole limit after the child has exited, in a process with threads
// (boostorg/process#69; it returns in time under strace, which hides it): rank 0 of
// every managed run waited 30 s for an agent that had ended. This asks the kernel
// every 10 ms instead.
#pragma once

#include <chrono>

#include <boost/process/child.hpp>

namespace aorta {

// True once the child has ended (reaped), false when it still runs after `limit`.
// A child that cannot be waited for (not ours, already reaped) counts as ended.
bool wait_for_exit(boost::process::child& child, std::chrono::milliseconds limit);

}  // namespace aorta
