// The one report pipeline: every file of a run's report (JUnit XML, text log, Run
// Deck, HTML report with its Full Log pages and input copies, zip bundle) is made by
// a named Output that the listener drives, in the order of the list of names given
// at construction. What an output needs beyond the RunRecord comes in one
// ReportContext that main fills once. (aorta_benchmark_report.json stays the
// test_generate_report stage's product, as in the original.)
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "config/variant.h"
#include "metrics/compare.h"
#include "metrics/run_metrics.h"
#include "report/junit_writer.h"
#include "report/run_deck.h"
#include "report/run_record.h"

namespace aorta::report {

struct ReportContext {
  std::filesystem::path report_dir;  // <output_dir>/<run-id>, or <workspace>/cvs_runs/<run-id>
  // Where --html and --log-file put those two (empty: <report_dir>/<suite>.html|.log). The
  // HTML's <suite>_html/ folder and the zip go beside the HTML file, as CVS puts them.
  std::filesystem::path html_file;
  std::filesystem::path log_file;
  std::filesystem::path junit_file;  // empty: <report_dir>/<suite>.xml
  JunitOptions junit;
  std::vector<std::filesystem::path> extra_junit_paths;  // --gtest_output=xml:PATH, --junitxml PATH
  // Copied, redacted, into <suite>_html/ as "<prefix>_<name>": pairs of (prefix, path).
  std::vector<std::pair<std::string, std::filesystem::path>> input_files;
  // What the Run Deck shows beyond the record (variant null: no deck can be made); the
  // deck output fills in its run, result and links when it writes.
  DeckInput deck;
  // The run's parsed metrics, read when the reports are written (null or empty: none).
  const std::optional<metrics::RunMetrics>* result = nullptr;
  // The run's downloaded files (RunState::artifacts), read when the reports are
  // written: its "<phase>_log_node_<i>" logs are copied beside the HTML report.
  const std::map<std::string, std::filesystem::path>* artifacts = nullptr;
  // aorta_benchmark_report.json once test_generate_report wrote it (RunState::report_file).
  const std::optional<std::filesystem::path>* json_report = nullptr;
};

// Where outputs put their files: each is written whole or not at all, and one that
// cannot be is named on stderr and marks the run's reports as failed.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // path relative to the report folder (or absolute); false when it could not be written.
  virtual bool file(const std::filesystem::path& path, const std::string& content, bool announce = false) = 0;
  virtual void fail(const std::string& what) = 0;
  virtual const std::filesystem::path& report_dir() const = 0;
  // Every file written so far, as written (what the bundle packs).
  virtual const std::vector<std::filesystem::path>& written() const = 0;
};

// The write-once files of a run's reports: each written whole or not at all
// (write_file_atomically), so a full disk never leaves an empty report that looks
// written nor replaces an earlier good one. Each file that could not be written is
// named on stderr with the reason, and failed() says so.
class ReportFiles final : public OutputSink {
 public:
  explicit ReportFiles(std::filesystem::path report_dir) : report_dir_(std::move(report_dir)) {}
  bool file(const std::filesystem::path& path, const std::string& content, bool announce = false) override;
  // Prints "aorta_suite: <what>" to stderr; failed() is then true.
  void fail(const std::string& what) override;
  const std::filesystem::path& report_dir() const override { return report_dir_; }
  const std::vector<std::filesystem::path>& written() const override { return written_; }
  bool failed() const { return failed_; }

 private:
  std::filesystem::path report_dir_;
  std::vector<std::filesystem::path> written_;
  bool failed_ = false;
};

class Output {
 public:
  virtual ~Output() = default;
  // May set fields of run that later outputs read (the Run Deck sets deck_link).
  virtual void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const = 0;
};

// Where the HTML report and the text log of a run go (absolute paths stay themselves).
std::filesystem::path html_file(const RunRecord& run, const ReportContext& context);
std::filesystem::path log_file(const RunRecord& run, const ReportContext& context);
// The one rule for the text log's path, which the live log written during the run
// shares: `chosen` (--log-file) when given, else <report_dir>/<suite>.log.
std::filesystem::path text_log_path(const std::filesystem::path& report_dir, const std::string& suite,
                                    const std::filesystem::path& chosen);

// Sets the record's start time (ISO 8601, local) and this machine's name.
void stamp_record(RunRecord& run);

// Runs the named outputs over a finished record into files; false when a file could not be written
// (each named on stderr). An output that throws costs only its own files.
bool write_outputs(RunRecord& run, const ReportContext& context,
                   const std::vector<std::unique_ptr<Output>>& outputs, OutputSink& sink);

// The reports of a run that could not start (a configuration or node-count error):
// one failed testcase, test_configuration, whose failure names every problem, so a
// dashboard shows why instead of "no test report found".
bool write_problem_reports(const std::string& suite, const std::string& run_id,
                           const std::vector<std::string>& problems, const ReportContext& context,
                           const std::vector<std::string>& outputs);

// "summary" (standard output), "junit", "ci_metrics" (metrics.txt, aorta_metrics.csv), "log", "deck", "html", "bundle", the order every run writes them in:
// the deck before the HTML report, which links it; the bundle last, it zips theirs.
const std::vector<std::string>& default_outputs();

// The outputs of these names, in this order; an unknown name is an error naming it
// and the known ones.
Result<std::vector<std::unique_ptr<Output>>> create_outputs(const std::vector<std::string>& names);

}  // namespace aorta::report
