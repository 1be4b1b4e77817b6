// Two pieces of work at once when a second thread is allowed: the serial steps of
// reading one large trace (sorting, merging, the timeline) split in two halves.
#pragma once

#include <exception>
#include <system_error>
#include <thread>

namespace aorta {

// Runs `first` here and `second` on a thread of its own when `threads` allows (else
// after `first`), and returns when both are done; an exception in either is thrown
// here after both ended, never on the other thread (std::terminate).
template <class First, class Second>
void run_both(First&& first, Second&& second, unsigned threads) {
  std::exception_ptr failed;
  std::thread helper;
  if (threads > 1) {
    try {
      helper = std::thread([&]() noexcept {
        try {
          second();
        } catch (...) {
          failed = std::current_exception();
        }
      });
    } catch (const std::system_error&) {
    }
  }
  try {
    first();
  } catch (...) {
    if (helper.joinable()) helper.join();
    throw;
  }
  if (helper.joinable()) {
    helper.join();
    if (failed) std::rethrow_exception(failed);
  } else {
    second();
  }
}

}  // namespace aorta
