// Everything a report output reads besides the run's record, computed once, as values,
// before the first output is written: the caller's setup (where each file goes, what
// the Run Deck shows), what the run made (its metrics, downloaded files, JSON report)
// and every path and link between the files. Outputs are functions of the frozen
// record and this context (report/outputs.h); none leaves anything for another.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/variant.h"
#include "metrics/compare.h"
#include "metrics/run_metrics.h"
#include "report/junit_writer.h"
#include "report/run_record.h"
#include "stages/stage.h"

namespace aorta::report {

// What the Run Deck shows beyond the record and the run's products.
struct DeckSetup {
  std::optional<config::Variant> variant;  // none: no deck can be made
  size_t nodes = 0;
  int gpus_per_node = 0;
  int nccl_channels = 0;
  std::string cluster_file;
  std::string config_file;
  std::optional<metrics::RunFigures> baseline;  // --baseline: the deck compares the run with it
  std::vector<const stages::StageSpec*> lifecycle;  // the suites' stages in run order (DeckInput::lifecycle)
  std::filesystem::path history_root;  // --history ROOT: the deck's recent-runs strip (DeckInput::history_root)
};

// What the caller knows before the run starts.
struct ReportSetup {
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
  DeckSetup deck;
};

// What the run made, copied when its reports are written.
struct RunProducts {
  std::optional<metrics::RunMetrics> result;  // the parsed metrics (none: not parsed)
  // The downloaded files (RunState::artifacts): "<phase>_log_node_<i>" logs are copied
  // beside the HTML report.
  std::map<std::string, std::filesystem::path> artifacts;
  std::optional<std::filesystem::path> json_report;  // aorta_benchmark_report.json, once written
};

// A node's phase log as the HTML report keeps it: read from `source`, written and
// linked as `link` (relative to the HTML report's folder).
struct NodeLogCopy {
  std::filesystem::path source;
  std::string link;
};

struct ReportContext {
  ReportSetup setup;
  RunProducts products;
  // Each file's path, resolved once (an absolute path given stays itself).
  std::filesystem::path html_file;   // <report_dir>/<suite>.html unless --html named it
  std::filesystem::path log_file;    // text_log_path
  std::filesystem::path junit_file;  // <report_dir>/<suite>.xml unless given
  std::filesystem::path deck_dir;    // <suite>_html/ beside the HTML report: the deck's folder
  // Links, each relative to the page that holds it.
  std::string deck_link;          // HTML report -> Run Deck page; empty when no deck is written
  std::string deck_to_html;       // Run Deck -> HTML report
  std::string deck_to_log;        // Run Deck -> text log
  std::string json_report_link;   // HTML report -> aorta_benchmark_report.json; empty: none
  std::vector<NodeLogCopy> node_logs;

  const metrics::RunMetrics* result() const { return products.result ? &*products.result : nullptr; }
};

// The context of the outputs named (report/outputs.h) over `run`: the Run Deck is linked
// when "deck" is among them and the setup can make one.
ReportContext report_context(const RunRecord& run, ReportSetup setup, RunProducts products,
                             const std::vector<std::string>& outputs);

// The one rule for the text log's path, which the live log written during the run
// shares: `chosen` (--log-file) when given, else <report_dir>/<suite>.log.
std::filesystem::path text_log_path(const std::filesystem::path& report_dir, const std::string& suite,
                                    const std::filesystem::path& chosen);

}  // namespace aorta::report
