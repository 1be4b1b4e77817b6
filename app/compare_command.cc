#include "app/compare_command.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "app/exit_codes.h"
#include "common/atomic_file.h"
#include "common/utf8.h"
#include "metrics/compare.h"
#include "metrics/trace_set.h"
#include "report/metrics_json.h"

namespace aorta::app {
namespace {

namespace fs = std::filesystem;
using report::ordered_json;

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

// A JSON file, a run folder holding aorta_benchmark_report.json, or a trace folder.
Result<metrics::RunFigures> load(const fs::path& path) {
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
      ordered_json doc;
      doc["performance"] = report::performance_json(*run);
      doc["per_rank_summary"] = report::per_rank_json(*run);
      return figures_of(doc, source);
    }
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{ErrorCode::kIo, valid_utf8(file.string()) + ": cannot be read", source};
  ordered_json doc = ordered_json::parse(in, nullptr, false);
  if (doc.is_discarded()) return Error{ErrorCode::kInvalidInput, valid_utf8(file.string()) + ": not JSON", source};
  return figures_of(doc, valid_utf8(file.string()));
}

// "PCT" for every metric, "KEY=PCT" for one; PCT a finite number >= 0.
Result<std::map<std::string, double>> limits_of(const std::vector<std::string>& given) {
  std::map<std::string, double> limits;
  const auto known = metrics::compared_metrics();
  for (const auto& g : given) {
    const size_t eq = g.find('=');
    const std::string key = eq == std::string::npos ? "" : g.substr(0, eq);
    const std::string number = eq == std::string::npos ? g : g.substr(eq + 1);
    double pct = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), pct);
    if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(pct) || pct < 0)
      return Error{ErrorCode::kInvalidInput, "--max-regression " + g + ": PCT must be a number >= 0", g};
    if (!key.empty() && std::find(known.begin(), known.end(), key) == known.end())
      return Error{ErrorCode::kInvalidInput,
                   "--max-regression " + g + ": unknown metric " + key + "; compared: " + fmt::format("{}", fmt::join(known, ", ")),
                   g};
    limits[key] = pct;
  }
  return limits;
}

std::string number(double v) { return fmt::format("{:.6g}", v); }

// " (7.80 % worse, limit 5 %)", " (2.10 % better)", or nothing when unchanged or unjudged.
std::string how_much(const metrics::MetricComparison& m) {
  if (!m.regression_pct || *m.regression_pct == 0) return "";
  const std::string limit = m.limit_pct ? fmt::format(", limit {} %", number(*m.limit_pct)) : "";
  return fmt::format(" ({:.2f} % {}{})", std::fabs(*m.regression_pct), *m.regression_pct > 0 ? "worse" : "better", limit);
}

void print(const metrics::Comparison& c, const metrics::RunFigures& base, const metrics::RunFigures& cand) {
  std::cout << "baseline  " << base.source << "\ncandidate " << cand.source << "\n";
  std::cout << fmt::format("{:<24} {:>12} {:>12} {:>12} {:>8}  {}\n", "metric", "baseline", "candidate", "change",
                           "ratio", "verdict");
  for (const auto& m : c.metrics)
    std::cout << fmt::format("{:<24} {:>12} {:>12} {:>12} {:>8}  {}{}\n", m.key, number(m.baseline),
                             number(m.candidate), (m.change > 0 ? "+" : "") + number(m.change),
                             m.ratio ? fmt::format("{:.4f}", *m.ratio) : "-", m.verdict, how_much(m));
  if (c.steps)
    std::cout << fmt::format("step times: {} vs {} steps, median {:.3f} vs {:.3f} ms; Mann-Whitney U {}, p {:.4g}: {}\n",
                             c.steps->baseline_samples, c.steps->candidate_samples, c.steps->baseline_median_ms,
                             c.steps->candidate_median_ms, number(c.steps->test.u), c.steps->test.p, c.steps->verdict);
  else
    std::cout << "step times: not in both runs (no ProfilerStep annotations)\n";
}

ordered_json as_json(const metrics::Comparison& c, const metrics::RunFigures& base, const metrics::RunFigures& cand) {
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

}  // namespace

int compare(const cli::Options& o) {
  try {
    auto limits = limits_of(o.max_regression);
    if (!limits) return usage_error(limits.error().message, cli::Command::kCompare);
    auto base = load(o.compare_paths[0]);
    if (!base) return usage_error("baseline " + base.error().message, cli::Command::kCompare);
    auto cand = load(o.compare_paths[1]);
    if (!cand) return usage_error("candidate " + cand.error().message, cli::Command::kCompare);
    const metrics::Comparison c = metrics::compare_runs(*base, *cand, *limits);
    print(c, *base, *cand);
    if (!o.output.empty())
      if (Status s = write_file_atomically(o.output, report::json_text(as_json(c, *base, *cand))); !s) {
        std::cerr << "aorta_suite compare: " << s.error().describe() << "\n";
        return kExitFailed;
      }
    if (c.regressed) std::cout << "regressed: a metric is past its --max-regression\n";
    return c.regressed ? kExitFailed : kExitOk;
  } catch (const std::exception& e) {
    std::cerr << "aorta_suite compare: " << e.what() << "\n";
    return kExitFailed;
  }
}

}  // namespace aorta::app
