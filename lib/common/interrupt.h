// SIGINT, SIGTERM and SIGHUP end a run cleanly instead of killing it: the first one
// is recorded, the running stage stops at its next check, and teardown and the
// reports still happen. The reports name the first signal, whatever follows it.
// A second SIGINT or SIGTERM ends the process at once (an operator insisting);
// SIGHUP never does, since a dropped login can deliver it twice (the terminal's
// hangup and the shell passing it on to its jobs).
#pragma once

#include <chrono>
#include <string>

namespace aorta {

void install_interrupt_handlers();
// The first signal that asked the run to stop, 0 while none has.
int interrupt_signal();
// "SIGINT" / "SIGTERM" / "SIGHUP"; empty while none has arrived.
std::string interrupt_name();
// Sleeps up to `duration`; returns false early once a stop was asked for.
bool sleep_unless_interrupted(std::chrono::milliseconds duration);

}  // namespace aorta
