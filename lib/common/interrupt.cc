#include "common/interrupt.h"

#include <signal.h>

#include <atomic>
#include <thread>

namespace aorta {
namespace {
std::atomic<int> g_signal{0};

extern "C" void on_stop_signal(int signo) {
  // Only the first signal is kept: a SIGTERM sent after Ctrl-C must not change what
  // the reports say stopped the run.
  int none = 0;
  g_signal.compare_exchange_strong(none, signo);
}

// A pipe whose reader went away (a `| tee` ended by the same hangup) must not end
// the run before it reports: writes fail with EPIPE instead. A handler rather than
// SIG_IGN, because an ignored signal stays ignored in the commands we start.
extern "C" void on_broken_pipe(int) {}

void install(int signo, void (*handler)(int), int flags) {
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = flags;
  // The stop signals wait for each other's handler: when two are pending at once the
  // kernel stacks their frames and the later one would run, and record, first.
  sigemptyset(&action.sa_mask);
  for (int stop : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&action.sa_mask, stop);
  sigaction(signo, &action, nullptr);
}
}  // namespace

void install_interrupt_handlers() {
  // SA_RESETHAND restores the default action after the first: a second SIGINT or
  // SIGTERM ends the process.
  install(SIGINT, on_stop_signal, SA_RESETHAND | SA_RESTART);
  install(SIGTERM, on_stop_signal, SA_RESETHAND | SA_RESTART);
  install(SIGHUP, on_stop_signal, SA_RESTART);
  install(SIGPIPE, on_broken_pipe, SA_RESTART);
}

int interrupt_signal() { return g_signal.load(); }

std::string interrupt_name() {
  switch (g_signal.load()) {
    case 0: return "";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(g_signal.load());
  }
}

bool sleep_unless_interrupted(std::chrono::milliseconds duration) {
  auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
    if (interrupt_signal()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(std::chrono::milliseconds(100),
        std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now())));
  }
  return !interrupt_signal();
}

}  // namespace aorta
