// aorta_benchmark_report.json (reference §4.1): status, validation, collection
// errors, cluster, configuration, performance and per-rank summaries.
#pragma once

#include "config/cluster.h"
#include "config/variant.h"
#include "job/run_state.h"
#include "result_json/metrics_json.h"

namespace aorta::result_json {

ordered_json benchmark_report(const job::RunState& state, const config::Variant& variant,
                              const config::Cluster& cluster, bool validation_passed);

}  // namespace aorta::result_json
