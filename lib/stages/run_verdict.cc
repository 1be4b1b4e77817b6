#include "stages/run_verdict.h"

#include "metrics/threshold_catalogue.h"
#include "stages/specs.h"

namespace aorta::stages {
namespace {

const StageResult* thresholds_record(std::span<const StageResult> records) {
  for (const auto& r : records)
    if (!r.subtest && r.name == kValidateThresholds.test_name) return &r;
  return nullptr;
}

// Why the thresholds stage left a gate without a verdict.
std::string not_evaluated_reason(const StageResult* stage) {
  const std::string name = kValidateThresholds.test_name;
  if (!stage) return name + " did not run";
  if (stage->skipped()) return name + " skipped: " + stage->skip_reason;
  return name + " recorded no verdict" + (stage->failures.empty() ? "" : ": " + stage->failures.front());
}

job::SubTest not_evaluated(const config::Threshold& t, const StageResult* stage) {
  job::SubTest gate{.kind = job::SubTestKind::kThreshold, .key = "metric", .value = t.key,
                    .outcome = job::Outcome::kSkipped, .message = not_evaluated_reason(stage), .limit = t.value};
  if (const metrics::ThresholdSpec* spec = metrics::find_threshold(t.key)) {
    gate.gate = spec->kind;
    gate.unit = spec->unit();
  }
  return gate;
}

// "max_avg_iteration_ms (actual 835.2 ms, max 600 ms)", then " on <subject>"; the
// message where there is no value (a gate that could not be measured).
std::string failed_gate(const job::SubTest& gate) {
  std::string s = gate.value + " (" + (gate.actual ? gate.measured() : gate.message) + ")";
  return gate.subject ? s + " on " + gate.subject->text() : s;
}

std::string stage_failure(const StageResult& stage) {
  std::string gates;
  for (const auto& g : stage.subtests)
    if (g.outcome == job::Outcome::kFailed) gates += (gates.empty() ? "" : ", ") + failed_gate(g);
  if (!gates.empty()) return stage.name + ": gates failed: " + gates;
  return stage.name + ": " + (stage.failures.empty() ? stage.skip_reason : stage.failures.front());
}

}  // namespace

result_json::RunVerdict run_verdict(const StageContext& ctx) {
  result_json::RunVerdict verdict;
  const StageResult* thresholds = thresholds_record(ctx.earlier);
  for (const auto& t : ctx.exec.variant().thresholds) {
    if (!t.value) continue;
    const job::SubTest* found = nullptr;
    if (thresholds)
      for (const auto& g : thresholds->subtests)
        if (g.value == t.key && !found) found = &g;
    verdict.gates.push_back(found ? *found : not_evaluated(t, thresholds));
  }
  // A sub-test's own test is left out (its stage's entry names it); a stage an interrupt
  // kept from starting fails the run as a failure does.
  for (const auto& r : ctx.earlier)
    if (!r.subtest && (r.failed() || r.skip_reason.starts_with(kNotStartedByInterrupt)))
      verdict.why_failed += (verdict.why_failed.empty() ? "" : "; ") + stage_failure(r);
  return verdict;
}

}  // namespace aorta::stages
