#include "report/console_printer.h"

#include <cstdio>

namespace aorta::report {

void ConsolePrinter::OnTestPartResult(const ::testing::TestPartResult& result) {
  if (result.type() == ::testing::TestPartResult::kSuccess) return;
  std::printf("%s\n%s\n", result.skipped() ? "Skipped" : "Failure", result.message());
  std::fflush(stdout);
}

void install_console_printer(::testing::TestEventListeners& listeners) {
  ::testing::TestEventListener* gtest_printer = listeners.Release(listeners.default_result_printer());
  if (!gtest_printer) return;
  listeners.Append(new ConsolePrinter(std::unique_ptr<::testing::TestEventListener>(gtest_printer)));
}

}  // namespace aorta::report
