// The one report pipeline: every file of a run's report (JUnit XML, text log, Run
// Deck, HTML report with its Full Log pages and input copies, zip bundle) is made by
// a named output that the listener drives, in the order of the list of names given
// at construction. Each output is a function of the frozen record and the one
// ReportContext computed before the first is written (report/report_context.h).
// (aorta_benchmark_report.json stays the test_generate_report stage's product, as in
// the original.)
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "report/report_context.h"
#include "report/run_record.h"

namespace aorta::report {

// The write-once files of a run's reports: each written whole or not at all
// (write_file_atomically), so a full disk never leaves an empty report that looks
// written nor replaces an earlier good one. Each file that could not be written is
// named on stderr with the reason, and failed() says so.
class ReportFiles final {
 public:
  // announce false: no "wrote" line for any file (the progress reports rewritten after each stage).
  explicit ReportFiles(std::filesystem::path report_dir, bool announce = true)
      : report_dir_(std::move(report_dir)), announce_(announce) {}
  // path relative to the report folder (or absolute); false when it could not be written.
  bool file(const std::filesystem::path& path, const std::string& content, bool announce = false);
  // Prints "aorta_suite: <what>" to stderr; failed() is then true.
  void fail(const std::string& what);
  const std::filesystem::path& report_dir() const { return report_dir_; }
  // Every file written so far, as written (what the bundle packs).
  const std::vector<std::filesystem::path>& written() const { return written_; }
  bool failed() const { return failed_; }

 private:
  std::filesystem::path report_dir_;
  bool announce_;
  std::vector<std::filesystem::path> written_;
  bool failed_ = false;
};

// One named output: what it writes of the record, given the context.
struct Output {
  const char* name;
  void (*write)(const RunRecord& run, const ReportContext& context, ReportFiles& files);
};

// Sets the record's start time (ISO 8601, local) and this machine's name.
void stamp_record(RunRecord& run);

// Runs the outputs over a finished record into files; false when an output failed
// (each named on stderr). An output that throws costs only its own files.
bool write_outputs(const RunRecord& run, const ReportContext& context, const std::vector<Output>& outputs,
                   ReportFiles& files);

// The reports of a run that could not start (a configuration or node-count error):
// one failed testcase, test_configuration, whose failure names every problem, so a
// dashboard shows why instead of "no test report found".
bool write_problem_reports(const std::string& suite, const std::string& run_id,
                           const std::vector<std::string>& problems, const ReportSetup& setup,
                           const std::vector<std::string>& outputs);

// "summary" (standard output), "junit", "ci_metrics" (metrics.txt, aorta_metrics.csv), "log", "deck", "html", "bundle", the order every run writes them in:
// the bundle last, it zips what the others wrote.
const std::vector<std::string>& default_outputs();

// The outputs of these names, in this order; an unknown name is an error naming it
// and the known ones.
Result<std::vector<Output>> create_outputs(const std::vector<std::string>& names);

}  // namespace aorta::report
