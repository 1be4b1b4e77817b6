#include "report/ci_metrics.h"

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "metrics/metric_catalogue.h"

namespace aorta::report {
namespace {

// One figure: its family, its gate label (empty for a run metric) and its value.
struct Figure {
  std::string family;
  std::string gate;
  double value;
};

// The shortest text that reads back as the same double.
std::string number(double v) { return fmt::format("{}", v); }

std::vector<Figure> figures(const RunRecord& run, const metrics::RunMetrics* result) {
  std::vector<Figure> out;
  // One time unit, ms, as the Run Deck shows them: std_iteration_time_us is std_iteration_time_ms here.
  if (result)
    for (const auto* spec : metrics::metrics_in(metrics::kInJson))
      if (auto v = metrics::deck_value(*spec, *result)) out.push_back({metrics::deck_key(*spec), "", *v});
  // Each family's samples together, as OpenMetrics wants: every gate's actual, then every limit ...
  std::vector<const job::SubTest*> gates;
  for (const StageResult* test : run.tests())
    if (test->subtest && test->subtest->kind == job::SubTestKind::kThreshold && test->subtest->actual &&
        test->subtest->limit && test->subtest->gate)
      gates.push_back(&*test->subtest);
  for (const auto* t : gates) out.push_back({"gate_actual", t->value, *t->actual});
  for (const auto* t : gates) out.push_back({"gate_limit", t->value, *t->limit});
  for (const auto* t : gates) out.push_back({"gate_margin", t->value, *t->margin()});
  // Whether the value is within its limit, enforced or only recorded (enforce_thresholds: false).
  for (const auto* t : gates) out.push_back({"gate_passed", t->value, *t->margin() >= 0 ? 1.0 : 0.0});
  return out;
}

}  // namespace

std::string openmetrics_text(const RunRecord& run, const metrics::RunMetrics* result) {
  std::string text;
  std::string last_family;
  for (const auto& f : figures(run, result)) {
    const std::string name = "aorta_" + f.family;
    // A family's samples stay together (OpenMetrics); gate families repeat per gate.
    if (name != last_family) text += "# TYPE " + name + " gauge\n";
    last_family = name;
    text += name + (f.gate.empty() ? "" : "{gate=\"" + f.gate + "\"}") + " " + number(f.value) + "\n";
  }
  text += "# TYPE aorta_tests gauge\n";
  for (auto [label, outcome] : {std::pair{"passed", job::Outcome::kPassed}, std::pair{"failed", job::Outcome::kFailed},
                                std::pair{"skipped", job::Outcome::kSkipped}})
    text += fmt::format("aorta_tests{{outcome=\"{}\"}} {}\n", label, run.count(outcome));
  return text + "# EOF\n";
}

std::string plot_csv(const RunRecord& run, const metrics::RunMetrics* result) {
  std::string header, values;
  for (const auto& f : figures(run, result)) {
    header += (header.empty() ? "" : ",") + f.family + (f.gate.empty() ? "" : ":" + f.gate);
    values += (values.empty() ? "" : ",") + number(f.value);
  }
  return header + "\n" + values + "\n";
}

}  // namespace aorta::report
