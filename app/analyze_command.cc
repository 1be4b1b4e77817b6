#include "app/analyze_command.h"

#include <unistd.h>

#include <iostream>

#include "app/exit_codes.h"
#include "common/atomic_file.h"
#include "common/output_path.h"
#include "common/utf8.h"
#include "metrics/trace_set.h"
#include "result_json/diagnosis_json.h"
#include "result_json/metrics_json.h"
#include "metrics/telemetry_findings.h"
#include "result_json/telemetry_json.h"
#include "report/summary_table.h"
#include "telemetry/summary.h"

namespace aorta::app {

// analyze's exit status: 0 every trace parsed; 3 partial (the files and folders
// in parse.errors were not analyzed, the other ranks' numbers are reported); 1
// nothing parsed, or the output could not be written; 2 usage (also a bad
// AORTA_TRACE_MEMORY_LIMIT). Scripts can tell a partial parse without the JSON.
int analyze(const cli::Options& o) {
  constexpr int kExitPartial = 3;
  // The boundary for everything below: running out of memory outside a trace's own
  // budget, or any other exception, is a message and exit 1, never an abort.
  try {
    auto limits = trace::trace_limits_from_environment();
    if (!limits) return usage_error(printable(limits.error().describe()), cli::Command::kAnalyze);
    metrics::AnalyzeOptions options;
    options.jobs = o.jobs;
    options.limits = *limits;
    options.selection = o.include_unlinked ? trace::KernelSelection::kIncludeUnlinked : trace::KernelSelection::kLinkedOnly;
    // Progress for a person watching (stderr a terminal); scripts get only the results.
    // Everything shown from here on may carry a file's name or bytes: printable.
    if (::isatty(STDERR_FILENO))
      options.progress = [](const std::string& line) { std::cerr << printable(line) << std::endl; };
    metrics::TraceSet set = metrics::analyze_traces(o.trace_dir, options);
    // --output never replaces a trace it read (analyze --output <trace>).
    register_input(o.trace_dir);
    for (const auto& r : set.ranks) register_input(r.source);
    for (const auto& w : set.warnings) std::cerr << "warning: " << printable(w) << "\n";
    for (const auto& e : set.errors) std::cerr << "error: " << printable(e) << "\n";
    nlohmann::ordered_json doc;
    doc["trace_dir"] = valid_utf8(o.trace_dir);
    doc["kernel_selection"] = o.include_unlinked ? "include_unlinked" : "linked_only";
    doc["parse"] = result_json::parse_json(set);
    std::ostream& table = o.output.empty() ? std::cerr : std::cout;
    const auto gpu_telemetry = telemetry::read_telemetry_beside(o.trace_dir);
    if (gpu_telemetry)
      for (const auto& node : gpu_telemetry->nodes)
        for (const auto& e : node.errors) std::cerr << "warning: GPU telemetry: " << printable(e) << "\n";
    if (!set.ranks.empty()) {
      auto run = metrics::aggregate(set.ranks);
      if (!run) {
        std::cerr << "error: " << printable(run.error().message) << "\n";
        return kExitFailed;
      }
      run->telemetry = gpu_telemetry;
      metrics::join_telemetry(*run);  // each finding's GPU evidence; GPUs out of line named
      doc["performance"] = result_json::performance_json(*run);
      doc["per_rank_summary"] = result_json::per_rank_json(*run);
      doc["diagnosis"] = result_json::diagnosis_json(*run);
      report::write_summary_table(*run, table, o.every_rank);
      table << "Diagnosis\n";
      for (const std::string& line : result_json::diagnosis_lines(*run)) table << "  " << printable(line) << "\n";
    }
    if (gpu_telemetry) doc["telemetry"] = result_json::telemetry_json(*gpu_telemetry);
    // Every string in doc is valid UTF-8 already (TraceSet's contract); json_text's
    // replacement is the second guard, so a byte that slips through never costs the output.
    const std::string text = result_json::json_text(doc);
    if (o.output.empty()) {
      std::cout << text;
    } else {
      // Whole or not at all: an earlier output survives a failed write.
      if (Status written = write_file_atomically(o.output, text); !written) {
        std::cerr << "error: " << printable(written.error().describe()) << "\n";
        return kExitFailed;
      }
      std::cout << "wrote " << printable(o.output) << " (" << metrics::status_name(set.status) << ")\n";
    }
    switch (set.status) {
      case metrics::ParseStatus::kSuccess: return kExitOk;
      case metrics::ParseStatus::kPartial: return kExitPartial;
      case metrics::ParseStatus::kFailed: return kExitFailed;
    }
    return kExitFailed;
  } catch (const std::bad_alloc&) {
    std::cerr << "aorta_suite analyze: out of memory (lower " << trace::kMemoryLimitVariable << " or --jobs)\n";
  } catch (const std::exception& e) {
    std::cerr << "aorta_suite analyze: " << printable(e.what()) << "\n";
  }
  return kExitFailed;
}

}  // namespace aorta::app
