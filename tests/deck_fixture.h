// The Run Deck tests' run: ranks 1 (12000/9000/4000 us total/compute/comm) and 0
// (10000/8000/3000 us), a benchmark and a threshold stage, and three gates of which one
// is null (reference §4.6's fixture).
#pragma once

#include <tuple>

#include "report/run_deck.h"
#include "stages/specs.h"
#include "suites/suites.h"
#include "tests/rank_fixture.h"

namespace aorta::testing {

// `ranks` ranks of `steps` steps each, on nodes of 8 GPUs ("node<rank / 8>", GPU rank % 8):
// step s of rank r takes base_ms + s % 3 ms, and rank `slow` twice that.
inline metrics::RunMetrics ranks_with_steps(int ranks, int steps, double base_ms, int slow) {
  std::vector<metrics::RankMetrics> per_rank;
  for (int r = 0; r < ranks; ++r) {
    metrics::RankMetrics m = rank_metrics(r, 10000 + r, 8000, 3000);
    m.node = "node" + std::to_string(r / 8);
    m.gpu = r % 8;
    for (int s = 0; s < steps; ++s) {
      metrics::StepMetrics step;
      step.step = s + 1;
      step.time_ms = (base_ms + s % 3) * (r == slow ? 2 : 1);
      m.steps.push_back(step);
    }
    per_rank.push_back(std::move(m));
  }
  return metrics::aggregate(std::move(per_rank)).value();
}

struct DeckFixture {
  report::RunRecord run;
  config::Variant variant;
  metrics::RunMetrics result =
      metrics::aggregate({rank_metrics(1, 12000, 9000, 4000), rank_metrics(0, 10000, 8000, 3000)}).value();
  DeckFixture() {
    run.suite = "aorta_single";
    for (auto [name, seconds, label] : {std::tuple{"test_run_benchmark", 1.5, "benchmark"},
                                        std::tuple{"test_validate_thresholds", 0.1, "thresholds"}}) {
      report::StageResult stage;
      stage.name = stage.stage = name;
      stage.seconds = seconds;
      stage.label = label;
      run.stages.push_back(stage);
    }
    variant.model_id = "test";
    variant.thresholds = {{"max_avg_iteration_ms", 20.0}, {"min_compute_ratio", 0.5}, {"min_overlap_ratio", std::nullopt}};
  }
  // The deck of the run as it stands, its threshold stage holding the verdicts that
  // stage records for this variant and result (none without a result).
  report::DeckInput input(bool with_result = true) {
    for (auto& stage : run.stages)
      if (stage.name == stages::kValidateThresholds.test_name)
        stage.subtests = with_result ? gates() : std::vector<job::SubTest>{};
    report::DeckInput in{&run,        &variant,    1,  2, 112, with_result ? &result : nullptr,
                         "../r.html", "../r.log", "", "v.json"};
    in.lifecycle = suites::lifecycle();
    return in;
  }
  // What test_validate_thresholds records: one sub-test per configured threshold.
  std::vector<job::SubTest> gates() const {
    std::vector<job::SubTest> recorded;
    for (const auto& check : metrics::check_thresholds(result, variant.thresholds))
      recorded.push_back({.kind = job::SubTestKind::kThreshold, .key = "metric", .value = check.key,
                          .outcome = check.passed ? job::Outcome::kPassed : job::Outcome::kFailed,
                          .message = check.message, .actual = check.actual, .limit = check.limit});
    return recorded;
  }
};

}  // namespace aorta::testing
