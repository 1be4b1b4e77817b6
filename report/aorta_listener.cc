#include "report/aorta_listener.h"

#include <iostream>

#include "common/interrupt.h"
#include "common/utf8.h"
#include "report/redact.h"

namespace aorta::report {
namespace fs = std::filesystem;

Result<std::unique_ptr<AortaListener>> AortaListener::create(ReportContext context, std::string suite, std::string run_id,
                                                             StageDetails details, const std::vector<std::string>& outputs) {
  auto made = create_outputs(outputs);
  if (!made) return made.error();
  return std::unique_ptr<AortaListener>(new AortaListener(std::move(context), std::move(suite), std::move(run_id),
                                                          std::move(details), std::move(*made)));
}

AortaListener::AortaListener(ReportContext context, std::string suite, std::string run_id, StageDetails details,
                             std::vector<std::unique_ptr<Output>> outputs)
    : context_(std::move(context)), details_(std::move(details)), outputs_(std::move(outputs)), files_(context_.report_dir) {
  record_.suite = std::move(suite);
  record_.run_id = std::move(run_id);
}

void AortaListener::OnTestProgramStart(const ::testing::UnitTest&) { stamp_record(record_); }

void AortaListener::OnTestEnd(const ::testing::TestInfo& info) {
  try {
    const ::testing::TestResult& result = *info.result();
    StageResult stage;
    if (details_)
      if (auto known = details_(info.name())) stage = *known;
    stage.name = info.name();
    if (stage.stage.empty()) stage.stage = stage.name;
    stage.seconds = result.elapsed_time() / 1000.0;
    // gtest's verdict is the one every report shows, so they all agree with its console.
    stage.outcome = result.Failed() ? job::Outcome::kFailed : result.Skipped() ? job::Outcome::kSkipped : job::Outcome::kPassed;
    // Failures gtest saw but the stage did not report itself (a broken fixture, say).
    if (stage.outcome == job::Outcome::kFailed && stage.failures.empty())
      for (int i = 0; i < result.total_part_count(); ++i)
        if (result.GetTestPartResult(i).failed()) stage.failures.push_back(result.GetTestPartResult(i).message());
    if (stage.outcome == job::Outcome::kSkipped && stage.skip_reason.empty())
      for (int i = 0; i < result.total_part_count(); ++i)
        if (result.GetTestPartResult(i).skipped()) stage.skip_reason = result.GetTestPartResult(i).message();
    redact_stage(stage);  // gtest's own failure texts too, not only what the stage reported
    record_.stages.push_back(valid_text(std::move(stage)));
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
      redact_stage(teardown);
      record_.stages.push_back(valid_text(std::move(teardown)));
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
  const std::string named = "interrupted by " + interrupt_name();
  for (const auto& stage : record_.stages)
    for (const auto& f : stage.failures)
      if (f.find(named) != std::string::npos) return false;
  StageResult late;
  late.name = late.stage = "run_interrupted";
  late.outcome = job::Outcome::kFailed;
  late.failures.push_back("the run was " + named + " after its stages had run (while its reports were written); "
                          "its exit status is 1");
  record_.stages.push_back(std::move(late));
  return true;
}

void AortaListener::write_reports() { write_outputs(record_, context_, outputs_, files_); }

}  // namespace aorta::report
