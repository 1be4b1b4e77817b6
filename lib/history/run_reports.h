// The run folders under a root, as `aorta_suite history` reads them: each folder's
// aorta_benchmark_report.json (never its traces), what history needs of it, and each
// report that cannot be read, named with why. Only the JSON report is read.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace aorta::history {

inline constexpr const char* kReportName = "aorta_benchmark_report.json";

// A node or a rank a run named: in the diagnosis outliers, a kernel-log finding, a
// failed gate's subject. A rank is named as the diagnosis names it ("node2 rank 3 (GPU 3)").
struct Named {
  std::string subject;  // "node2", "node2 rank 3 (GPU 3)" or "node3 GPU 3"
  std::string kind;     // node | gpu | rank
  std::string source;   // diagnosis | kernel log | gate <key>
};

struct RunReport {
  std::string run;               // the run folder, relative to the root ("ebb87...", "nightly/1234")
  std::filesystem::path report;  // its aorta_benchmark_report.json
  // When the report was written (seconds since the epoch, its mtime; written once, at
  // the end of the run), and when the run started, from its `started_at` (UTC; reports
  // of builds before it have none). Runs are ordered by when they started, else by
  // when their report was written.
  double written = 0;
  std::optional<double> started;
  double when() const { return started.value_or(written); }
  std::string group;  // the suite and the configuration the report records (group_of)
  bool passed = false;  // status completed and validation passed
  std::map<std::string, double> performance;  // the headline metrics it has as numbers
  std::vector<double> step_times_ms;          // every rank's step times, for compare's U test
  std::vector<Named> named;                   // each subject once per source
};

struct Unreadable {
  std::filesystem::path report;
  std::string why;
};

struct RunReports {
  std::vector<RunReport> runs;  // oldest first (by `when()`, then by run folder)
  std::vector<Unreadable> unreadable;
};

// A report's group: its suite (aorta_single runs on one node) and what it records of
// the configuration: "aorta_single, 1 node x 2 GPUs, nccl_channels 112, rccl_branch develop".
// The Run Deck can call it on its own run's report to find its history.
std::string group_of(std::string_view report_json);

// One report's text; source names it in errors (damaged JSON, not a report).
Result<RunReport> parse_run_report(std::string_view text, const std::string& source);

// The reports at ROOT/*/aorta_benchmark_report.json and ROOT/*/*/aorta_benchmark_report.json
// (an output_dir of run folders, or a folder of such). An error names ROOT when it
// cannot be listed or holds no readable report.
Result<RunReports> read_run_reports(const std::filesystem::path& root);

}  // namespace aorta::history
