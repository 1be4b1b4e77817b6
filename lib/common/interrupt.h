// SIGINT and SIGTERM end a run cleanly instead of killing it: the first one is
// recorded, the running stage stops at its next check, and teardown and the
// reports still happen. A second signal ends the process at once.
#pragma once

#include <chrono>
#include <string>

namespace aorta {

void install_interrupt_handlers();
// The signal that asked the run to stop, 0 while none has.
int interrupt_signal();
// "SIGINT" / "SIGTERM"; empty while none has arrived.
std::string interrupt_name();
// Sleeps up to `duration`; returns false early once a stop was asked for.
bool sleep_unless_interrupted(std::chrono::milliseconds duration);

}  // namespace aorta
