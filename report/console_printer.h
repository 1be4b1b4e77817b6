// gtest's console printer, less the build machine's source paths. gtest writes a
// failure or a skip as "<file>:<line>: Failure" and its message; the file is a path
// on the machine that built the binary, meaningless to whoever reads the console.
// This listener passes every event on to gtest's own printer but those, which it
// writes as gtest does without the location; and node sub-tests past the first few of
// a stage, which it folds (report/node_test_fold.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/node_test_fold.h"

namespace aorta::report {

class ConsolePrinter : public ::testing::TestEventListener {
 public:
  // `node_test_prefixes`: the names of the node sub-tests it folds ("test_collect_traces/").
  explicit ConsolePrinter(std::unique_ptr<::testing::TestEventListener> gtest_printer,
                          std::vector<std::string> node_test_prefixes = {})
      : inner_(std::move(gtest_printer)), fold_(std::move(node_test_prefixes)) {}

  void OnTestPartResult(const ::testing::TestPartResult& result) override;

  void OnTestProgramStart(const ::testing::UnitTest& u) override { inner_->OnTestProgramStart(u); }
  void OnTestIterationStart(const ::testing::UnitTest& u, int i) override { inner_->OnTestIterationStart(u, i); }
  void OnEnvironmentsSetUpStart(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsSetUpStart(u); }
  void OnEnvironmentsSetUpEnd(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsSetUpEnd(u); }
  // gtest 1.12's printer implements the suite events under their legacy names or
  // the new ones, as built: both are passed on.
  void OnTestSuiteStart(const ::testing::TestSuite& s) override { inner_->OnTestSuiteStart(s); }
  void OnTestCaseStart(const ::testing::TestCase& s) override { inner_->OnTestCaseStart(s); }
  void OnTestStart(const ::testing::TestInfo& t) override;
  void OnTestEnd(const ::testing::TestInfo& t) override;
  void OnTestSuiteEnd(const ::testing::TestSuite& s) override {
    end_family();
    inner_->OnTestSuiteEnd(s);
  }
  void OnTestCaseEnd(const ::testing::TestCase& s) override {
    end_family();
    inner_->OnTestCaseEnd(s);
  }
  void OnEnvironmentsTearDownStart(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsTearDownStart(u); }
  void OnEnvironmentsTearDownEnd(const ::testing::UnitTest& u) override { inner_->OnEnvironmentsTearDownEnd(u); }
  void OnTestIterationEnd(const ::testing::UnitTest& u, int i) override {
    end_family();
    inner_->OnTestIterationEnd(u, i);
  }
  void OnTestProgramEnd(const ::testing::UnitTest& u) override { inner_->OnTestProgramEnd(u); }

 private:
  void end_family();
  std::unique_ptr<::testing::TestEventListener> inner_;
  NodeTestFold fold_;
  const ::testing::TestInfo* held_ = nullptr;  // the running test, its RUN line withheld
};

// Puts a ConsolePrinter around gtest's default printer (none when it was released).
void install_console_printer(::testing::TestEventListeners& listeners, std::vector<std::string> node_test_prefixes = {});

}  // namespace aorta::report
