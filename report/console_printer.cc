#include "report/console_printer.h"

#include <cstdio>

namespace aorta::report {

void ConsolePrinter::OnTestPartResult(const ::testing::TestPartResult& result) {
  if (result.type() == ::testing::TestPartResult::kSuccess) return;
  if (held_ && fold_.reveal()) inner_->OnTestStart(*held_);
  std::printf("%s\n%s\n", result.skipped() ? "Skipped" : "Failure", result.message());
  std::fflush(stdout);
}

void ConsolePrinter::OnTestStart(const ::testing::TestInfo& t) {
  const auto start = fold_.start(t.test_suite_name(), t.name());
  if (start.family_end) std::printf("%s\n", start.family_end->c_str());
  held_ = start.show ? nullptr : &t;
  if (start.show) inner_->OnTestStart(t);
}

void ConsolePrinter::OnTestEnd(const ::testing::TestInfo& t) {
  const bool passed = t.result()->Passed();
  if (!passed && held_ && fold_.reveal()) inner_->OnTestStart(t);
  if (fold_.end(passed)) inner_->OnTestEnd(t);
  held_ = nullptr;
}

void ConsolePrinter::end_family() {
  if (auto line = fold_.finish()) std::printf("%s\n", line->c_str());
  std::fflush(stdout);
}

void install_console_printer(::testing::TestEventListeners& listeners, std::vector<std::string> node_test_prefixes) {
  ::testing::TestEventListener* gtest_printer = listeners.Release(listeners.default_result_printer());
  if (!gtest_printer) return;
  if (GTEST_FLAG_GET(brief)) node_test_prefixes.clear();  // gtest's brief printer shows no passed test anyway
  listeners.Append(new ConsolePrinter(std::unique_ptr<::testing::TestEventListener>(gtest_printer),
                                      std::move(node_test_prefixes)));
}

}  // namespace aorta::report
