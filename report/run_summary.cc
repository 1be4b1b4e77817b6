#include "report/run_summary.h"

#include <fmt/format.h>

#include "metrics/metric_catalogue.h"
#include "metrics/metric_words.h"
#include "result_json/diagnosis_json.h"
#include "report/node_subtests.h"
#include "report/rank_rows.h"
#include "report/summary_table.h"

namespace aorta::report {
namespace {

// The run summary is read by people: every ratio in % (the JSON keeps fractions).
std::string ratio(std::optional<double> value) { return metrics::format_ratio(value, metrics::RatioStyle::kPercent); }

// One row: a rank (its number, its parser) or a summary row (its statistic, no parser).
void rank_row(const std::string& label, const std::string& parser, const metrics::RankMetrics& r, std::string& out) {
  out += fmt::format("{:<6} {:<22} {:>17.3f} {:>8} {:>10} {:>13} {:>8}\n", label, parser, r.total_time_us / 1000.0,
                     ratio(r.compute_ratio), ratio(r.comm_ratio), ratio(r.exposed_comm_ratio), ratio(r.overlap_ratio));
}

void rank_table(const metrics::RunMetrics& m, std::string& out) {
  const std::string iteration_ms = std::string(metrics::kIterationTime) + " ms";
  out += fmt::format("{:<6} {:<22} {:>17} {:>8} {:>10} {:>13} {:>8}\n", "rank", "parser", iteration_ms, "compute",
                     metrics::kCvsComm, "exposed comm", "overlap");
  const RankRows rows = rank_rows(m);
  if (rows.left_out)
    for (const auto& s : summary_rows(m.per_rank)) rank_row(s.name, "", s.row, out);
  for (const auto* r : rows.listed)
    rank_row(r->rank ? std::to_string(*r->rank) : "?", metrics::parser_name(r->parser), *r, out);
  if (rows.left_out) out += left_out_line(rows, "aorta_benchmark_report.json (per_rank_summary)") + "\n";
  // An iteration time is every profiled step together, CVS's word for it; N says how many.
  out += fmt::format("run: avg {} {:.3f} ms (min {:.3f}, max {:.3f}), time variance ratio {}; avg {}\n",
                     metrics::iteration_time_label(m), m.avg_iteration_time_ms, m.min_iteration_time_us / 1000.0,
                     m.max_iteration_time_us / 1000.0, ratio(m.time_variance_ratio),
                     metrics::short_list(m, metrics::kInSummary, metrics::RatioStyle::kPercent));
  out += steps_line(m, metrics::RatioStyle::kPercent);
}

// Each sub-test's SUBPASS/SUBFAIL line; past kListedNodes nodes the passed nodes' lines
// are one line (node_subtests.h), the JUnit file has each.
void subtest_lines(const StageResult& stage, std::string& out) {
  std::vector<std::pair<std::string, job::Outcome>> nodes;
  for (const auto& t : stage.subtests)
    if (is_node_subtest(t)) nodes.emplace_back(t.value, t.outcome);
  const bool folded = nodes.size() > kListedNodes;
  for (const auto& t : stage.subtests)
    if (!folded || !is_node_subtest(t) || t.outcome != job::Outcome::kPassed) out += t.line() + "\n";
  if (folded) out += "[trace collection] " + nodes_summary(nodes) + "; each node's sub-test in the JUnit file\n";
}

}  // namespace

std::string run_summary(const RunRecord& run, const metrics::RunMetrics* result) {
  const int failed = run.count(job::Outcome::kFailed);
  // An interrupted run is said to be one (issue 31, 9), whatever its counts.
  const std::string verdict = !run.interrupted.empty() ? "INTERRUPTED by " + run.interrupted : failed ? "FAILED" : "PASSED";
  std::string out = fmt::format("== {} {}: {} passed, {} failed, {} skipped of {} tests; run {}, {:.1f} s\n", run.suite,
                                verdict, run.count(job::Outcome::kPassed), failed,
                                run.count(job::Outcome::kSkipped), run.tests().size(), run.run_id, run.seconds);
  if (result && !result->per_rank.empty()) {
    rank_table(*result, out);
    out += "Diagnosis\n";
    for (const std::string& line : result_json::diagnosis_lines(*result)) out += "  " + line + "\n";
  }
  for (const StageResult* s : run.stage_tests()) subtest_lines(*s, out);
  for (const StageResult* s : run.stage_tests())
    if (s->outcome == job::Outcome::kFailed)
      out += fmt::format("FAILED {}: {}\n", s->name, s->failures.empty() ? "(no message)" : s->failures.front());
  return out;
}

}  // namespace aorta::report
