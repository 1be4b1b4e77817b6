#include "common/interrupt.h"

#include <signal.h>

#include <atomic>
#include <thread>

namespace aorta {
namespace {
std::atomic<int> g_signal{0};

extern "C" void on_stop_signal(int signo) {
  g_signal.store(signo);
  // SA_RESETHAND restored the default action: a second signal ends the process.
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interrupt_signal() { return g_signal.load(); }

std::string interrupt_name() {
  switch (g_signal.load()) {
    case 0: return "";
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
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
