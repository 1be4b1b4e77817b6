#include "report/aorta_listener.h"

#include <algorithm>
#include <iostream>

#include "common/interrupt.h"
#include "common/utf8.h"
#include "stages/stage.h"
#include "stages/stage_guard.h"

namespace aorta::report {
namespace fs = std::filesystem;

Result<std::unique_ptr<AortaListener>> AortaListener::create(ReportContext context, RunRecord& record,
                                                             const std::vector<std::string>& outputs) {
  auto made = create_outputs(outputs);
  if (!made) return made.error();
  return std::unique_ptr<AortaListener>(new AortaListener(std::move(context), record, std::move(*made)));
}

AortaListener::AortaListener(ReportContext context, RunRecord& record, std::vector<std::unique_ptr<Output>> outputs)
    : context_(std::move(context)), outputs_(std::move(outputs)), record_(record), files_(context_.report_dir) {}

void AortaListener::OnTestProgramStart(const ::testing::UnitTest&) { stamp_record(record_); }

namespace {

// gtest's failure (or skip) texts of a test, for a record that lacks its own.
std::vector<std::string> part_messages(const ::testing::TestResult& result, bool failed) {
  std::vector<std::string> messages;
  for (int i = 0; i < result.total_part_count(); ++i) {
    const auto& part = result.GetTestPartResult(i);
    if (failed ? part.failed() : part.skipped()) messages.push_back(part.message());
  }
  return messages;
}

}  // namespace

void AortaListener::OnTestEnd(const ::testing::TestInfo& info) {
  try {
    const ::testing::TestResult& result = *info.result();
    // gtest's verdict is the one every report shows, so they all agree with its console.
    const job::Outcome verdict =
        result.Failed() ? job::Outcome::kFailed : result.Skipped() ? job::Outcome::kSkipped : job::Outcome::kPassed;
    StageResult* written = record_.find_test(info.name());
    // One clock for every test, gtest's, as its console shows it.
    if (written) written->seconds = result.elapsed_time() / 1000.0;
    if (written && written->outcome == verdict) return;
    // A test the fixture never wrote (a broken fixture, say), or one that gtest saw
    // fail after the fixture wrote it: recorded with gtest's own texts, cleaned as a
    // stage's are.
    StageResult from_gtest;
    if (!written) {
      from_gtest.name = from_gtest.stage = info.name();
      from_gtest.seconds = result.elapsed_time() / 1000.0;
    }
    StageResult& stage = written ? *written : from_gtest;
    stage.outcome = verdict;
    StageResult gtest_texts;
    gtest_texts.failures = part_messages(result, true);
    for (const auto& m : part_messages(result, false)) gtest_texts.skip_reason = m;
    stages::clean_texts(gtest_texts);
    if (verdict == job::Outcome::kFailed && stage.failures.empty()) stage.failures = gtest_texts.failures;
    if (verdict == job::Outcome::kSkipped && stage.skip_reason.empty()) stage.skip_reason = gtest_texts.skip_reason;
    if (!written) record_.stages.push_back(std::move(from_gtest));
  } catch (const std::exception& e) {
    // gtest does not catch what a listener throws: it would end the process.
    files_.fail(std::string("could not record ") + info.name() + " for the reports: " + e.what());
  }
}

void AortaListener::OnTestProgramEnd(const ::testing::UnitTest& unit_test) {
  record_.seconds = unit_test.elapsed_time() / 1000.0;
  try {
    // Failures outside any test (the fixture's fallback teardown) are the suite's:
    // one more testcase, so the reports agree with the exit status.
    for (int i = 0; i < unit_test.total_test_suite_count(); ++i) {
      const ::testing::TestResult& adhoc = unit_test.GetTestSuite(i)->ad_hoc_test_result();
      StageResult teardown;
      teardown.name = teardown.stage = "fixture_teardown";
      teardown.outcome = job::Outcome::kFailed;
      for (int p = 0; p < adhoc.total_part_count(); ++p)
        if (adhoc.GetTestPartResult(p).failed()) teardown.failures.push_back(adhoc.GetTestPartResult(p).message());
      if (teardown.failures.empty()) continue;
      stages::clean_texts(teardown);
      record_.stages.push_back(std::move(teardown));
    }
  } catch (const std::exception& e) {
    files_.fail(std::string("could not record the suite's own failures: ") + e.what());
  }
  try {
    record_late_interruption();
    write_reports();
    // A signal while they were written: they are written again, naming it.
    if (record_late_interruption()) write_reports();
  } catch (const std::exception& e) {
    files_.fail(std::string("could not write the reports: ") + e.what());
  }
}

bool AortaListener::record_late_interruption() {
  if (!interrupt_signal() || interruption_recorded_) return false;
  interruption_recorded_ = true;
  record_.interrupted = interrupt_name();
  const std::string named = "interrupted by " + interrupt_name();
  for (const StageResult* test : record_.tests())
    for (const auto& f : test->failures)
      if (f.find(named) != std::string::npos) return false;
  int not_started = 0;  // stages skipped because the signal came between stages
  for (const StageResult* test : record_.tests())
    if (test->skip_reason == stages::kNotStartedByInterrupt + interrupt_name()) ++not_started;
  StageResult late;
  late.name = late.stage = "run_interrupted";
  late.outcome = job::Outcome::kFailed;
  late.failures.push_back(not_started ? "the run was " + named + " between its stages: " + std::to_string(not_started) +
                                            " not started; its exit status is 1"
                                      : "the run was " + named + " after its stages had run (while its reports were "
                                            "written); its exit status is 1");
  record_.stages.push_back(std::move(late));
  return true;
}

void AortaListener::write_reports() { write_outputs(record_, context_, outputs_, files_); }

}  // namespace aorta::report
