// test_validate_thresholds: every configured threshold checked against the result,
// one sub-test each; with enforce_thresholds false, recorded and not enforced.
#include "metrics/run_metrics.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

constexpr const char* kSkipThresholds = "enforce_thresholds=false; metrics are recorded without threshold assertions";

// A threshold check as a sub-test (unit, gate and outcome typed).
job::SubTest threshold_subtest(const metrics::ThresholdCheck& check) {
  job::SubTest t{.kind = job::SubTestKind::kThreshold,
                 .key = "metric",
                 .value = check.key,
                 .outcome = check.passed ? job::Outcome::kPassed : job::Outcome::kFailed,
                 .message = check.message,
                 .actual = check.actual,
                 .limit = check.limit,
                 .gate = check.kind,
                 .unit = check.unit,
                 .subject = check.subject};
  return t;
}

StageResult validate_thresholds(StageContext& ctx) {
  StageResult out;
  const auto& v = ctx.exec.variant();
  if (!v.enforce_thresholds) {
    // Recorded, not enforced: each threshold's sub-test still shows its value and limit.
    out.skip_reason = kSkipThresholds;
    if (ctx.state.result)
      for (const auto& check : metrics::check_thresholds(*ctx.state.result, v.thresholds)) {
        job::SubTest t = threshold_subtest(check);
        t.message = check.passed ? kSkipThresholds : std::string(kSkipThresholds) + " (would fail: " + check.message + ")";
        t.outcome = job::Outcome::kSkipped;
        t.record_only = true;
        out.subtests.push_back(t);
      }
    return out;
  }
  if (!ctx.state.result) {
    out.failures.push_back("No benchmark result to validate");
    return out;
  }
  for (const auto& check : metrics::check_thresholds(*ctx.state.result, v.thresholds))
    out.subtests.push_back(threshold_subtest(check));
  if (std::string failed = failed_subtests_line(out.subtests, "gate", "gates"); !failed.empty())
    out.failures.push_back(failed);
  return out;
}

// One sub-test per configured threshold; a null threshold is never checked.
std::vector<std::string> threshold_keys(const config::Variant& v, const std::vector<std::string>&) {
  std::vector<std::string> keys;
  for (const auto& t : v.thresholds)
    if (t.value) keys.push_back(t.key);
  return keys;
}

}  // namespace

extern const StageSpec kValidateThresholds = {
    .test_name = "test_validate_thresholds",
    .label = "thresholds",
    .body = validate_thresholds,
    .subtests = SubTestPlan{job::SubTestKind::kThreshold, "metric", threshold_keys},
};

}  // namespace aorta::stages
