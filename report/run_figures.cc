#include "report/run_figures.h"

#include "common/regular_file.h"
#include "common/utf8.h"
#include "metrics/trace_set.h"

namespace aorta::report {
namespace fs = std::filesystem;
namespace {

constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{256} << 20;

// A report (or analyze) document's performance numbers and every rank's step times.
Result<metrics::RunFigures> figures_of(const ordered_json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("performance") || !doc["performance"].is_object())
    return Error{ErrorCode::kInvalidInput, source + ": no \"performance\" object: not a report or analyze JSON", source};
  metrics::RunFigures f;
  f.source = source;
  for (const auto& [key, value] : doc["performance"].items())
    if (value.is_number()) f.performance[key] = value.get<double>();
  if (doc.contains("per_rank_summary") && doc["per_rank_summary"].is_array())
    for (const auto& rank : doc["per_rank_summary"])
      if (rank.is_object() && rank.contains("steps") && rank["steps"].is_array())
        for (const auto& step : rank["steps"])
          if (step.is_object() && step.contains("step_time_ms") && step["step_time_ms"].is_number())
            f.step_times_ms.push_back(step["step_time_ms"].get<double>());
  return f;
}

}  // namespace

metrics::RunFigures run_figures(const metrics::RunMetrics& run, const std::string& source) {
  ordered_json doc;
  doc["performance"] = performance_json(run);
  doc["per_rank_summary"] = per_rank_json(run);
  return figures_of(doc, source).value();  // a document made here always has "performance"
}

// A JSON file, a run folder holding aorta_benchmark_report.json, or a trace folder.
Result<metrics::RunFigures> load_run_figures(const fs::path& path) {
  const std::string source = valid_utf8(path.string());
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) {
    file = path / "aorta_benchmark_report.json";
    if (!fs::exists(file, ec)) {
      metrics::TraceSet set = metrics::analyze_traces(path, {});
      if (set.ranks.empty())
        return Error{ErrorCode::kInvalidInput,
                     source + ": neither aorta_benchmark_report.json nor traces that parse (" +
                         (set.errors.empty() ? std::string("none found") : set.errors.front()) + ")",
                     source};
      auto run = metrics::aggregate(set.ranks);
      if (!run) return Error{ErrorCode::kInvalidInput, source + ": " + run.error().message, source};
      return run_figures(*run, source);
    }
  }
  // A report is kilobytes; a trace or a device given by mistake must not be read whole,
  // and a FIFO must not block the run.
  FileText read = read_regular_file(file, kMaxReportBytes, true);
  if (read.status == FileText::Status::kTooLarge)
    return Error{ErrorCode::kInvalidInput,
                 valid_utf8(file.string()) + ": " + std::to_string(read.size) + " bytes is too large for a report JSON",
                 source};
  if (read.status != FileText::Status::kRead)
    return Error{ErrorCode::kIo, valid_utf8(file.string()) + ": cannot be read (" + read.detail + ")", source};
  const std::string& text = read.text;
  ordered_json doc = ordered_json::parse(text, nullptr, false);
  if (doc.is_discarded()) return Error{ErrorCode::kInvalidInput, valid_utf8(file.string()) + ": not JSON", source};
  return figures_of(doc, valid_utf8(file.string()));
}

ordered_json comparison_json(const metrics::Comparison& c, const metrics::RunFigures& base,
                             const metrics::RunFigures& cand) {
  auto optional = [](const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
  ordered_json doc;
  doc["baseline"] = base.source;
  doc["candidate"] = cand.source;
  doc["metrics"] = ordered_json::array();
  for (const auto& m : c.metrics)
    doc["metrics"].push_back({{"metric", m.key}, {"better", m.lower_is_better ? "lower" : "higher"},
                              {"baseline", m.baseline}, {"candidate", m.candidate}, {"change", m.change},
                              {"ratio", optional(m.ratio)}, {"regression_pct", optional(m.regression_pct)},
                              {"max_regression_pct", optional(m.limit_pct)}, {"verdict", m.verdict}});
  if (c.steps)
    doc["step_times"] = {{"baseline_samples", c.steps->baseline_samples},
                         {"candidate_samples", c.steps->candidate_samples},
                         {"baseline_median_ms", c.steps->baseline_median_ms},
                         {"candidate_median_ms", c.steps->candidate_median_ms},
                         {"mann_whitney_u", c.steps->test.u},
                         {"p_value", c.steps->test.p},
                         {"alpha", metrics::kSignificance},
                         {"verdict", c.steps->verdict}};
  else
    doc["step_times"] = nullptr;
  doc["regressed"] = c.regressed;
  return doc;
}

}  // namespace aorta::report
