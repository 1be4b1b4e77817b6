// Node-side analysis (analysis.where "nodes", issue 46 item 2): each node reads its own
// ranks' traces with the suite's binary (`aorta_suite rank-results`, through the run's
// transport) and sends back only the per-rank figures; the head merges them into the
// set head-side analysis reads from the copies, to the bit. Everything across ranks
// (aggregate, steps summary, outliers, gates) is then computed once, on the head, as before.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "metrics/trace_set.h"
#include "stages/stage.h"

namespace aorta::stages {

// The binary the nodes run: analysis.node_binary, else this program's own path.
std::string node_binary(const config::Variant& v);

// The traces of state.node_traces that lie under `dir` (the torch_traces artifact, as
// head-side analysis reads it), analyzed on their nodes and merged in head order; each
// rank's source and each text name the trace's copy here, as head-side analysis does.
// A node whose analysis fails is an error of the set (its ranks are then missing).
metrics::TraceSet analyze_on_nodes(StageContext& ctx, const std::filesystem::path& dir, std::vector<std::string>& log);

// analysis.archive_traces outliers or none, once the run's metrics are known: copies
// home the diagnosis's outlier ranks' traces (none for "none"), names every trace left
// on its node host:path in the ranks and findings (no report links a copy that is not
// here), and says in `log` which traces were kept. Nothing with "all".
void archive_chosen_traces(StageContext& ctx, std::vector<std::string>& log);

}  // namespace aorta::stages
