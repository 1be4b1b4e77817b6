#include "common/child_exit.h"

#include <thread>

namespace aorta {

bool wait_for_exit(boost::process::child& child, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    std::error_code ec;
    if (!child.valid() || !child.running(ec) || ec) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace aorta
