// Parses every rank trace under a directory (in parallel) into per-rank metrics,
// keeping going past bad files: one corrupt rank must not hide the others.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "metrics/rank_metrics.h"
#include "trace/timeline.h"

namespace aorta::metrics {

struct AnalyzeOptions {
  trace::KernelSelection selection = trace::KernelSelection::kLinkedOnly;
  int jobs = 0;  // traces read at once; 0: one per core (never more than there are traces)
  // Threads for one file: with more jobs than files, analyze_traces gives each file
  // jobs / files, and a large plain file is split across them (trace_reader.h).
  unsigned file_threads = 1;
  // Each file's memory budget; unset: trace_limits_from_environment() (the defaults,
  // or AORTA_TRACE_MEMORY_LIMIT).
  std::optional<trace::TraceLimits> limits;
  // Told once per file as it is done (from the reading thread, one call at a time):
  // "[parse] 3/8 traces: rank2.json 812.4 MB in 1.1 s (738.5 MB/s); elapsed 2.3 s".
  std::function<void(const std::string&)> progress;
};

enum class ParseStatus { kSuccess, kPartial, kFailed };
const char* status_name(ParseStatus status);

struct TraceSet {
  ParseStatus status = ParseStatus::kFailed;
  std::vector<RankMetrics> ranks;     // in file order; aggregate() sorts by rank
  // Each names its file or folder; all text here, and each rank's source, is valid
  // UTF-8 (file names and trace bytes are not), so reports can always be written.
  std::vector<std::string> warnings;
  std::vector<std::string> errors;
  size_t files_found = 0;
  size_t files_parsed = 0;
  uint64_t bytes = 0;                 // uncompressed bytes read
};

// One file: the GPU timeline when it has GPU events, else the basic scan (with a
// warning saying so). Metrics that overflow (a dur sum past the largest double)
// are an error, never an inf or NaN in a report.
Result<RankMetrics> analyze_trace_file(const std::filesystem::path& file, const AnalyzeOptions& options,
                                       std::vector<std::string>& warnings, uint64_t* bytes_read = nullptr);

TraceSet analyze_traces(const std::filesystem::path& dir, const AnalyzeOptions& options);

// Node-side analysis: each node reads its own ranks' traces with analyze_files and
// sends the set (result_json/rank_results_json.h); the head merges them, in the order
// head-side analysis would read the files, into the set analyze_traces gives.
// The given files' figures, warnings and errors, status left to the merge (a part
// that parsed no rank is no failure of the run's).
TraceSet analyze_files(const std::vector<std::filesystem::path>& files, AnalyzeOptions options);
// The parts' ranks in order (a rank number kept once, as analyze_traces keeps it),
// texts and counts, and the status analyze_traces gives.
TraceSet merge_trace_sets(std::vector<TraceSet> parts);

}  // namespace aorta::metrics
