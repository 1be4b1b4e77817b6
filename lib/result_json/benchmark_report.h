// aorta_benchmark_report.json (reference §4.1): status, validation, collection
// errors, cluster, configuration, performance and per-rank summaries, and each
// configured gate's verdict.
#pragma once

#include <string>
#include <vector>

#include "config/cluster.h"
#include "config/variant.h"
#include "job/outcome.h"
#include "job/run_state.h"
#include "result_json/metrics_json.h"

namespace aorta::result_json {

// What the run's record says of its verdict (lib/stages/run_verdict.h reads it, never
// evaluating again): each configured gate's sub-test as the thresholds stage recorded
// it, a skipped one that is not record_only being a gate not evaluated; and why the run
// failed, in one line (empty on a pass: the report then says state.error_message).
struct RunVerdict {
  std::vector<job::SubTest> gates;
  std::string why_failed;
};

// `gates`: one entry per verdict gate: key, kind, actual, limit, unit, margin, outcome
// (passed | failed | recorded | not evaluated), message and subject (null: none).
ordered_json gates_json(const std::vector<job::SubTest>& gates);

// NCCL channels and the RCCL branch describe an accelerator run: one that builds RCCL,
// or whose parsed ranks have a GPU timeline (or TraceLens reports). A CPU run (gloo,
// RCCL build skipped, CPU timelines) has neither: the reports leave both out.
bool accelerator_run(const config::Variant& variant, const metrics::RunMetrics* result);

// `configuration` holds nccl_channels and rccl_branch on an accelerator_run only.
ordered_json benchmark_report(const job::RunState& state, const config::Variant& variant,
                              const config::Cluster& cluster, bool validation_passed, const RunVerdict& verdict = {});

}  // namespace aorta::result_json
