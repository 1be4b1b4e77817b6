#include "report/summary_table.h"

#include <fmt/format.h>

#include "metrics/metric_words.h"
#include "report/rank_rows.h"

namespace aorta::report {

std::string steps_line(const metrics::RunMetrics& run, metrics::RatioStyle style) {
  // An iteration time is every profiled step together; a step is one ProfilerStep#N.
  const auto& st = run.steps;
  if (!st) return "steps: none (no ProfilerStep annotations in the traces)\n";
  std::string straggler = metrics::kNoStragglerPeer;
  if (st->worst && st->worst->excess_ms < metrics::kStragglerResolutionMs) {
    straggler = metrics::kNoStragglerTie;
  } else if (st->worst) {
    const metrics::StepStraggler& w = *st->worst;
    straggler = fmt::format("worst straggler step {} on rank {}, +{:.3f} ms over the fastest", w.step,
                            w.slowest_rank ? std::to_string(*w.slowest_rank) : "?", w.excess_ms);
    if (!w.cause.empty())
      straggler += fmt::format(" (late in {}: compute {:+.3f}, exposed comm {:+.3f}, idle {:+.3f} ms)", w.cause,
                               w.compute_excess_ms, w.comm_excess_ms, w.idle_excess_ms);
  }
  return fmt::format("steps: {} ({} rank-steps), {} mean {:.3f} ms, median {:.3f}, p95 {:.3f}, max {:.3f}, cv {}; {}\n",
                     st->step_count, st->samples, metrics::kPerStepTime, st->mean_ms, st->median_ms, st->p95_ms, st->max_ms,
                     metrics::format_ratio(st->cv, style), straggler);
}

namespace {

// One row: a rank (its number, its parser) or a summary row (its statistic, no parser).
void table_row(const std::string& label, const std::string& parser, const metrics::RankMetrics& r, std::ostream& out) {
  out << fmt::format("{:>6}  {:<22}  {:>17.3f}  {:>12.3f}  {:>13.3f}  {:>12.3f}  {:>7.2f}%  {:>9.2f}%  {:>7.2f}%\n", label,
                     parser, r.total_time_us / 1000, r.compute_time_us / 1000, r.comm_time_us / 1000,
                     r.total_comm_time_us / 1000, r.compute_ratio * 100, r.comm_ratio * 100, r.overlap_ratio * 100);
}

}  // namespace

void write_summary_table(const metrics::RunMetrics& run, std::ostream& out, bool every_rank) {
  const std::string comm = metrics::kCvsComm;
  out << fmt::format("{:>6}  {:<22}  {:>17}  {:>12}  {:>13}  {:>12}  {:>8}  {:>10}  {:>8}\n", "rank", "parser",
                     std::string(metrics::kIterationTime) + " ms", "compute ms", comm + " ms", "total comm", "compute",
                     comm, "overlap");
  const RankRows rows = rank_rows(run, every_rank);
  if (rows.left_out)
    for (const auto& s : summary_rows(run.per_rank)) table_row(s.name, "", s.row, out);
  for (const auto* r : rows.listed) table_row(r->rank ? std::to_string(*r->rank) : "?", metrics::parser_name(r->parser), *r, out);
  if (rows.left_out) out << left_out_line(rows, "analyze --ranks all, or the JSON output (per_rank_summary)") << "\n";
  out << fmt::format("avg {} {:.3f} ms (std {:.3f} ms, min {:.3f}, max {:.3f}); {} over {} rank(s)\n",
                     metrics::iteration_time_label(run), run.avg_iteration_time_ms, run.std_iteration_time_us / 1000, run.min_iteration_time_us / 1000,
                     run.max_iteration_time_us / 1000,
                     metrics::short_list(run, metrics::kInTable, metrics::RatioStyle::kPercent), run.per_rank.size());
  out << steps_line(run, metrics::RatioStyle::kPercent);
  out << comm << " = CVS's comm: exposed communication on the GPU and CPU timeline paths, total communication on the "
         "basic scan; overlap = share of communication that runs under compute\n";
}

}  // namespace aorta::report
