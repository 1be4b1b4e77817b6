#include "app/compare_command.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "app/exit_codes.h"
#include "common/atomic_file.h"
#include "common/output_path.h"
#include "common/utf8.h"
#include "metrics/compare.h"
#include "metrics/metric_catalogue.h"
#include "metrics/metric_words.h"
#include "result_json/metrics_json.h"
#include "report/run_figures.h"

namespace aorta::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

// The KEY of "KEY=PCT"; "" for a PCT on every metric.
std::string gate_key(const std::string& given) {
  const size_t eq = given.find('=');
  return eq == std::string::npos ? "" : given.substr(0, eq);
}

// "PCT" for every metric, "KEY=PCT" for one; PCT a finite number >= 0.
Result<std::map<std::string, double>> limits_of(const std::vector<std::string>& given) {
  std::map<std::string, double> limits;
  const auto known = metrics::compared_metrics();
  for (const auto& g : given) {
    const std::string key = gate_key(g);
    const std::string number = key.empty() ? g : g.substr(key.size() + 1);
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

// A gate that compares nothing passes every candidate: PCT between runs with no
// compared metric in common, or KEY=PCT with KEY not in both. Says which, naming the
// gate and both inputs; empty when every gate compares a metric.
std::string idle_gate(const std::vector<std::string>& given, const metrics::Comparison& c,
                      const metrics::RunFigures& base, const metrics::RunFigures& cand) {
  const std::string inputs = "baseline " + base.source + " and candidate " + cand.source;
  for (const auto& g : given) {
    const std::string key = gate_key(g);
    if (std::any_of(c.metrics.begin(), c.metrics.end(),
                    [&](const auto& m) { return key.empty() ? metrics::gated_by_default(m.key) : m.key == key; }))
      continue;
    return "--max-regression " + g + " compares nothing: " +
           (key.empty() ? inputs + " have no headline time (ms) in common; name a metric: KEY=PCT"
                        : key + " is not in both " + inputs);
  }
  return "";
}

// A gated metric that cannot be judged (in one run only, not finite, a baseline of
// 0) would pass as "n/a": an input error like a gate that compares nothing, naming the
// gate, the metric and both inputs; empty when every gated metric is judged.
std::string unjudged_gate(const std::vector<std::string>& given, const metrics::Comparison& c,
                          const metrics::RunFigures& base, const metrics::RunFigures& cand) {
  if (c.unjudged.empty()) return "";
  const metrics::UnjudgedMetric& u = c.unjudged.front();
  std::vector<std::string> others;
  for (auto it = c.unjudged.begin() + 1; it != c.unjudged.end(); ++it) others.push_back(it->key + " (" + it->why + ")");
  // The gate that reaches the metric: its own KEY=PCT, else the bare PCT.
  auto gate = std::find_if(given.begin(), given.end(), [&](const std::string& g) { return gate_key(g) == u.key; });
  if (gate == given.end())
    gate = std::find_if(given.begin(), given.end(), [](const std::string& g) { return gate_key(g).empty(); });
  return "--max-regression " + (gate == given.end() ? std::string("?") : *gate) + " cannot judge " + u.key + ": " +
         u.why + " (baseline " + base.source + ", candidate " + cand.source + ")" +
         (c.unjudged.size() > 1 ? "; nor " + fmt::format("{}", fmt::join(others, ", ")) : "");
}

std::string number(double v) { return fmt::format("{:.6g}", v); }

// One format per unit (issue 31, 8): times with 3 decimals, fractions in % with 2.
bool is_fraction(const std::string& key) {
  const metrics::MetricSpec* spec = metrics::find_metric(key);
  return spec && spec->unit == metrics::MetricUnit::kFraction;
}
std::string value_text(const std::string& key, double v) {
  if (is_fraction(key)) return fmt::format("{:.2f} %", v * 100);
  return metrics::gated_by_default(key) ? fmt::format("{:.3f}", v) : fmt::format("{:.4g}", v);
}
std::string change_text(const metrics::MetricComparison& m) {
  if (is_fraction(m.key)) return fmt::format("{:+.2f} pp", m.change * 100);
  return metrics::gated_by_default(m.key) ? fmt::format("{:+.3f}", m.change) : fmt::format("{:+.4g}", m.change);
}

// " (7.80 % worse, limit 5 %)", " (2.00 pp better)", " (within noise: U test p 0.42)",
// or nothing when unchanged or unjudged.
std::string how_much(const metrics::MetricComparison& m, const std::optional<metrics::StepComparison>& steps) {
  if (m.judged == metrics::Judged::kSteps && m.verdict == "same" && m.change != 0 && steps)
    return fmt::format(" (within noise: U test p {:.3f})", steps->test.p);
  const bool points = m.judged == metrics::Judged::kPoints;
  const std::optional<double>& worse = points ? m.regression_points : m.regression_pct;
  if (!worse || *worse == 0 || (points && m.verdict == "same")) return "";
  const char* unit = points ? "pp" : "%";
  const std::string limit = m.limit_pct ? fmt::format(", limit {} {}", number(*m.limit_pct), unit) : "";
  return fmt::format(" ({:.2f} {} {}{})", std::fabs(*worse), unit, *worse > 0 ? "worse" : "better", limit);
}

std::string ratio_text(const std::optional<double>& ratio) { return ratio ? fmt::format("{:.4f}", *ratio) : "-"; }

// The diagnosis rows, informational: shares in % of the window with 2 decimals (the
// change in percentage points), bus bandwidths in GB/s with 3, each at its message size.
void print_diagnosis(const metrics::Comparison& c) {
  if (!c.no_diagnosis.empty()) {
    std::cout << "diagnosis: not compared, " << printable(c.no_diagnosis) << "\n";
    return;
  }
  for (const auto& s : c.class_shares)
    std::cout << fmt::format("{:<24} {:>12} {:>12} {:>12} {:>8}  {}\n", printable("share " + s.kernel_class),
                             fmt::format("{:.2f} %", s.baseline * 100), fmt::format("{:.2f} %", s.candidate * 100),
                             fmt::format("{:+.2f} pp", s.change * 100), ratio_text(s.ratio), s.verdict);
  for (const auto& b : c.busbw) {
    const std::string at = b.baseline_bytes == b.candidate_bytes
                               ? fmt::format(" at {} B", b.baseline_bytes)
                               : fmt::format(": largest message {} B vs {} B", b.baseline_bytes, b.candidate_bytes);
    const std::string pct = b.ratio && b.verdict != "same" && b.verdict != "n/a"
                                ? fmt::format(" ({:.2f} % {})", std::fabs(*b.ratio - 1) * 100, b.verdict)
                                : "";
    std::cout << fmt::format("{:<24} {:>12} {:>12} {:>12} {:>8}  {}{}{}\n", "busbw " + b.collective,
                             fmt::format("{:.3f} GB/s", b.baseline_gbps), fmt::format("{:.3f} GB/s", b.candidate_gbps),
                             fmt::format("{:+.3f}", b.change), ratio_text(b.ratio), b.verdict, pct, at);
  }
}

// An input compare will not judge (a partial run, a gate that cannot judge): said on
// the console and, for a CI job that reads only --output, in it too; exit 2 either way.
int refuse(const cli::Options& o, const std::string& why) {
  if (!o.output.empty()) {
    const nlohmann::ordered_json doc = {{"baseline", valid_utf8(o.compare_paths[0])},
                                        {"candidate", valid_utf8(o.compare_paths[1])},
                                        {"refused", valid_utf8(why)},
                                        {"regressed", nullptr}};
    if (Status s = write_file_atomically(o.output, result_json::json_text(doc)); !s)
      std::cerr << "aorta_suite compare: " << printable(s.error().describe()) << "\n";
  }
  return usage_error(printable(why), cli::Command::kCompare);
}

}  // namespace

// What the time rows are of, in the words every output uses: the iteration time is the
// whole profiled window (its steps, run against run), a step time one step's.
std::string time_words(const metrics::RunFigures& base, const metrics::RunFigures& cand) {
  auto steps = [](const metrics::RunFigures& run) {
    auto it = run.performance.find("step_count");
    return it == run.performance.end() ? std::string("?") : number(it->second);
  };
  return fmt::format("avg_iteration_time_ms is the {}; *_step_time_ms a {}\n",
                     metrics::iteration_time_label(steps(base) + " vs " + steps(cand)), metrics::kPerStepTime);
}

void print_comparison(const metrics::Comparison& c, const metrics::RunFigures& base, const metrics::RunFigures& cand) {
  std::cout << "baseline  " << printable(base.source) << "\ncandidate " << printable(cand.source) << "\n";
  for (const auto& m : c.mismatches) std::cout << "warning: " << printable(m) << "\n";
  for (const auto& w : c.warnings) std::cout << "note: " << w << "\n";
  std::cout << time_words(base, cand);
  std::cout << fmt::format("{:<24} {:>12} {:>12} {:>12} {:>8}  {}\n", "metric", "baseline", "candidate", "change",
                           "ratio", "verdict");
  for (const auto& m : c.metrics)
    std::cout << fmt::format("{:<24} {:>12} {:>12} {:>12} {:>8}  {}{}\n", m.key, value_text(m.key, m.baseline),
                             value_text(m.key, m.candidate), change_text(m), ratio_text(m.ratio), m.verdict,
                             how_much(m, c.steps));
  print_diagnosis(c);
  if (c.steps)
    std::cout << fmt::format("per-step times: {} vs {} rank-steps, median {:.3f} vs {:.3f} ms; Mann-Whitney U {}, "
                             "p {:.4g}: {}\n",
                             c.steps->baseline_samples, c.steps->candidate_samples, c.steps->baseline_median_ms,
                             c.steps->candidate_median_ms, number(c.steps->test.u), c.steps->test.p, c.steps->verdict);
  else
    std::cout << "per-step times: not in both runs (no ProfilerStep annotations)\n";
  for (const auto& m : c.metrics)  // the regressed metrics by name, each with how far past its limit
    if (m.verdict == "regressed") std::cout << "regressed: " << m.key << how_much(m, c.steps) << "\n";
}

int compare(const cli::Options& o) {
  try {
    auto limits = limits_of(o.max_regression);
    // Every message below may carry a file's name or bytes: printable for the terminal.
    if (!limits) return usage_error(printable(limits.error().message), cli::Command::kCompare);
    for (const auto& input : o.compare_paths) register_input(input);  // --output never replaces one
    auto base = report::load_run_figures(o.compare_paths[0]);
    if (!base) return refuse(o, "baseline " + base.error().message);
    auto cand = report::load_run_figures(o.compare_paths[1]);
    if (!cand) return refuse(o, "candidate " + cand.error().message);
    const metrics::Comparison c = metrics::compare_runs(*base, *cand, *limits);
    if (const std::string idle = idle_gate(o.max_regression, c, *base, *cand); !idle.empty()) return refuse(o, idle);
    if (const std::string unjudged = unjudged_gate(o.max_regression, c, *base, *cand); !unjudged.empty())
      return refuse(o, unjudged);
    print_comparison(c, *base, *cand);
    if (!o.output.empty())
      if (Status s = write_file_atomically(o.output, result_json::json_text(report::comparison_json(c, *base, *cand))); !s) {
        std::cerr << "aorta_suite compare: " << printable(s.error().describe()) << "\n";
        return kExitFailed;
      }
    return c.regressed ? kExitFailed : kExitOk;
  } catch (const std::exception& e) {
    std::cerr << "aorta_suite compare: " << printable(e.what()) << "\n";
    return kExitFailed;
  }
}

}  // namespace aorta::app
