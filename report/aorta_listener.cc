#include "report/aorta_listener.h"

#include <algorithm>
#include <iostream>

#include "common/interrupt.h"
#include "common/utf8.h"
#include "report/progress_reports.h"
#include "stages/stage_guard.h"

namespace aorta::report {

Result<std::unique_ptr<AortaListener>> AortaListener::create(ReportSetup setup, RunRecord& record,
                                                             const std::vector<std::string>& outputs,
                                                             std::function<RunProducts()> products) {
  auto made = create_outputs(outputs);
  if (!made) return made.error();
  return std::unique_ptr<AortaListener>(
      new AortaListener(std::move(setup), record, outputs, std::move(*made), std::move(products)));
}

AortaListener::AortaListener(ReportSetup setup, RunRecord& record, std::vector<std::string> names,
                             std::vector<Output> outputs, std::function<RunProducts()> products)
    : setup_(std::move(setup)),
      names_(std::move(names)),
      outputs_(std::move(outputs)),
      products_(std::move(products)),
      record_(record),
      files_(setup_.report_dir),
      progress_names_(progress_outputs(names_)),
      progress_outputs_(create_outputs(progress_names_).value()),
      progress_files_(setup_.report_dir, false) {}

void AortaListener::OnTestProgramStart(const ::testing::UnitTest&) { stamp_record(record_); }

void AortaListener::OnTestStart(const ::testing::TestInfo&) { interrupt_.test_started(interrupt_signal() != 0); }

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
    if (record_verdict(info)) write_progress(info.name());
  } catch (const std::exception& e) {
    // gtest does not catch what a listener throws: it would end the process.
    files_.fail(std::string("could not record ") + info.name() + " for the reports: " + e.what());
  }
}

bool AortaListener::record_verdict(const ::testing::TestInfo& info) {
  const ::testing::TestResult& result = *info.result();
  // gtest's verdict is the one every report shows, so they all agree with its console.
  const job::Outcome verdict =
      result.Failed() ? job::Outcome::kFailed : result.Skipped() ? job::Outcome::kSkipped : job::Outcome::kPassed;
  StageResult* written = record_.find_test(info.name());
  // A test the fixture never wrote is recorded as a stage below.
  const bool is_stage = !written || !written->subtest;
  if (is_stage)
    interrupt_.stage_ended(interrupt_signal() != 0, verdict, written && written->kept_from_starting);
  // One clock for every test, gtest's, as its console shows it.
  if (written) written->seconds = result.elapsed_time() / 1000.0;
  if (written && written->outcome == verdict) return is_stage;
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
  return is_stage;
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
  if (!interrupt_signal()) return false;
  record_.interrupted = interrupt_name();
  auto late = interrupt_.late_record(interrupt_name());
  if (!late) return false;
  record_.stages.push_back(std::move(*late));
  return true;
}

void AortaListener::write_reports() {
  // The products are read once, now, and every output sees the same frozen record.
  const ReportContext context = report_context(record_, setup_, products_ ? products_() : RunProducts{}, names_);
  write_outputs(record_, context, outputs_, files_);
  remove_progress_leftovers(progress_files_, files_);
}

void AortaListener::write_progress(const std::string& finished) {
  // A signal's reports are the final ones, written when the program ends.
  if (progress_names_.empty() || progress_files_.failed() || interrupt_signal()) return;
  RunRecord so_far = record_;
  so_far.stages.push_back(incomplete_record(finished));
  RunProducts products = products_ ? products_() : RunProducts{};
  products.artifacts.clear();  // node logs are copied once, at the end
  write_outputs(so_far, report_context(so_far, setup_, std::move(products), progress_names_), progress_outputs_,
                progress_files_);
  if (progress_files_.failed()) std::cerr << "aorta_suite: progress reports stopped; the final ones follow at the end\n";
}

}  // namespace aorta::report
