// Whether a process the test started is still running, as the tests that end
// processes ask it.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace aorta::testing {

// Alive and not a zombie (a reparented child may wait long for a reaper).
inline bool process_alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  auto close = line.rfind(')');
  return close == std::string::npos || line.size() < close + 3 || line[close + 2] != 'Z';
}

inline bool gone_within(pid_t pid, std::chrono::milliseconds wait) {
  const auto until = std::chrono::steady_clock::now() + wait;
  while (process_alive(pid) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return !process_alive(pid);
}

}  // namespace aorta::testing
