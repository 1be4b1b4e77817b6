#include "metrics/run_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <fmt/format.h>

namespace aorta::metrics {
namespace {

// Sorted values, p in 0..1: linear interpolation between the order statistics
// around (n - 1) p (numpy's default; the median is p = 0.5).
double quantile(const std::vector<double>& sorted, double p) {
  const double h = (static_cast<double>(sorted.size()) - 1) * p;
  const auto lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

// Which part of the step the slowest rank spent longer in than the fastest: compute,
// exposed communication, or the rest (time_ms - compute - exposed comm). Nothing when
// either lacks the GPU-timeline figures, or when the slowest is no slower.
void set_cause(StepStraggler& s, const StepMetrics& slow, const StepMetrics& fast) {
  if (!(s.excess_ms > 0)) return;  // no rank was late: nothing made it so
  if (!slow.compute_ms || !slow.exposed_comm_ms || !fast.compute_ms || !fast.exposed_comm_ms) return;
  auto rest = [](const StepMetrics& m) { return m.time_ms - *m.compute_ms - *m.exposed_comm_ms; };
  s.compute_excess_ms = *slow.compute_ms - *fast.compute_ms;
  s.comm_excess_ms = *slow.exposed_comm_ms - *fast.exposed_comm_ms;
  s.idle_excess_ms = rest(slow) - rest(fast);
  // The first of equals: compute, then communication, then idle.
  s.cause = "compute";
  double most = s.compute_excess_ms;
  if (s.comm_excess_ms > most) {
    s.cause = "communication";
    most = s.comm_excess_ms;
  }
  if (s.idle_excess_ms > most) s.cause = "idle";
}

std::optional<StepSummary> summarize_steps(const std::vector<RankMetrics>& ranks) {
  std::vector<double> times;
  // step number -> (time, rank, the step's figures) of each rank's first step with that number
  struct Entry {
    double time_ms;
    std::optional<int> rank;
    const StepMetrics* step;
  };
  std::map<int64_t, std::vector<Entry>> by_step;
  for (const auto& r : ranks) {
    std::set<int64_t> seen;
    for (const auto& s : r.steps) {
      times.push_back(s.time_ms);
      if (seen.insert(s.step).second) by_step[s.step].push_back({s.time_ms, r.rank, &s});
    }
  }
  if (times.empty()) return std::nullopt;
  StepSummary out;
  out.step_count = by_step.size();
  out.samples = times.size();
  const double n = static_cast<double>(times.size());
  double sum = 0;
  for (double t : times) sum += t;
  out.mean_ms = sum / n;
  double ss = 0;
  for (double t : times) ss += (t - out.mean_ms) * (t - out.mean_ms);
  // Population standard deviation (divide by n): the steps measured are the whole
  // population described, not a sample of a larger one.
  out.cv = out.mean_ms > 0 ? std::sqrt(ss / n) / out.mean_ms : 0.0;
  std::sort(times.begin(), times.end());
  out.median_ms = quantile(times, 0.5);
  out.p95_ms = quantile(times, 0.95);
  out.max_ms = times.back();
  // A straggler is slower than its peers: one rank with steps has none (a rank of
  // unknown number is still a peer).
  const auto peers = std::count_if(ranks.begin(), ranks.end(), [](const auto& r) { return !r.steps.empty(); });
  if (peers < 2) return out;  // stragglers and worst stay empty
  for (const auto& [step, entries] : by_step) {
    // Ranks in order: on a tie the lower rank is the slowest (max_element keeps the first).
    auto by_time = [](const Entry& a, const Entry& b) { return a.time_ms < b.time_ms; };
    auto lo = std::min_element(entries.begin(), entries.end(), by_time);
    auto hi = std::max_element(entries.begin(), entries.end(), by_time);
    StepStraggler s{.step = step, .slowest_rank = hi->rank, .excess_ms = hi->time_ms - lo->time_ms};
    set_cause(s, *hi->step, *lo->step);
    out.stragglers.push_back(s);
    if (!out.worst || s.excess_ms > out.worst->excess_ms) out.worst = s;
  }
  return out;
}

// A rank's GPU index is the device its process saw (args.device). Under per-task GPU
// binding (CUDA_VISIBLE_DEVICES per rank, Slurm's --gpu-bind) every rank sees device
// 0, which names no GPU: an index that two ranks of one node share is dropped, and so
// is one that every rank of unknown node shares.
void drop_shared_gpu_indices(std::vector<RankMetrics>& ranks) {
  std::map<std::pair<std::string, int>, int> on_node;
  std::set<int> unplaced;
  size_t unplaced_ranks = 0;
  for (const auto& r : ranks) {
    if (!r.gpu) continue;
    if (r.node) {
      ++on_node[{*r.node, *r.gpu}];
    } else {
      unplaced.insert(*r.gpu);
      ++unplaced_ranks;
    }
  }
  for (auto& r : ranks) {
    if (!r.gpu) continue;
    if (r.node ? on_node[{*r.node, *r.gpu}] > 1 : unplaced_ranks > 1 && unplaced.size() == 1) r.gpu.reset();
  }
}

}  // namespace

Result<RunMetrics> aggregate(std::vector<RankMetrics> per_rank) {
  if (per_rank.empty()) return Error{ErrorCode::kInvalidInput, "Cannot aggregate empty metrics list", ""};
  std::stable_sort(per_rank.begin(), per_rank.end(), [](const RankMetrics& a, const RankMetrics& b) {
    if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
    return a.rank.value_or(0) < b.rank.value_or(0);
  });
  RunMetrics run;
  const double n = static_cast<double>(per_rank.size());
  auto mean_of = [&](auto field) {
    double sum = 0;
    for (const auto& r : per_rank) sum += field(r);
    return sum / n;
  };
  run.avg_iteration_time_us = mean_of([](const RankMetrics& r) { return r.total_time_us; });
  run.avg_iteration_time_ms = run.avg_iteration_time_us / 1000.0;
  if (per_rank.size() > 1) {
    double ss = 0;
    for (const auto& r : per_rank) ss += (r.total_time_us - run.avg_iteration_time_us) * (r.total_time_us - run.avg_iteration_time_us);
    run.std_iteration_time_us = std::sqrt(ss / (n - 1));
  }
  auto [lo, hi] = std::minmax_element(per_rank.begin(), per_rank.end(), [](const RankMetrics& a, const RankMetrics& b) {
    return a.total_time_us < b.total_time_us;
  });
  run.min_iteration_time_us = lo->total_time_us;
  run.max_iteration_time_us = hi->total_time_us;
  if (run.avg_iteration_time_us > 0) run.time_variance_ratio = run.std_iteration_time_us / run.avg_iteration_time_us;
  run.avg_compute_ratio = mean_of([](const RankMetrics& r) { return r.compute_ratio; });
  run.avg_comm_ratio = mean_of([](const RankMetrics& r) { return r.comm_ratio; });
  run.avg_overlap_ratio = mean_of([](const RankMetrics& r) { return r.overlap_ratio; });
  run.avg_compute_time_us = mean_of([](const RankMetrics& r) { return r.compute_time_us; });
  run.avg_comm_time_us = mean_of([](const RankMetrics& r) { return r.comm_time_us; });
  double exposed_sum = 0;
  int exposed_count = 0;
  for (const auto& r : per_rank)
    if (r.exposed_comm_ratio) {
      exposed_sum += *r.exposed_comm_ratio;
      ++exposed_count;
    }
  if (exposed_count > 0) run.avg_exposed_comm_ratio = exposed_sum / exposed_count;
  for (const auto& r : per_rank)
    if (r.peak_memory_gb) run.peak_memory_gb = std::max(run.peak_memory_gb.value_or(0), *r.peak_memory_gb);
  for (auto [name, value] : {std::pair{"avg_compute_ratio", run.avg_compute_ratio},
                             std::pair{"avg_comm_ratio", run.avg_comm_ratio},
                             std::pair{"avg_overlap_ratio", run.avg_overlap_ratio}}) {
    if (!(value >= 0 && value <= 1))
      return Error{ErrorCode::kInvalidInput, fmt::format("{} = {} is outside 0..1", name, value), ""};
  }
  run.steps = summarize_steps(per_rank);
  drop_shared_gpu_indices(per_rank);
  run.outliers = find_outliers(per_rank);
  run.per_rank = std::move(per_rank);
  return run;
}

std::vector<ThresholdCheck> check_thresholds(const RunMetrics& run, const std::vector<config::Threshold>& thresholds) {
  std::vector<ThresholdCheck> checks;
  for (const auto& t : thresholds) {
    if (!t.value) continue;
    ThresholdCheck c;
    c.key = t.key;
    c.limit = *t.value;
    // The loader refuses unknown keys; one built by hand is kept, unchecked, with no gate.
    const ThresholdSpec* spec = find_threshold(t.key);
    if (!spec) {
      checks.push_back(std::move(c));
      continue;
    }
    c.kind = spec->kind;
    c.unit = spec->unit();
    c.actual = spec->value(run);
    if (spec->subject && c.actual) c.subject = spec->subject(run);
    if (!c.actual && spec->unavailable) {
      c.passed = false;  // configured but not measurable: a gate that cannot pass silently
      c.message = spec->unavailable;
    } else if (c.actual) {
      double v = *c.actual;
      // Equality passes, as in the original.
      c.passed = spec->kind == ThresholdKind::kMax ? v <= c.limit : v >= c.limit;
      if (!c.passed)
        c.message = spec->message(v, c.limit) + (spec->note ? " (" + spec->note(run) + ")" : "") +
                    (c.subject ? ": " + c.subject->text() : "");
    }
    checks.push_back(std::move(c));
  }
  return checks;
}

}  // namespace aorta::metrics
